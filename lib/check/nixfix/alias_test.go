package nixfix

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// exampleAliases is examples/lineage/aliases.nix: an aliases file in the
// shape of Nixpkgs' CUDA one, of this project's writing, with no entry.
func exampleAliases(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "examples", "lineage", "aliases.nix"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// aliasesWithEntry is exampleAliases with the entry cudaOld -> cudaNew.
func aliasesWithEntry(t *testing.T) string {
	return strings.TrimSuffix(exampleAliases(t), "}\n") + "\n  cudaOld = {\n    path = \"cudaPackages.cudaNew\";\n    package = final.cudaNew;\n  };\n}\n"
}

// TestAddAlias: the entry of a rename is added after the set's last one,
// the file still parses (nix-instantiate --parse when Nix is there) and
// the alias evaluates to the new package with the warning; an entry there
// already is left alone.
func TestAddAlias(t *testing.T) {
	testAliases := aliasesWithEntry(t)
	out, added, err := AddAlias(testAliases, "cuda_cccl", "cccl")
	if err != nil || !added {
		t.Fatalf("AddAlias: added %v, %v", added, err)
	}
	want := "    package = final.cudaNew;\n  };\n\n  cuda_cccl = {\n    path = \"cudaPackages.cccl\";\n    package = final.cccl;\n  };\n}\n"
	if !strings.HasSuffix(out, want) || !strings.HasPrefix(out, strings.TrimSuffix(testAliases, "}\n")) {
		t.Errorf("AddAlias:\n%s", out)
	}
	evaluateAlias(t, out)

	again, added, err := AddAlias(out, "cuda_cccl", "cccl")
	if err != nil || added || again != out {
		t.Errorf("an entry there already: added %v, %v, changed %v", added, err, again != out)
	}
	if same, added, err := AddAlias(testAliases, "cudaOld", "other"); err != nil || added || same != testAliases {
		t.Errorf("the maintainer's entry for cudaOld: added %v, %v", added, err)
	}
}

// TestAddAliasRefuses: a file not of the shape AddAlias edits is refused
// and returned as it was.
func TestAddAliasRefuses(t *testing.T) {
	testAliases := aliasesWithEntry(t)
	for name, text := range map[string]string{
		"an overlay of its own": strings.Replace(testAliases, "builtins.mapAttrs mkRenamed {", "(builtins.mapAttrs mkRenamed {", 1) + ") // { }\n",
		"no mkRenamed":          strings.Replace(testAliases, "mkRenamed =", "mkAlias =", 1),
		"more arguments":        strings.Replace(testAliases, "{ lib }:", "{ lib, config }:", 1),
		"a set on one line":     "{ lib }: let mkRenamed = n: a: a.package; in final: _: builtins.mapAttrs mkRenamed { a = { path = \"x\"; package = final.x; }; }\n",
		"an inherit in the set": strings.Replace(testAliases, "  cudaOld =", "  inherit (final) x;\n  cudaOld =", 1),
		"not Nix":               "{ lib }: let mkRenamed = \"",
		"a package file":        "{ buildRedist }:\nbuildRedist { pname = \"x\"; }\n",
	} {
		out, added, err := AddAlias(text, "cuda_cccl", "cccl")
		if r := (*Refusal)(nil); !errors.As(err, &r) || added || out != text {
			t.Errorf("%s: want a refusal and the text as it was, got added %v, %v", name, added, err)
		}
	}
}

// TestAliasEntry: the entry as a message gives it, names quoted where Nix
// needs them.
func TestAliasEntry(t *testing.T) {
	if got := AliasEntry("cuda_cccl", "cccl"); got != `cuda_cccl = { path = "cudaPackages.cccl"; package = final.cccl; };` {
		t.Error(got)
	}
	if got := AliasEntry("if", "a.b"); got != `"if" = { path = "cudaPackages.a.b"; package = final."a.b"; };` {
		t.Error(got)
	}
}

// evaluateAlias: Nix parses the aliases file text (when Nix is there) and
// its cuda_cccl is the cccl package, with the deprecation warning.
func evaluateAlias(t *testing.T, text string) {
	t.Helper()
	if _, err := exec.LookPath("nix-instantiate"); err != nil {
		return
	}
	dir := t.TempDir()
	out := text
	p := filepath.Join(dir, "aliases.nix")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Parses(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	// The alias is the new package, with the deprecation warning.
	expr := `let lib = { warn = msg: v: builtins.trace "warning: ${msg}" v; }; final = { cccl = "the cccl package"; cudaNew = 1; }; in (import ` + p + ` { inherit lib; } final { }).cuda_cccl`
	cmd := exec.Command("nix-instantiate", "--eval", "--expr", expr)
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), `"the cccl package"`) || !strings.Contains(string(got), "cudaPackages.cuda_cccl is deprecated, use cudaPackages.cccl instead") {
		t.Errorf("evaluating the alias: %v\n%s", err, got)
	}
}
