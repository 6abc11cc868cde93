package nixpipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
)

// useNewSourceArchive makes demo_src's source archive in the sample copy
// dir one that no run has built yet (its content names the test and the
// time), written as demo_src/NAME.tar.gz; with dropVariant the manifest
// also loses libdemo_variant, so that the run stays small. It returns the
// archive's sha256 in hex.
func useNewSourceArchive(t *testing.T, dir, name string, dropVariant bool) string {
	t.Helper()
	unique := testarchive.TarGz([]testarchive.Entry{
		testarchive.F("demo_src-2.0.0-archive/src/"+name+".txt", fmt.Sprintf("%s %d", t.Name(), time.Now().UnixNano())),
	})
	rel := "demo_src/" + name + ".tar.gz"
	if err := os.WriteFile(filepath.Join(dir, rel), unique, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(unique)
	rewriteManifest(t, filepath.Join(dir, "redistrib_2.0.0.json"), func(m map[string]any) {
		if dropVariant {
			delete(m, "libdemo_variant")
		}
		src := leaf(m, "demo_src", "source")
		src["relative_path"], src["sha256"] = rel, hex.EncodeToString(sum[:])
	})
	return hex.EncodeToString(sum[:])
}

// newDetector copies the detector with bytes after its ELF image that
// name the test and the time: a builder no other test used, so that every
// derivation built with it, and every one built on those (aggregates,
// indexes), is new to every store.
func newDetector(t *testing.T) string {
	t.Helper()
	det := filepath.Join(t.TempDir(), "cuda-redist-detector")
	data, err := os.ReadFile(detectorBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte(fmt.Sprintf("\n%s %d\n", t.Name(), time.Now().UnixNano()))...)
	if err := os.WriteFile(det, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return det
}
