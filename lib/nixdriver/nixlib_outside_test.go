package nixdriver

import (
	"slices"
	"sort"
	"testing"

	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
)

// TestNixLibOutsideIsTheNixSidesList: the files the driver gives the
// embedded Nix library are exactly those nix/library-files.txt lists.
func TestNixLibOutsideIsTheNixSidesList(t *testing.T) {
	listed, err := nixlib.Outside()
	if err != nil {
		t.Fatal(err)
	}
	var given []string
	for n := range NixLibOutside() {
		given = append(given, n)
	}
	sort.Strings(listed)
	sort.Strings(given)
	if !slices.Equal(listed, given) {
		t.Errorf("NixLibOutside gives %v; nix/library-files.txt lists %v", given, listed)
	}
}
