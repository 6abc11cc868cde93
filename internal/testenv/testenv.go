// Package testenv locates what tests read from outside their package: the
// repository root and the shared reference data beside the repository.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the repository's top directory.
func RepoRoot() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// SharedData is ../shared/data beside the repository (NVIDIA manifests,
// upstream's feature and index files); the test skips without it.
func SharedData(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no shared data beside the repository: %v", err)
	}
	return dir
}
