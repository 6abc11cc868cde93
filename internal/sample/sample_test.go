package sample_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/internal/sample"
)

// TestCommittedSampleIsCurrent regenerates the sample and compares it with
// the committed copy byte for byte: the sample must come from the code.
func TestCommittedSampleIsCurrent(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	committed := filepath.Join(filepath.Dir(here), "..", "..", "sample")
	fresh := t.TempDir()
	files, err := sample.Write(fresh)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range files {
		want, err := os.ReadFile(filepath.Join(fresh, rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil {
			t.Errorf("%s: %v (run: go run ./tests/gensample)", rel, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sample/%s differs from what the generator writes (run: go run ./tests/gensample)", rel)
		}
	}
}
