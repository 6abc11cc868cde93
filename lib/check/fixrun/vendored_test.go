package fixrun

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// TestRemoveVendoredRefusalIsAWarning: --remove-vendored on a file with a
// postPatch already (Nixpkgs' nsight_systems.nix has one) cannot add its
// removal; that is a warning naming the file, the file keeps whatever
// else the fix makes of it, and a file without one gets its removal.
// The postPatch may be spelt as Nix allows, quoted or as ${"…"} (a
// second one beside it would make the file fail to evaluate, an ERROR).
func TestRemoveVendoredRefusalIsAWarning(t *testing.T) {
	for _, name := range []string{`postPatch`, `"postPatch"`, `${"postPatch"}`, `${ "postPatch" }`} {
		t.Run(name, func(t *testing.T) { removeVendoredRefused(t, name) })
	}
}

func removeVendoredRefused(t *testing.T, name string) {
	withPatch := "{ buildRedist }:\nbuildRedist {\n  pname = \"a\";\n  outputs = [ \"out\" ];\n  " + name + " = \"true\";\n}\n"
	plain := "{ buildRedist }:\nbuildRedist {\n  pname = \"b\";\n  outputs = [ \"out\" ];\n}\n"
	fr := &Fix{Old: map[string]string{"a.nix": withPatch, "b.nix": plain}, New: map[string]string{},
		vendored: map[string][]string{"a.nix": {"host-linux-x64/libQt6Core.so.6"}, "b.nix": {"host-linux-x64/libQt6Core.so.6"}}}
	fr.fixFiles(map[string][]nixpkgscheck.FixCase{"a.nix": nil, "b.nix": nil}, nil)
	if len(fr.refusals) != 1 {
		t.Fatalf("refusals %+v, want one for a.nix", fr.refusals)
	}
	if r := fr.refusals[0]; r.Level != nixpkgscheck.LevelWarning || r.Kind != KindVendoredNotRemoved || r.File != "a.nix" ||
		!strings.Contains(r.Message, "it has a postPatch") || strings.Contains(r.Message, "left alone") {
		t.Errorf("refusal %+v, want a warning that a.nix has a postPatch", r)
	}
	if _, ok := fr.New["a.nix"]; ok {
		t.Errorf("a.nix changed:\n%s", fr.New["a.nix"])
	}
	if !strings.Contains(fr.New["b.nix"], "rmPatterns=(") {
		t.Errorf("b.nix has no removal:\n%s", fr.New["b.nix"])
	}
}
