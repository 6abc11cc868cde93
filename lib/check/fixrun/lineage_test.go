package fixrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestLineageFixes: against CUDA 13.2.2 and 13.3.0, --fix moves the
// cuda_cccl file to cccl.nix with its pname switched to cccl from 13.3,
// and gives cuda_cudart the licence the table says for "CUDA Toolkit";
// mft's licence, unknown to the table, is not written.
func TestLineageFixes(t *testing.T) {
	texts := map[string]string{
		"cuda_cccl.nix":   "{ lib, buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cuda_cccl\";\n  outputs = [ \"out\" ];\n}\n",
		"cuda_cudart.nix": "{ lib, buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cuda_cudart\";\n  outputs = [ \"out\" ];\n  meta.license = lib.licenses.unfree;\n}\n",
		"mft.nix":         "{ buildRedist }:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"mft\";\n  outputs = [ \"out\" ];\n}\n",
	}
	root := t.TempDir()
	writeAliases(testenv.ExampleAliases(t))(t, root)
	opts := Aliases{Root: root, File: "aliases.nix"}
	fr, findings := lineageFix(t, texts, newAliasEdit(filepath.Join(root, "packages"), opts))
	fr.PackagesDir, fr.opts.Aliases = filepath.Join(root, "packages"), opts
	if err := fr.lineageFixes(findings); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fr.New["cccl.nix"], `pname = if cudaAtLeast "13.3" then "cccl" else "cuda_cccl";`) || fr.Moves()["cuda_cccl.nix"] != "cccl.nix" {
		t.Errorf("cccl.nix:\n%s\nmoves %v", fr.New["cccl.nix"], fr.Moves())
	}
	if _, changed := fr.New["cuda_cccl.nix"]; changed {
		t.Errorf("cuda_cccl.nix is changed in place as well")
	}
	if !strings.Contains(fr.New["cuda_cudart.nix"], "meta.license = lib.licenses.nvidiaCudaRedist;") {
		t.Errorf("cuda_cudart.nix:\n%s", fr.New["cuda_cudart.nix"])
	}
	if _, changed := fr.New["mft.nix"]; changed || len(fr.refusals) != 0 {
		t.Errorf("mft.nix changed (%q) or refusals %+v", fr.New["mft.nix"], fr.refusals)
	}
}

// lineageFix is a fix of the package files texts against CUDA 13.2.2 and
// 13.3.0 (each file evaluating to the pname of its name), with the
// aliases file alias (nil: none), and the check's findings.
func lineageFix(t *testing.T, texts map[string]string, alias *aliasEdit) (*Fix, []nixpkgscheck.Finding) {
	t.Helper()
	in := nixpkgscheck.Input{EvalOnly: true, PackagesDir: "pkgs", ReadFile: func(f string) ([]byte, error) { return []byte(texts[f]), nil }}
	for _, v := range []string{"13.2.2", "13.3.0"} {
		m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cuda", "redistrib_"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		in.Manifests = append(in.Manifests, nixpkgscheck.Manifest{Redist: "cuda", Version: v, Releases: map[string]string{}, Parsed: m})
		for _, a := range m.Archives() {
			if a.Platform == "linux-x86_64" {
				in.Archives = append(in.Archives, nixpkgscheck.Archive{Redist: "cuda", Manifest: v, DetectedArchive: manifest.DetectedArchive{Archive: a}})
			}
		}
	}
	plan := nixpkgscheck.NewPlan(in)
	results := map[string][]pkgeval.Result{}
	var files []string
	for file := range texts {
		pname := strings.TrimSuffix(file, ".nix")
		files = append(files, file)
		for range plan.Cases {
			results[file] = append(results[file], pkgeval.Result{Pname: pname, RedistName: "cuda", Outputs: []string{"out"}})
		}
	}
	fr := newFix("", Options{Plan: plan}, alias)
	for f, s := range texts {
		fr.Old[f] = s
	}
	return fr, plan.Check(files, results)
}
