package fixrun

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// ccclFile is a package file of cuda_cccl before the rename.
const ccclFile = "{ buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cuda_cccl\";\n  outputs = [ \"out\" ];\n}\n"

// switched is ccclFile with the pname switched to cccl from 13.3.
const switched = "{ cudaAtLeast, buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = if cudaAtLeast \"13.3\" then \"cccl\" else \"cuda_cccl\";\n  outputs = [ \"out\" ];\n}\n"

// renameCase is one layout a rename meets: the aliases file (and
// whatever else setup makes beside the packages directory), and what the
// fix must make of it.
type renameCase struct {
	name  string
	setup func(t *testing.T, root string)
	// moved: cuda_cccl.nix moves to cccl.nix (else the switch is made in
	// cuda_cccl.nix).
	moved bool
	// aliases is the aliases file after Write ("" when there is none).
	aliases string
	// level is the renameNotMoved finding's level ("" for none).
	level string
}

// TestRenameMoves: for the cuda_cccl -> cccl rename of CUDA 13.3.0, --fix
// moves cuda_cccl.nix to cccl.nix with the pname switch and makes
// cuda_cccl an alias in the aliases.nix beside the packages directory,
// as Nixpkgs did (the diff shows a git rename and the alias; Write
// writes both and removes the old file). Where it cannot move (an
// aliases file of another shape or behind a link, none at all) the
// switch is written in place, with a finding saying why and what to do;
// an alias the maintainer wrote already is kept.
func TestRenameMoves(t *testing.T) {
	shaped := testenv.ExampleAliases(t)
	withAlias, _, err := nixfix.AddAlias(shaped, "cuda_cccl", "cccl", "13.3")
	if err != nil {
		t.Fatal(err)
	}
	maintainers := strings.TrimSuffix(shaped, "}\n") + "\n  cuda_cccl = {\n    path = \"cudaPackages.cccl\";\n    package = final.cccl;\n  };\n}\n"
	otherShape := strings.Replace(shaped, "final: _:", "final:", 1)
	for _, tc := range []renameCase{
		{"moved", writeAliases(shaped), true, withAlias, ""},
		{"the maintainer's alias", writeAliases(maintainers), true, maintainers, ""},
		{"aliases of another shape", writeAliases(otherShape), false, otherShape, nixpkgscheck.LevelWarning},
		{"aliases behind a link", func(t *testing.T, root string) {
			outside := filepath.Join(t.TempDir(), "aliases.nix")
			writeFile(t, outside, shaped)
			if err := os.Symlink(outside, filepath.Join(root, "aliases.nix")); err != nil {
				t.Fatal(err)
			}
		}, false, shaped, nixpkgscheck.LevelWarning},
		{"no aliases file", func(*testing.T, string) {}, false, "", nixpkgscheck.LevelHint},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRename(t, tc) })
	}
}

func checkRename(t *testing.T, tc renameCase) {
	root := t.TempDir()
	pkgs := filepath.Join(root, "packages")
	writeFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	tc.setup(t, root)
	fr := renameFix(t, root)
	checkNotMoved(t, fr.refusals, tc.level)
	var diff bytes.Buffer
	if err := fr.WriteDiff(&diff); err != nil {
		t.Fatal(err)
	}
	// Named from root when the diff holds aliases.nix too, else from
	// the packages directory.
	dir := ""
	if tc.name == "moved" {
		dir = "packages/"
	}
	rename := strings.ReplaceAll("diff --git a/D/cuda_cccl.nix b/D/cccl.nix\nrename from D/cuda_cccl.nix\nrename to D/cccl.nix\n--- a/D/cuda_cccl.nix\n+++ b/D/cccl.nix\n", "D/", dir)
	if got := strings.Contains(diff.String(), rename); got != tc.moved {
		t.Errorf("the diff shows the rename: %v, want %v\n%s", got, tc.moved, diff.String())
	}
	if failed := fr.Write(func(string) {}); len(failed) != 0 {
		t.Fatalf("Write: %+v", failed)
	}
	wantOld, wantNew := switched, ""
	if tc.moved {
		wantOld, wantNew = "", switched
	}
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), wantOld)
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), wantNew)
	checkFile(t, filepath.Join(root, "aliases.nix"), tc.aliases)
}

// TestRenameKeepsOldFileWhenAliasFails: when the aliases file changes
// between the run's reading it and the write, the alias is not written,
// and the old file is kept beside the new one (an error says so): the
// package set keeps the old name.
func TestRenameKeepsOldFileWhenAliasFails(t *testing.T) {
	root, pkgs, shaped := ccclTree(t)
	fr := renameFix(t, root)
	writeFile(t, filepath.Join(root, "aliases.nix"), shaped+"# a maintainer's edit\n")
	failed := fr.Write(func(string) {})
	kinds := map[string]bool{}
	for _, f := range failed {
		kinds[f.Kind] = true
	}
	if !kinds[KindChanged] || !kinds[KindNotMoved] || len(failed) != 2 {
		t.Errorf("Write: %+v", failed)
	}
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), switched)
}

// TestRenameWritesNoAliasWithoutNewFile: when the new file cannot be
// written (here a cccl.nix appears between the run's reading and the
// write; a read-only packages directory does the same), the alias is not
// written either: cuda_cccl = final.cccl with no cccl in the package set
// would break the cuda_cccl its old file still gives. On main the alias
// was written all the same.
func TestRenameWritesNoAliasWithoutNewFile(t *testing.T) {
	root, pkgs, shaped := ccclTree(t)
	fr := renameFix(t, root)
	const appeared = "# a maintainer's cccl.nix\n{ }: { }\n"
	writeFile(t, filepath.Join(pkgs, "cccl.nix"), appeared)
	failed := fr.Write(func(string) {})
	byFile := map[string]string{}
	for _, f := range failed {
		byFile[f.File] = f.Kind
	}
	if byFile["cccl.nix"] != KindChanged || byFile["../aliases.nix"] != KindNotMoved || byFile["cuda_cccl.nix"] != KindNotMoved || len(failed) != 3 {
		t.Errorf("Write: %+v", failed)
	}
	checkFile(t, filepath.Join(root, "aliases.nix"), shaped)
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), appeared)
}

// ccclTree is a directory root holding packages/cuda_cccl.nix (pkgs is
// root/packages) and root/aliases.nix, the example's (shaped).
func ccclTree(t *testing.T) (root, pkgs, shaped string) {
	t.Helper()
	root = t.TempDir()
	pkgs = filepath.Join(root, "packages")
	writeFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	shaped = testenv.ExampleAliases(t)
	writeAliases(shaped)(t, root)
	return root, pkgs, shaped
}

// renameFix is the lineage fix of root/packages/cuda_cccl.nix against
// CUDA 13.2.2 and 13.3.0, with root/aliases.nix as the aliases file.
func renameFix(t *testing.T, root string) *Fix {
	t.Helper()
	pkgs := filepath.Join(root, "packages")
	opts := Aliases{Root: root, File: "aliases.nix"}
	fr, findings := lineageFix(t, map[string]string{"cuda_cccl.nix": ccclFile}, newAliasEdit(pkgs, opts))
	fr.PackagesDir, fr.opts.Aliases = pkgs, opts
	if err := fr.lineageFixes(findings); err != nil {
		t.Fatal(err)
	}
	return fr
}

// checkNotMoved: the refusals hold one renameNotMoved finding of level
// (none when level is ""), on cuda_cccl.nix.
func checkNotMoved(t *testing.T, refusals []nixpkgscheck.Finding, level string) {
	t.Helper()
	var notMoved []nixpkgscheck.Finding
	for _, f := range refusals {
		if f.Kind == KindNotMoved {
			notMoved = append(notMoved, f)
		}
	}
	switch {
	case level == "" && len(notMoved) != 0:
		t.Errorf("findings %+v", notMoved)
	case level != "" && (len(notMoved) != 1 || notMoved[0].Level != level || notMoved[0].File != "cuda_cccl.nix" ||
		!strings.Contains(notMoved[0].Message, "the pname switch is written in cuda_cccl.nix, not moved to cccl.nix")):
		t.Errorf("want one %s, got %+v", level, notMoved)
	}
}

// checkFile: path holds want ("": there is no file).
func checkFile(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if want == "" && err == nil || want != "" && string(data) != want {
		t.Errorf("%s after Write (%v):\n%s\nwant\n%s", filepath.Base(path), err, data, want)
	}
}

// writeAliases writes text as root/aliases.nix.
func writeAliases(text string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) { writeFile(t, filepath.Join(root, "aliases.nix"), text) }
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRenamedPackageGetsNoNewFile: with the archives, cccl of 13.3.0 is
// a package no file had when the check ran; once the rename's fix gives
// it a file (moved, or the switch in place), no second cccl.nix is
// written for it, nor refused as a clash.
func TestRenamedPackageGetsNoNewFile(t *testing.T) {
	for name, setup := range map[string]func(*testing.T, string){
		"moved":    writeAliases(testenv.ExampleAliases(t)),
		"in place": func(*testing.T, string) {},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "packages", "cuda_cccl.nix"), ccclFile)
			setup(t, root)
			fr := renameFix(t, root)
			before := fr.New["cccl.nix"]
			fr.newFiles([]nixpkgscheck.Unpackaged{{Redist: "cuda", Package: "cccl"}})
			if fr.New["cccl.nix"] != before {
				t.Errorf("cccl.nix rewritten as a new file:\n%s", fr.New["cccl.nix"])
			}
			for _, f := range fr.refusals {
				if f.Kind == "notFixed" {
					t.Errorf("refused: %+v", f)
				}
			}
		})
	}
}

// TestRenameOnce: the same rename found twice (two findings of the file)
// moves the file once, with no finding.
func TestRenameOnce(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "packages", "cuda_cccl.nix"), ccclFile)
	writeAliases(testenv.ExampleAliases(t))(t, root)
	opts := Aliases{Root: root, File: "aliases.nix"}
	fr, findings := lineageFix(t, map[string]string{"cuda_cccl.nix": ccclFile}, newAliasEdit(filepath.Join(root, "packages"), opts))
	fr.PackagesDir, fr.opts.Aliases = filepath.Join(root, "packages"), opts
	if err := fr.lineageFixes(append(findings, findings...)); err != nil {
		t.Fatal(err)
	}
	if fr.New["cccl.nix"] != switched || fr.Moves()["cuda_cccl.nix"] != "cccl.nix" || len(fr.refusals) != 0 {
		t.Errorf("moves %v, refusals %+v, cccl.nix:\n%s", fr.Moves(), fr.refusals, fr.New["cccl.nix"])
	}
}

// TestNotMovedText: the renameNotMoved finding of a switch written in
// place reads as the rename hint it answers, package, release, message
// and file; on main it read "WARN  cuda_cccl   13.3.0: declared []
// needed []: ..." without the file, as a finding of outputs would.
func TestNotMovedText(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "packages", "cuda_cccl.nix"), ccclFile)
	fr := renameFix(t, root) // no aliases file
	for _, f := range fr.refusals {
		if f.Kind != KindNotMoved {
			continue
		}
		text := f.Text()
		if !strings.HasPrefix(text, "HINT  cuda_cccl 13.3.0: the pname switch is written in cuda_cccl.nix") ||
			!strings.HasSuffix(text, " [cuda_cccl.nix]") || strings.Contains(text, "declared") {
			t.Errorf("text %q", text)
		}
		return
	}
	t.Fatalf("no %s finding: %+v", KindNotMoved, fr.refusals)
}

// TestRenameDiffApplies: the diff of a rename with its alias, applied by
// git apply and by patch -p1 in the directory holding both the packages
// directory and the aliases file, gives the tree Write gives. On main it
// named the aliases file "../aliases.nix", which git apply refuses
// ("invalid path") and patch -p1 does not find, so neither applied it.
func TestRenameDiffApplies(t *testing.T) {
	root, pkgs, _ := ccclTree(t)
	writeFile(t, filepath.Join(pkgs, "cuda_cudart.nix"), "{ }: { }\n")
	pristine := t.TempDir()
	if err := copyTree(root, pristine); err != nil {
		t.Fatal(err)
	}
	fr := renameFix(t, root)
	var diff bytes.Buffer
	if err := fr.WriteDiff(&diff); err != nil {
		t.Fatal(err)
	}
	if failed := fr.Write(func(string) {}); len(failed) != 0 {
		t.Fatalf("Write: %+v", failed)
	}
	checkApplies(t, diff.Bytes(), pristine, treeOf(t, root))
}

// checkApplies: git apply and patch -p1 of diff in a copy of pristine
// give the tree want.
func checkApplies(t *testing.T, diff []byte, pristine string, want map[string]string) {
	t.Helper()
	for _, tool := range [][]string{{"git", "apply", "-"}, {"patch", "-p1", "--batch", "--silent"}} {
		t.Run(tool[0], func(t *testing.T) {
			if _, err := exec.LookPath(tool[0]); err != nil {
				testenv.Unavailable(t, "no "+tool[0]+" on PATH (apt-get install "+tool[0]+")")
			}
			if tool[0] == "patch" {
				// Busybox's patch (the flake check's sandbox has it)
				// reads no git rename header and takes no --batch.
				if out, _ := exec.Command("patch", "--version").Output(); !bytes.Contains(out, []byte("GNU patch")) {
					testenv.Unavailable(t, "patch on PATH is not GNU patch (apt-get install patch)")
				}
			}
			dir := t.TempDir()
			if err := copyTree(pristine, dir); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(tool[0], tool[1:]...)
			cmd.Dir, cmd.Stdin = dir, bytes.NewReader(diff)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s\n%s", tool, err, out, diff)
			}
			if got := treeOf(t, dir); !maps.Equal(got, want) {
				t.Errorf("%v gives %v, Write gives %v\n%s", tool, got, want, diff)
			}
		})
	}
}

// treeOf is every regular file under dir, by its path relative to dir.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRenameReadOnlyPackagesDir: in a packages directory --fix cannot
// write in, the rename writes nothing (no cccl.nix, no alias, the old
// file kept), and the run's outcome says --fix could not write files,
// nothing of builds: no build fails for a file left as it was. On main
// the error of the kept old file was counted as one whose "Nixpkgs
// builds ... would fail".
func TestRenameReadOnlyPackagesDir(t *testing.T) {
	root, pkgs, shaped := ccclTree(t)
	fr := renameFix(t, root)
	testenv.ReadOnlyDir(t, pkgs)
	failed := fr.Write(func(string) {})
	checkFile(t, filepath.Join(root, "aliases.nix"), shaped)
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), "")
	code, err := nixpkgscheck.Count(failed).Outcome()
	if code != nixpkgscheck.ExitErrors || err == nil || !strings.Contains(err.Error(), "--fix could not write") || strings.Contains(err.Error(), "builds") {
		t.Errorf("outcome %d %v, want exit 1 saying --fix could not write files, and nothing of builds\n%+v", code, err, failed)
	}
}

// TestRenameFinishesHalfDoneMove: a run whose alias could not be written
// (a read-only aliases file, say) leaves cccl.nix written beside the old
// cuda_cccl.nix. The next --fix finishes the move: it adds the alias and
// removes cuda_cccl.nix (its diff a deletion git apply takes), and warns
// of nothing. On main it wrote the pname switch into cuda_cccl.nix too
// ("a file of cccl exists"), two files giving both names.
func TestRenameFinishesHalfDoneMove(t *testing.T) {
	root, pkgs, shaped := ccclTree(t)
	writeFile(t, filepath.Join(pkgs, "cccl.nix"), switched)
	withAlias, _, err := nixfix.AddAlias(shaped, "cuda_cccl", "cccl", "13.3")
	if err != nil {
		t.Fatal(err)
	}
	pristine := t.TempDir()
	if err := copyTree(root, pristine); err != nil {
		t.Fatal(err)
	}
	fr := renameFix(t, root)
	checkNotMoved(t, fr.refusals, "")
	var diff bytes.Buffer
	if err := fr.WriteDiff(&diff); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff.String(), "--- a/packages/cuda_cccl.nix\n+++ /dev/null\n") || strings.Contains(diff.String(), "+++ b/packages/cccl.nix") {
		t.Errorf("diff:\n%s", diff.String())
	}
	if failed := fr.Write(func(string) {}); len(failed) != 0 {
		t.Fatalf("Write: %+v", failed)
	}
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), "")
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), switched)
	checkFile(t, filepath.Join(root, "aliases.nix"), withAlias)
	checkApplies(t, diff.Bytes(), pristine, treeOf(t, root))
}

// TestRenameTargetTaken: a maintainer's cccl.nix there already (building
// cccl for 13.3): the switch in cuda_cccl.nix would make two files of
// cccl, so nothing is written, and a warning says what to fold where.
func TestRenameTargetTaken(t *testing.T) {
	root, pkgs, shaped := ccclTree(t)
	own := "{ buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cccl\";\n  outputs = [ \"out\" ];\n}\n"
	writeFile(t, filepath.Join(pkgs, "cccl.nix"), own)
	fr := renameFix(t, root)
	if len(fr.New) != 0 || fr.alias.changed() {
		t.Errorf("changes: %v, alias changed %v", fr.New, fr.alias.changed())
	}
	if len(fr.refusals) != 1 || fr.refusals[0].Kind != KindNotMoved || fr.refusals[0].Level != nixpkgscheck.LevelWarning ||
		!strings.Contains(fr.refusals[0].Message, "a file of cccl exists (a switch here would give two files of cccl); fold cuda_cccl.nix into it") {
		t.Errorf("refusals %+v", fr.refusals)
	}
	if failed := fr.Write(func(string) {}); len(failed) != 0 {
		t.Fatalf("Write: %+v", failed)
	}
	checkFile(t, filepath.Join(pkgs, "cuda_cccl.nix"), ccclFile)
	checkFile(t, filepath.Join(pkgs, "cccl.nix"), own)
	checkFile(t, filepath.Join(root, "aliases.nix"), shaped)
}
