package fixrun

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// TestRunpathsFromHints: check-nixpkgs' unreachableRuntimeLoad hints
// become an appendRunpaths in --fix (one directory per provider, the
// sonames of every archive gathered), and a file whose appendRunpaths
// is no list gets a warning and keeps its text.
func TestRunpathsFromHints(t *testing.T) {
	hint := func(file, platform, soname string) nixpkgscheck.Finding {
		return nixpkgscheck.Finding{Level: nixpkgscheck.LevelHint, Kind: nixpkgscheck.KindUnreachableLoad, File: file, Platform: platform,
			RuntimeLoad: &nixpkgscheck.RuntimeLoad{Provider: "cuda_nvrtc", Sonames: []string{soname}, Since: "13.0.0.19"}}
	}
	byFile := runpathsByFile([]nixpkgscheck.Finding{hint("a.nix", "linux-x86_64", "libnvrtc.so.13"), hint("a.nix", "linux-sbsa", "libnvrtc.so.13"),
		hint("a.nix", "linux-sbsa", "libnvrtc-builtins.so.13.0"), hint("b.nix", "linux-x86_64", "libnvrtc.so.13"), {Kind: "unusedDependency", File: "a.nix"}})
	if len(byFile["a.nix"]) != 1 || strings.Join(byFile["a.nix"][0].Sonames, " ") != "libnvrtc.so.13 libnvrtc-builtins.so.13.0" {
		t.Fatalf("runpaths %+v, want one directory for both sonames", byFile)
	}
	plain := "{ buildRedist }:\nbuildRedist (finalAttrs: {\n  pname = \"a\";\n  outputs = [ \"out\" ];\n})\n"
	withRunpaths := "{ buildRedist }:\nbuildRedist (finalAttrs: {\n  pname = \"b\";\n  outputs = [ \"out\" ];\n  appendRunpaths = extraRunpaths;\n})\n"
	fr := &Fix{Old: map[string]string{"a.nix": plain, "b.nix": withRunpaths}, New: map[string]string{}, runpaths: byFile}
	fr.fixFiles(map[string][]nixpkgscheck.FixCase{"a.nix": nil, "b.nix": nil}, nil)
	if !strings.Contains(fr.New["a.nix"], `lib.optionals (lib.versionAtLeast finalAttrs.version "13.0.0.19") [`) ||
		!strings.Contains(fr.New["a.nix"], `"${lib.getLib cuda_nvrtc}/lib"`) {
		t.Errorf("a.nix:\n%s", fr.New["a.nix"])
	}
	if _, ok := fr.New["b.nix"]; ok || len(fr.refusals) != 1 || fr.refusals[0].Kind != KindRunpathsNotAdded || fr.refusals[0].Level != nixpkgscheck.LevelWarning {
		t.Errorf("b.nix: new %q, refusals %+v; want a warning and no change", fr.New["b.nix"], fr.refusals)
	}
}
