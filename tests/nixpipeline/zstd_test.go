package nixpipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// TestTarZstThroughThePipeline: an archive shipped as .tar.zst (as
// TensorRT 11's are) is fetched, unpacked and detected by the Nix
// pipeline, with the same detection as the same tree in .tar.xz.
func TestTarZstThroughThePipeline(t *testing.T) {
	requireNix(t)
	dir := copySample(t)
	const xzRel = "demo_samples/linux-x86_64/demo_samples-linux-x86_64-1.0.0-archive.tar.xz"
	compressed, err := os.ReadFile(filepath.Join(dir, xzRel))
	if err != nil {
		t.Fatal(err)
	}
	r, err := xz.NewReader(bytes.NewReader(compressed))
	if err != nil {
		t.Fatal(err)
	}
	var tarData bytes.Buffer
	if _, err := tarData.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	zst := testarchive.ZstdFrames(tarData.Bytes())
	zstRel := strings.TrimSuffix(xzRel, ".tar.xz") + ".tar.zst"
	if err := os.WriteFile(filepath.Join(dir, zstRel), zst, 0o644); err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(zst)
	build := func(manifest string) string {
		t.Helper()
		expr := append(pipelineExpr(t, dir, manifest), "-A", "entries.demo_samples.linux-x86_64.None.features")
		out := strings.TrimSpace(mustNix(t, append([]string{"nix-build", "--no-out-link", "--option", "extra-sandbox-paths", dir}, expr...)...))
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	want := build("redistrib_1.0.0.json")
	rewriteManifest(t, filepath.Join(dir, "redistrib_1.0.0.json"), func(m map[string]any) {
		l := leaf(m, "demo_samples", "linux-x86_64")
		l["relative_path"], l["sha256"] = zstRel, hex.EncodeToString(digest[:])
	})
	if got := build("redistrib_1.0.0.json"); got != want {
		t.Errorf("detection of the .tar.zst differs from the .tar.xz's:\nzst: %s\nxz:  %s", got, want)
	}
}
