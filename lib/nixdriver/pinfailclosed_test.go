package nixdriver

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestCheckPinsFailsClosed: when the check's own evaluation fails, the
// records are not taken unchecked. Before, CheckPins warned and went on;
// the recording of new hashes then pinned every record again, so a tree
// another user planted at a recorded path was read as the archive's
// (found in a review).
func TestCheckPinsFailsClosed(t *testing.T) {
	testenv.RequireNix(t, "nix-instantiate")
	nixLib := t.TempDir()
	if err := os.WriteFile(filepath.Join(nixLib, "cli.nix"), []byte("{ argsFile }: throw \"the unpinned plan fails\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 64)
	hashes := &manifest.UnpackedHashes{Format: 2, Trees: map[string]manifest.UnpackedTree{
		sha: {NarHash: "sha256-" + strings.Repeat("A", 43) + "=", RelativePath: "a/b.tar.xz"},
	}}
	v := &Validated{Good: []Manifest{{RedistName: "r", Version: "1.0", Path: "/m/redistrib_1.0.json", UnpackedHashes: hashes}}}
	r := &Runner{NixLib: nixLib, Stderr: io.Discard, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	err := r.CheckPins(context.Background(), v, PinCheck{VerifyAll: true, Log: r.Log})
	if err == nil || !strings.Contains(err.Error(), "check the recorded unpacked trees") {
		t.Fatalf("CheckPins with a failing evaluation: %v, want the run stopped", err)
	}
}
