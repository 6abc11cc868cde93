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

// TestWitnessesParent: the directory holding the witnesses is checked by
// the Nix library cache's own rule for its parent (nixlib.CheckCacheParent),
// not a copy of it: for each directory (the user's, the user's link:
// ~/.cache often is one, a sticky /tmp-like one, ones others can write) the
// two take or refuse it alike, and the witnesses' refusal is the rule's
// UnsafeError. Before, a copy of the rule in nixdriver said it in its own
// words (and once refused a link, so every run lost its witnesses and
// unpacked every pinned archive again).
func TestWitnessesParent(t *testing.T) {
	type dirCase struct {
		name, dir string
		taken     bool
	}
	var cases []dirCase
	for _, c := range []struct {
		mode  os.FileMode
		taken bool
	}{{0o755, true}, {0o700, true}, {0o777 | os.ModeSticky, true}, {0o777, false}, {0o775, false}, {0o757, false}} {
		dir := t.TempDir()
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, dirCase{c.mode.String(), dir, c.taken})
	}
	link := filepath.Join(t.TempDir(), "cache")
	if err := os.Symlink(cases[0].dir, link); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, dirCase{"a link", link, true})
	for _, c := range cases {
		_, werr := OpenWitnesses(c.dir)
		_, lerr := nixlib.Extract(filepath.Join(c.dir, nixlib.CacheName), NixLibOutside())
		var unsafe *nixlib.UnsafeError
		libRefused := errors.As(lerr, &unsafe) && unsafe.Path == c.dir
		if (werr == nil) != c.taken || libRefused == c.taken {
			t.Errorf("%s: witnesses %v, library cache %v; want taken %v by both", c.name, werr, lerr, c.taken)
		}
		if werr != nil && (!errors.As(werr, &unsafe) || unsafe.Path != c.dir || !strings.Contains(werr.Error(), "not sticky")) {
			t.Errorf("%s: the witnesses' refusal is not the rule's: %v", c.name, werr)
		}
	}
}
