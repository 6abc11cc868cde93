package nixpkgscheck

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// realInput is a check of CUDA releases from the pinned manifests, with
// their x86_64 archives (detections from trees, when given).
func realInput(t *testing.T, versions []string, trees map[string]map[string][]string) Input {
	t.Helper()
	var in Input
	for _, v := range versions {
		m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cuda", "redistrib_"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		releases := map[string]string{}
		for k, r := range m.Releases {
			releases[k] = r.Version
		}
		in.Manifests = append(in.Manifests, Manifest{Redist: "cuda", Version: v, Releases: releases, Parsed: m, Dir: "cuda"})
		for _, a := range m.Archives() {
			if a.Platform != "linux-x86_64" {
				continue
			}
			arc := Archive{Redist: "cuda", Manifest: v, DetectedArchive: manifest.DetectedArchive{Archive: a}}
			if files, ok := trees[v][a.Package]; ok {
				arc.Features = &features.Features{Tree: features.Tree{Files: files}}
			}
			in.Archives = append(in.Archives, arc)
		}
	}
	in.EvalOnly, in.PackagesDir = true, "pkgs"
	return in
}

// resultsFor evaluates each file to its pname in every case (the pname of
// a case of a release without the package too, as a file that does not
// switch its pname does).
func resultsFor(p *Plan, pnames map[string]string) map[string][]pkgeval.Result {
	out := map[string][]pkgeval.Result{}
	for file, pname := range pnames {
		for range p.Cases {
			out[file] = append(out[file], pkgeval.Result{Pname: pname, RedistName: "cuda", Outputs: []string{"out"}})
		}
	}
	return out
}

func hints(fs []Finding, kind string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// TestLineageHints: CUDA 13.2.2 → 13.3.0 from the real manifests: the
// cuda_cccl file gets a rename hint (the alias and the version switch),
// each dropped package's file its last release, and the licence rules
// look at meta.license.
func TestLineageHints(t *testing.T) {
	in := realInput(t, []string{"13.2.2", "13.3.0"}, nil)
	texts := map[string]string{
		"cuda_cccl.nix":   `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_cccl"; outputs = [ "out" ]; }`,
		"mft.nix":         `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "mft"; outputs = [ "out" ]; }`,
		"cuda_cudart.nix": `{ lib, buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_cudart"; outputs = [ "out" ]; meta.license = lib.licenses.unfree; }`,
		"libcublas.nix":   `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "libcublas"; outputs = [ "out" ]; }`,
	}
	in.ReadFile = func(file string) ([]byte, error) {
		if s, ok := texts[file]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no %s", file)
	}
	p := NewPlan(in)
	files := []string{"cuda_cccl.nix", "cuda_cudart.nix", "libcublas.nix", "mft.nix"}
	fs := p.Check(files, resultsFor(p, map[string]string{"cuda_cccl.nix": "cuda_cccl", "mft.nix": "mft", "cuda_cudart.nix": "cuda_cudart", "libcublas.nix": "libcublas"}))
	checkCCCLRenameHint(t, p, hints(fs, KindRenamed))
	d := hints(fs, KindDropped)
	if len(d) != 1 || d[0].File != "mft.nix" || !strings.Contains(d[0].Message, "its last release is 13.2.2 (version 4.35.0.159)") {
		t.Errorf("drop hints %+v", d)
	}
	checkCudartLicenceHint(t, p, hints(fs, KindLicence))
}

// checkCCCLRenameHint: r is one hint, for cuda_cccl.nix, of the rename
// to cccl in 13.3.0 (the move with the version switch, the alias, the
// licence), and
// its fix is that pname switch.
func checkCCCLRenameHint(t *testing.T, p *Plan, r []Finding) {
	t.Helper()
	if len(r) != 1 || r[0].File != "cuda_cccl.nix" || r[0].Version != "13.3.0" ||
		!strings.Contains(r[0].Message, `pname = if cudaAtLeast "13.3" then "cccl" else "cuda_cccl"`) || !strings.Contains(r[0].Message, `move the file to cccl.nix`) ||
		!strings.Contains(r[0].Message, `make cuda_cccl an alias in cuda-modules/aliases.nix (cuda_cccl = if final.cudaAtLeast "13.3" then lib.warn`) ||
		!strings.Contains(r[0].Message, `its licence changes from "CUDA Toolkit" to "CCCL EULA" (unknown to the licence table`) {
		t.Errorf("rename hints %+v", r)
	}
	if len(r) == 0 {
		return
	}
	if sw, ok := p.RenameFix(r[0]); !ok || sw != (PnameSwitch{From: "cuda_cccl", To: "cccl", Since: "13.3"}) {
		t.Errorf("rename fix %+v, %v", sw, ok)
	}
}

// checkCudartLicenceHint: l is one hint, cuda_cudart's, whose fix is
// nvidiaCudaRedist. cuda_cudart says unfree where the manifest's "CUDA
// Toolkit" is nvidiaCudaRedist; mft's "NVIDIA Proprietary" is unknown to
// the table (no guess: no hint); cuda_cccl (its newest release is
// 13.2.2's "CUDA Toolkit", the default) and libcublas (the default) get
// none.
func checkCudartLicenceHint(t *testing.T, p *Plan, l []Finding) {
	t.Helper()
	var files []string
	for _, f := range l {
		files = append(files, f.File)
	}
	if !slices.Equal(files, []string{"cuda_cudart.nix"}) {
		t.Fatalf("licence hints %+v", l)
	}
	if !strings.Contains(l[0].Message, "meta.license is lib.licenses.unfree, but cuda 13.3.0 names the licence \"CUDA Toolkit\", which is lib.licenses.nvidiaCudaRedist") {
		t.Errorf("cudart: %s", l[0].Message)
	}
	if p.LicenceFix(l[0]) != "lib.licenses.nvidiaCudaRedist" {
		t.Errorf("fix of cudart: %q", p.LicenceFix(l[0]))
	}
}

// TestSplitHint: CUDA 12.9.2 → 13.0.0 with trees: the cuda_nvcc file is
// told of the files that went to libnvvm and cuda_crt.
func TestSplitHint(t *testing.T) {
	trees := map[string]map[string][]string{
		"12.9.2": {"cuda_nvcc": {"bin/nvcc", "nvvm/include/nvvm.h", "nvvm/libdevice/libdevice.10.bc", "include/crt/host_config.h"}},
		"13.0.0": {"cuda_nvcc": {"bin/nvcc"}, "libnvvm": {"include/nvvm.h", "nvvm/libdevice/libdevice.10.bc"}, "cuda_crt": {"include/crt/host_config.h"}},
	}
	in := realInput(t, []string{"12.9.2", "13.0.0"}, trees)
	p := NewPlan(in)
	fs := hints(p.Check([]string{"cuda_nvcc.nix"}, resultsFor(p, map[string]string{"cuda_nvcc.nix": "cuda_nvcc"})), KindSplit)
	if len(fs) != 2 {
		t.Fatalf("split hints %+v", fs)
	}
	if !strings.HasPrefix(fs[0].Message, "1 files of cuda_nvcc are in the new package cuda_crt (include/crt/host_config.h)") ||
		!strings.HasPrefix(fs[1].Message, "2 files of cuda_nvcc are in the new package libnvvm (include/nvvm.h, nvvm/libdevice/libdevice.10.bc)") {
		t.Errorf("split hints:\n%s\n%s", fs[0].Message, fs[1].Message)
	}
}

func TestSameLicence(t *testing.T) {
	for _, tc := range []struct {
		expr, attr   string
		same, judged bool
	}{
		{"lib.licenses.nvidiaCudaRedist", "lib.licenses.nvidiaCudaRedist", true, true},
		{"licenses.mit", "lib.licenses.mit", true, true},
		{"_cuda.lib.licenses.cudnn", "_cuda.lib.licenses.cudnn", true, true},
		{"lib.licenses.cudnn", "_cuda.lib.licenses.cudnn", false, true},
		{"lib.licenses.unfree", "lib.licenses.nvidiaCudaRedist", false, true},
		{"[ lib.licenses.mit ]", "lib.licenses.mit", false, false},
		{"if x then a else b", "lib.licenses.mit", false, false},
	} {
		same, judged := sameLicence(tc.expr, tc.attr)
		if same != tc.same || judged != tc.judged {
			t.Errorf("sameLicence(%q, %q) = %v, %v", tc.expr, tc.attr, same, judged)
		}
	}
}

// TestLicenceMissing: a cudnn package file without meta.license gets the
// default nvidiaCuda, but the manifest's "cudnn" is the CUDA package
// set's cudnn licence: a hint; the file that sets it gets none.
func TestLicenceMissing(t *testing.T) {
	m, err := manifest.ReadFile(filepath.Join(testenv.NixpkgsManifests(t), "cudnn", "redistrib_9.27.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{EvalOnly: true, Manifests: []Manifest{{Redist: "cudnn", Version: "9.27.0", Releases: map[string]string{}, Parsed: m}}}
	for _, a := range m.Archives() {
		in.Archives = append(in.Archives, Archive{Redist: "cudnn", Manifest: "9.27.0", DetectedArchive: manifest.DetectedArchive{Archive: a}})
	}
	texts := map[string]string{
		"cudnn.nix":     `{ buildRedist }: buildRedist { redistName = "cudnn"; pname = "cudnn"; outputs = [ "out" ]; }`,
		"cudnn_jit.nix": `{ _cuda, buildRedist }: buildRedist { redistName = "cudnn"; pname = "cudnn_jit"; outputs = [ "out" ]; meta.license = _cuda.lib.licenses.cudnn; }`,
	}
	in.ReadFile = func(f string) ([]byte, error) { return []byte(texts[f]), nil }
	p := NewPlan(in)
	results := map[string][]pkgeval.Result{}
	for f, pn := range map[string]string{"cudnn.nix": "cudnn", "cudnn_jit.nix": "cudnn_jit"} {
		for range p.Cases {
			results[f] = append(results[f], pkgeval.Result{Pname: pn, RedistName: "cudnn", Outputs: []string{"out"}})
		}
	}
	l := hints(p.Check([]string{"cudnn.nix", "cudnn_jit.nix"}, results), KindLicence)
	if len(l) != 1 || l[0].File != "cudnn.nix" || !strings.Contains(l[0].Message, "no meta.license: buildRedist's default lib.licenses.nvidiaCuda applies, but cudnn 9.27.0 names the licence \"cudnn\", which is _cuda.lib.licenses.cudnn") {
		t.Errorf("licence hints %+v", l)
	}
}

// TestLicenceChangeToUnknown: once cuda_cccl's file builds cccl (13.3.0,
// whose manifest names "CCCL EULA", which the table does not know, where
// 13.2.2 named "CUDA Toolkit"), a file without meta.license gets a hint
// that the default applies to a licence of which nothing is known; a
// file that sets meta.license gets none (the maintainer's call), and so
// does the file that builds cuda_cccl alone (its rename hint says it).
func TestLicenceChangeToUnknown(t *testing.T) {
	switched := `{ cudaAtLeast, buildRedist }: buildRedist { redistName = "cuda"; pname = if cudaAtLeast "13.3" then "cccl" else "cuda_cccl"; outputs = [ "out" ]; }`
	for name, tc := range map[string]struct {
		text    string
		both    bool
		wantFor []string
	}{
		"switched, no meta.license":  {switched, true, []string{"cccl.nix"}},
		"switched, meta.license set": {strings.Replace(switched, "outputs", `meta.license = "x"; outputs`, 1), true, nil},
		"not switched yet":           {`{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_cccl"; outputs = [ "out" ]; }`, false, nil},
	} {
		t.Run(name, func(t *testing.T) {
			in := realInput(t, []string{"13.2.2", "13.3.0"}, nil)
			in.ReadFile = func(string) ([]byte, error) { return []byte(tc.text), nil }
			p := NewPlan(in)
			results := map[string][]pkgeval.Result{}
			for _, c := range p.Cases {
				pname := "cuda_cccl"
				if tc.both && manifest.CompareVersions(c.CudaVersion, "13.3") >= 0 {
					pname = "cccl"
				}
				results["cccl.nix"] = append(results["cccl.nix"], pkgeval.Result{Pname: pname, RedistName: "cuda", Outputs: []string{"out"}})
			}
			var files []string
			for _, f := range hints(p.Check([]string{"cccl.nix"}, results), KindLicence) {
				files = append(files, f.File)
				want := `no meta.license: buildRedist's default lib.licenses.nvidiaCudaRedist applies, but from cuda 13.3.0 the manifest names the licence "CCCL EULA" (before: "CUDA Toolkit"), which the licence table does not know`
				if !strings.HasPrefix(f.Message, want) || p.LicenceFix(f) != "" {
					t.Errorf("hint %q (fix %q)", f.Message, p.LicenceFix(f))
				}
			}
			if !slices.Equal(files, tc.wantFor) {
				t.Errorf("licence hints for %v, want %v", files, tc.wantFor)
			}
		})
	}
}

// TestRenameHintWhenNewNameHasAFile: cuda_cccl.nix builds cuda_cccl
// alone and cccl.nix builds cccl already: the rename hint says to fold
// the one into the other by hand, not that --fix moves it.
func TestRenameHintWhenNewNameHasAFile(t *testing.T) {
	in := realInput(t, []string{"13.2.2", "13.3.0"}, nil)
	in.ReadFile = func(string) ([]byte, error) { return []byte(`{ }: { }`), nil }
	p := NewPlan(in)
	r := hints(p.Check([]string{"cccl.nix", "cuda_cccl.nix"}, resultsFor(p, map[string]string{"cccl.nix": "cccl", "cuda_cccl.nix": "cuda_cccl"})), KindRenamed)
	if len(r) != 1 || r[0].File != "cuda_cccl.nix" || !strings.Contains(r[0].Message, "which cccl.nix builds already: fold this file into it") || strings.Contains(r[0].Message, "--fix does both") {
		t.Errorf("rename hints %+v", r)
	}
}
