package nixdriver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
)

const (
	witnessSHA = "516f2d8f105ec0d069cda395f255c2db2eac489978637635949a8a2322607fbc"
	witnessNar = "sha256-UKcCazttmufYH38LXwQce+QeQTgeqQrBcgnPjouZAas="
)

// TestWitnesses: a witness added is found for that pair only; one in a
// directory others can write is refused, naming it and the fix.
func TestWitnesses(t *testing.T) {
	cache := t.TempDir()
	os.Chmod(cache, 0o755)
	w, err := OpenWitnesses(cache)
	if err != nil {
		t.Fatal(err)
	}
	if w.Has(witnessSHA, witnessNar) {
		t.Fatal("a witness before any was added")
	}
	w.Add(witnessSHA, witnessNar)
	if !w.Has(witnessSHA, witnessNar) || w.Has(witnessSHA, "sha256-"+strings.Repeat("A", 43)+"=") {
		t.Error("the witness is not for exactly its pair")
	}
	if err := os.Chmod(filepath.Join(cache, WitnessDirName), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWitnesses(cache); err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("a directory others can write: %v", err)
	}
	var none *Witnesses
	if none.Has(witnessSHA, witnessNar) {
		t.Error("no witnesses vouch for something")
	}
}

// TestDecodePathInfos: both shapes of nix path-info --json (a list up to
// Nix 2.18, an object by path since), hashes in SRI form.
func TestDecodePathInfos(t *testing.T) {
	list := `[{"path":"/nix/store/a-x","narHash":"sha256:1bj7fhaglz5ax2ifflnkkq3n5w0i4d4lzdcm4aic4nqmlb4y8ffw","deriver":"/nix/store/b-x.drv","ultimate":true}]`
	obj := `{"/nix/store/a-x":{"narHash":"` + witnessNar + `","deriver":"/nix/store/b-x.drv","ultimate":true}}`
	for _, in := range []string{list, obj} {
		got, err := decodePathInfos([]byte(in))
		if err != nil || len(got) != 1 || got[0].Path != "/nix/store/a-x" || !got[0].Ultimate || got[0].Deriver != "/nix/store/b-x.drv" || !strings.HasPrefix(got[0].NarHash, "sha256-") {
			t.Errorf("%s: %+v, %v", in, got, err)
		}
	}
}

// TestWitnessesParent: the directory holding the witnesses follows the
// library cache's rule: a symbolic link of the user's (~/.cache often is
// one) and a sticky /tmp-like directory are taken; a directory others can
// write and that is not sticky is refused. Before, a link was refused, so
// every run lost its witnesses and unpacked every pinned archive again.
func TestWitnessesParent(t *testing.T) {
	real := t.TempDir()
	os.Chmod(real, 0o755)
	link := filepath.Join(t.TempDir(), "cache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWitnesses(link); err != nil {
		t.Errorf("a cache directory that is the user's link: %v", err)
	}
	sticky := t.TempDir()
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if _, err := OpenWitnesses(sticky); err != nil {
		t.Errorf("a sticky directory all can write: %v", err)
	}
	open := t.TempDir()
	os.Chmod(open, 0o777)
	if _, err := OpenWitnesses(open); err == nil || !strings.Contains(err.Error(), "not sticky") {
		t.Errorf("a directory all can write, not sticky: %v", err)
	}
}

// TestWitnessesParentIsTheCacheRule: the witnesses' parent directory is
// checked by the Nix library cache's own rule (nixlib.CheckCacheParent),
// not a copy of it: for each directory the two refuse or take it alike,
// and the witnesses' refusal is the rule's ParentError (before, a copy of
// the rule in nixdriver said it in its own words).
func TestWitnessesParentIsTheCacheRule(t *testing.T) {
	modes := []os.FileMode{0o755, 0o700, 0o777 | os.ModeSticky, 0o777, 0o775, 0o757}
	for _, mode := range modes {
		dir := t.TempDir()
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		_, werr := OpenWitnesses(dir)
		_, lerr := nixlib.Extract(filepath.Join(dir, nixlib.CacheName), NixLibOutside())
		var unsafe *nixlib.UnsafeError
		libRefused := errors.As(lerr, &unsafe) && unsafe.Path == dir
		if (werr != nil) != libRefused {
			t.Errorf("mode %v: witnesses %v, library cache %v", mode, werr, lerr)
		}
		var perr *nixlib.ParentError
		if werr != nil && (!errors.As(werr, &perr) || perr.Path != dir) {
			t.Errorf("mode %v: the witnesses' refusal is not the rule's: %v", mode, werr)
		}
	}
}
