package fixrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestLineageAlias: for the cuda_cccl -> cccl rename of CUDA 13.3.0, --fix
// adds cuda_cccl's entry to an aliases.nix beside the packages directory
// in Nixpkgs' shape (the diff shows it, Write writes it); it leaves alone
// one that has the entry, refuses with a warning one of another shape or
// a link (writing neither), and without an aliases.nix only says, as a
// hint, what to add where.
func TestLineageAlias(t *testing.T) {
	// examples/lineage/aliases.nix: Nixpkgs' shape, no entry.
	shapedAliases, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "examples", "lineage", "aliases.nix"))
	if err != nil {
		t.Fatal(err)
	}
	entry := `cuda_cccl = { path = "cudaPackages.cccl"; package = final.cccl; };`
	// The maintainer's entry, whatever it says, stays.
	withEntry := strings.TrimSuffix(string(shapedAliases), "}\n") + "\n  cuda_cccl = {\n    path = \"cudaPackages.old\";\n    package = final.old;\n  };\n}\n"
	otherShape := strings.Replace(string(shapedAliases), "builtins.mapAttrs mkRenamed {", "(builtins.mapAttrs mkRenamed {", 1) + ") // { }\n"
	for _, tc := range []struct {
		name    string
		setup   func(root string) // makes root/aliases.nix, or not
		want    string            // the file after Write ("" when it must not exist)
		level   string            // the finding's level, "" for none
		changed bool
	}{
		{"added", writeAliases(string(shapedAliases)), strings.TrimSuffix(string(shapedAliases), "}\n") + "\n  cuda_cccl = {\n    path = \"cudaPackages.cccl\";\n    package = final.cccl;\n  };\n}\n", "", true},
		{"there already", writeAliases(withEntry), withEntry, "", false},
		{"another shape", writeAliases(otherShape), otherShape, nixpkgscheck.LevelWarning, false},
		{"a link", func(root string) {
			outside := filepath.Join(t.TempDir(), "aliases.nix")
			if err := os.WriteFile(outside, shapedAliases, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(root, "aliases.nix")); err != nil {
				t.Fatal(err)
			}
		}, string(shapedAliases), nixpkgscheck.LevelWarning, false},
		{"none", func(string) {}, "", nixpkgscheck.LevelHint, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			pkgs := filepath.Join(root, "packages")
			texts := map[string]string{"cuda_cccl.nix": "{ buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cuda_cccl\";\n  outputs = [ \"out\" ];\n}\n"}
			if err := os.Mkdir(pkgs, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(pkgs, "cuda_cccl.nix"), []byte(texts["cuda_cccl.nix"]), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.setup(root)
			opts := Aliases{Root: root, File: "aliases.nix"}
			fr, findings := lineageFix(t, texts, newAliasEdit(pkgs, opts))
			fr.PackagesDir, fr.opts.Aliases = pkgs, opts
			if err := fr.lineageFixes(findings); err != nil {
				t.Fatal(err)
			}
			checkAliasNotWritten(t, fr.refusals, tc.level, "add "+entry+" to the attribute set builtins.mapAttrs mkRenamed maps in "+filepath.Join(root, "aliases.nix"))
			var diff bytes.Buffer
			if err := fr.WriteDiff(&diff); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(diff.String(), "--- a/../aliases.nix\n+++ b/../aliases.nix\n"); got != tc.changed {
				t.Errorf("the diff shows aliases.nix: %v, want %v\n%s", got, tc.changed, diff.String())
			}
			if failed := fr.Write(func(string) {}); len(failed) != 0 {
				t.Fatalf("Write: %+v", failed)
			}
			checkAliasesFile(t, filepath.Join(root, "aliases.nix"), tc.want, tc.name == "a link")
		})
	}
}

// checkAliasNotWritten: the refusals hold one aliasNotWritten finding of level
// (none when level is ""), on ../aliases.nix, whose message has advice.
func checkAliasNotWritten(t *testing.T, refusals []nixpkgscheck.Finding, level, advice string) {
	t.Helper()
	var notWritten []nixpkgscheck.Finding
	for _, f := range refusals {
		if f.Kind == KindAliasNotWritten {
			notWritten = append(notWritten, f)
		}
	}
	switch {
	case level == "" && len(notWritten) != 0:
		t.Errorf("findings %+v", notWritten)
	case level != "" && (len(notWritten) != 1 || notWritten[0].Level != level || notWritten[0].File != "../aliases.nix" || !strings.Contains(notWritten[0].Message, advice)):
		t.Errorf("want one %s saying %q, got %+v", level, advice, notWritten)
	}
}

// checkAliasesFile: the aliases file at path holds want ("": there is
// none); link: it is still a link.
func checkAliasesFile(t *testing.T, path, want string, link bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if want == "" && err == nil || want != "" && string(data) != want {
		t.Errorf("aliases.nix after Write (%v):\n%s", err, data)
	}
	if st, err := os.Lstat(path); link && (err != nil || st.Mode()&os.ModeSymlink == 0) {
		t.Errorf("the link was replaced")
	}
}

// writeAliases writes text as root/aliases.nix.
func writeAliases(text string) func(root string) {
	return func(root string) {
		_ = os.WriteFile(filepath.Join(root, "aliases.nix"), []byte(text), 0o644) // checked by the test's reading it back
	}
}
