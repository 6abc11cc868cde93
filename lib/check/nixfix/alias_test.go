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

// aliasesWithEntry is exampleAliases with the entry cudaOld -> cudaNew in
// mkRenamed's set.
func aliasesWithEntry(t *testing.T) string {
	return strings.TrimSuffix(testenv.ExampleAliases(t), "}\n") + "\n  cudaOld = {\n    path = \"cudaPackages.cudaNew\";\n    package = final.cudaNew;\n  };\n}\n"
}

// ccclAlias is the alias AddAlias writes for cuda_cccl -> cccl in 13.3, at
// the indent of a merged set's entries.
const ccclAlias = `  cuda_cccl =
    # Before CUDA 13.3 NVIDIA named it cuda_cccl: the alias is silent there.
    if final.cudaAtLeast "13.3" then
      lib.warn "cudaPackages.cuda_cccl is cudaPackages.cccl since CUDA 13.3: use that name" final.cccl
    else
      final.cccl;
`

// TestAddAlias: the first alias of a rename puts mkRenamed's set in
// parentheses and merges it with a new set holding the alias; the next
// goes after the merged set's last entry; the file still parses and the
// alias is the new package, silent before the renaming release and with
// the warning from it on (nix-instantiate, when Nix is there); an entry
// there already, in either set, is left alone.
func TestAddAlias(t *testing.T) {
	testAliases := aliasesWithEntry(t)
	out, added, err := AddAlias(testAliases, "cuda_cccl", "cccl", "13.3")
	if err != nil || !added {
		t.Fatalf("AddAlias: added %v, %v", added, err)
	}
	head := strings.Replace(strings.TrimSuffix(testAliases, "}\n"), "builtins.mapAttrs mkRenamed {", "(builtins.mapAttrs mkRenamed {", 1)
	if want := head + "})\n// {\n" + ccclAlias + "}\n"; out != want {
		t.Errorf("AddAlias:\n%s\nwant\n%s", out, want)
	}
	evaluateAlias(t, out)

	second, added, err := AddAlias(out, "cudaOther", "other", "12.8")
	if err != nil || !added || !strings.Contains(second, ccclAlias+"\n  cudaOther =\n    # Before CUDA 12.8 NVIDIA named it cudaOther: the alias is silent there.\n") {
		t.Errorf("a second alias: added %v, %v\n%s", added, err, second)
	}
	evaluateAlias(t, second)

	for _, name := range []string{"cuda_cccl", "cudaOld"} {
		if same, added, err := AddAlias(out, name, "other", "13.0"); err != nil || added || same != out {
			t.Errorf("the entry for %s there already: added %v, %v", name, added, err)
		}
	}
}

// TestAddAliasOneLineSet: an empty merged set written `// { }` gets the
// alias on lines of its own.
func TestAddAliasOneLineSet(t *testing.T) {
	text := strings.Replace(testenv.ExampleAliases(t), "builtins.mapAttrs mkRenamed {", "(builtins.mapAttrs mkRenamed {", 1) + ") // { }\n"
	text = strings.Replace(text, "}\n) // { }\n", "}) // { }\n", 1)
	out, added, err := AddAlias(text, "cuda_cccl", "cccl", "13.3")
	if err != nil || !added || !strings.HasSuffix(out, "}) // {\n"+ccclAlias+"}\n") {
		t.Fatalf("added %v, %v:\n%s", added, err, out)
	}
	evaluateAlias(t, out)
}

// TestAddAliasRefuses: a file not of the shapes AddAlias edits is refused
// and returned as it was.
func TestAddAliasRefuses(t *testing.T) {
	testAliases := aliasesWithEntry(t)
	parenthesised := strings.Replace(testAliases, "builtins.mapAttrs mkRenamed {", "(builtins.mapAttrs mkRenamed {", 1)
	for name, text := range map[string]string{
		"merged with no set":            parenthesised + ") // final.extra\n",
		"merged with a set and more":    parenthesised + ") // { } // final.extra\n",
		"an inherit in the merged set":  parenthesised + ") // {\n  inherit (final) x;\n}\n",
		"a merged set on one line":      parenthesised + ") // { a = final.b; }\n",
		"no mkRenamed":                  strings.Replace(testAliases, "mkRenamed =", "mkAlias =", 1),
		"more arguments":                strings.Replace(testAliases, "{ lib }:", "{ lib, config }:", 1),
		"an overlay of one argument":    strings.Replace(testAliases, "final: _:", "final:", 1),
		"an inherit in mkRenamed's set": strings.Replace(testAliases, "  cudaOld =", "  inherit (final) x;\n  cudaOld =", 1),
		"not Nix":                       "{ lib }: let mkRenamed = \"",
		"a package file":                "{ buildRedist }:\nbuildRedist { pname = \"x\"; }\n",
	} {
		out, added, err := AddAlias(text, "cuda_cccl", "cccl", "13.3")
		if r := (*Refusal)(nil); !errors.As(err, &r) || added || out != text {
			t.Errorf("%s: want a refusal and the text as it was, got added %v, %v", name, added, err)
		}
	}
}

// TestAliasEntry: the entry as a message gives it, on one line, names
// quoted where Nix needs them.
func TestAliasEntry(t *testing.T) {
	if got := AliasEntry("cuda_cccl", "cccl", "13.3"); got != `cuda_cccl = if final.cudaAtLeast "13.3" then lib.warn "cudaPackages.cuda_cccl is cudaPackages.cccl since CUDA 13.3: use that name" final.cccl else final.cccl;` {
		t.Error(got)
	}
	if got := AliasEntry("if", "a.b", "12.0"); !strings.HasPrefix(got, `"if" = if final.cudaAtLeast "12.0" then`) || !strings.HasSuffix(got, ` final."a.b" else final."a.b";`) {
		t.Error(got)
	}
}

// evaluateAlias: Nix parses the aliases file text (when Nix is there)
// and its cuda_cccl is the cccl package, silent for CUDA 13.2 and with
// the warning for 13.3.
func evaluateAlias(t *testing.T, text string) {
	t.Helper()
	if _, err := exec.LookPath("nix-instantiate"); err != nil {
		return
	}
	p := filepath.Join(t.TempDir(), "aliases.nix")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Parses(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for cuda, warns := range map[string]bool{"13.2": false, "13.3": true, "13.4": true} {
		expr := `let lib = { warn = msg: v: builtins.trace "warning: ${msg}" v; }; ` +
			`final = { cccl = "the cccl package"; cudaNew = 1; other = 2; cudaAtLeast = v: builtins.compareVersions "` + cuda + `" v >= 0; }; ` +
			`in (import ` + p + ` { inherit lib; } final { }).cuda_cccl`
		got, err := exec.Command("nix-instantiate", "--eval", "--expr", expr).CombinedOutput()
		warned := strings.Contains(string(got), "warning: cudaPackages.cuda_cccl is cudaPackages.cccl since CUDA 13.3: use that name")
		if err != nil || !strings.Contains(string(got), `"the cccl package"`) || warned != warns {
			t.Errorf("evaluating the alias for CUDA %s (want a warning: %v): %v\n%s", cuda, warns, err, got)
		}
	}
}
