package builderattrs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
)

// nix28Attrs is .attrs.json as Nix 2.8 wrote it for a derivation with
// exportReferencesGraph.tree = [ <path> ] (copied from a real build).
const nix28Attrs = `{
  "args": ["detect"],
  "exportReferencesGraph": {"tree": ["/nix/store/c6pizpviil626mld58gk164bv39nhcxd-tcurand"]},
  "name": "erg-test",
  "outputs": {"out": "/nix/store/9pmy8akfcga0wvh4dg15jlaw2xr3ciz8-erg-test"},
  "system": "x86_64-linux",
  "tree": [
    {
      "ca": "fixed:r:sha256:0r2dybkhzq92icbdrr8q7bc9b53pch8646q0snmqrn4hd2pz96v4",
      "closureSize": 101335128,
      "narHash": "sha256:0r2dybkhzq92icbdrr8q7bc9b53pch8646q0snmqrn4hd2pz96v4",
      "narSize": 101335128,
      "path": "/nix/store/c6pizpviil626mld58gk164bv39nhcxd-tcurand",
      "references": []
    }
  ]
}`

func writeAttrs(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".attrs.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNarHashOf(t *testing.T) {
	p := writeAttrs(t, nix28Attrs)
	got, err := builderattrs.NarHashOf(p, "/nix/store/c6pizpviil626mld58gk164bv39nhcxd-tcurand/")
	if err != nil || got != "sha256:0r2dybkhzq92icbdrr8q7bc9b53pch8646q0snmqrn4hd2pz96v4" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestNarHashOfMissing: a path the graph does not hold, attributes
// without a graph, and a graph of the wrong shape are errors naming the
// file and what is missing, never a hash of another path.
func TestNarHashOfMissing(t *testing.T) {
	for name, c := range map[string]struct{ attrs, path, want string }{
		"other path": {nix28Attrs, "/nix/store/00000000000000000000000000000000-other", "no NAR hash of /nix/store/00000000000000000000000000000000-other"},
		"no graph":   {`{"outputs": {"out": "/x"}}`, "/nix/store/c6pizpviil626mld58gk164bv39nhcxd-tcurand", "exportReferencesGraph"},
		"bad graph":  {`{"exportReferencesGraph": {"tree": ["/p"]}, "tree": "nope"}`, "/p", "tree:"},
		"not json":   {`{`, "/p", "structured attributes"},
		"bad hash":   {`{"exportReferencesGraph": {"tree": ["/p"]}, "tree": [{"path": "/p", "narHash": "sha256-bogus"}]}`, "/p", `tree: narHash of /p: "sha256-bogus"`},
	} {
		p := writeAttrs(t, c.attrs)
		_, err := builderattrs.NarHashOf(p, c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want one naming %s and %q", name, err, p, c.want)
		}
	}
}
