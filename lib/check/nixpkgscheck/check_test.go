package nixpkgscheck

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// detected is a detection of an archive holding files, providing and
// needing sonames.
func detected(files, provided, needed []string) *features.Features {
	return &features.Features{Tree: features.Tree{Files: files},
		ProvidedLibs: features.Grouped{List: provided}, NeededLibs: features.Grouped{List: needed}}
}

// on is an archive of the sample redist's manifest 1.0 without variant.
func on(pkg, platform string, f *features.Features) Archive {
	return Archive{Redist: "sample", Manifest: "1.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: pkg, Platform: platform}, Features: f}}
}

func x86(pkg string, f *features.Features) Archive { return on(pkg, "linux-x86_64", f) }

// evaluated is a package file's result that evaluates, inputs included.
func evaluated(pname string, outputs ...string) pkgeval.Result {
	return pkgeval.Result{Pname: pname, RedistName: "sample", Outputs: outputs, HasDeps: true}
}

func failed(msg string) pkgeval.Result { return pkgeval.Result{Error: msg, RedistName: "sample"} }

func withInputs(r pkgeval.Result, build, propagated []string) pkgeval.Result {
	r.BuildInputs, r.PropagatedBuildInputs = build, propagated
	return r
}

func one(r pkgeval.Result) []pkgeval.Result { return []pkgeval.Result{r} }

const case0 = "sample 1.0 on linux-x86_64 with CUDA 12.8"

var headersAndLib = []string{"include/a.h", "lib/liba.so"}

// archiveFinding is a finding about archive pkg on x86_64 from file.
func archiveFinding(level, kind, pkg, file, msg string, declared, needed []string) Finding {
	return Finding{Level: level, Kind: kind, Package: pkg, Platform: "linux-x86_64", Variant: "None", Version: "1.0",
		Declared: declared, Needed: needed, Message: msg, File: file}
}

func TestCheck(t *testing.T) {
	sampleManifest := Manifest{Redist: "sample", Version: "1.0", Releases: releases("a", "1.0.1", "b", "1.0.2", "c", "1.0.3")}
	tests := []struct {
		name     string
		archives []Archive
		// extra manifests beside the sample's
		manifests []Manifest
		files     []string
		results   map[string][]pkgeval.Result
		evalOnly  bool
		refused   []Refused
		want      []Finding
	}{
		{
			name:     "an unknown output name: one warning per file, in eval-only too, no archive hint",
			archives: []Archive{x86("a", detected([]string{"include/a.h", "samples/a.cu"}, nil, nil)), on("a", "linux-sbsa", detected([]string{"include/a.h", "samples/a.cu"}, nil, nil))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": {evaluated("a", "out", "include", "sample", "man"), evaluated("a", "out", "include", "sample")}},
			want: []Finding{
				{Level: LevelWarning, Kind: "droppedOutput", File: "a.nix", Message: `declares output "sample", which buildRedist drops without a word (it keeps only out doc samples python bin dev include lib static stubs); "samples" is meant?`},
				{Level: LevelWarning, Kind: "droppedOutput", File: "a.nix", Message: `declares output "man", which buildRedist drops without a word (it keeps only out doc samples python bin dev include lib static stubs)`},
				withPath(onSbsa(archiveFinding(LevelHint, "couldSplit", "a", "a.nix", "output samples could be declared", []string{"out", "include", "sample"}, []string{"out", "samples", "include"})), "samples/a.cu"),
				withPath(archiveFinding(LevelHint, "couldSplit", "a", "a.nix", "output samples could be declared", []string{"out", "include", "sample", "man"}, []string{"out", "samples", "include"}), "samples/a.cu"),
			},
		},
		{
			name:     "an unknown output name in eval-only",
			archives: []Archive{x86("a", nil)},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "sample"))},
			evalOnly: true,
			want: []Finding{{Level: LevelWarning, Kind: "droppedOutput", File: "a.nix",
				Message: `declares output "sample", which buildRedist drops without a word (it keeps only out doc samples python bin dev include lib static stubs); "samples" is meant?`}},
		},
		{
			name:     "a refused manifest is one failure; the rest is checked",
			archives: []Archive{x86("a", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "include", "lib"))},
			refused:  []Refused{{Path: "/m/cuda/redistrib_13.9.0.json", Err: errors.New(`manifest /m/cuda/redistrib_13.9.0.json: package p: unknown key "linux-riscv64"`)}},
			want: []Finding{{Level: LevelFailure, Kind: "manifestRefused", File: "/m/cuda/redistrib_13.9.0.json",
				Message: `manifest not read, its archives not checked: manifest /m/cuda/redistrib_13.9.0.json: package p: unknown key "linux-riscv64"`}},
		},
		{
			name:     "declaration matches: nothing to say",
			archives: []Archive{x86("a", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "include", "lib"))},
		},
		{
			name:     "simulation: an error and a hint, with declared, needed and the path",
			archives: []Archive{x86("a", &features.Features{Tree: features.Tree{Files: []string{"bin/x", "include/a.h"}, UsrFiles: []string{"bin/x"}}})},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "bin"))},
			want: []Finding{
				withPath(archiveFinding(LevelError, "fhsReference", "a", "a.nix", "a file contains /usr/ and allowFHSReferences is not set", []string{"out", "bin"}, []string{"out", "bin", "include"}), "bin/x"),
				withPath(archiveFinding(LevelHint, "couldSplit", "a", "a.nix", "output include could be declared", []string{"out", "bin"}, []string{"out", "bin", "include"}), "include/a.h"),
			},
		},
		{
			name:     "an archive without detection is a failure",
			archives: []Archive{x86("a", nil)},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out"))},
			want: []Finding{{Level: LevelFailure, Kind: "fetchFailure", Package: "a", Platform: "linux-x86_64", Variant: "None", Version: "1.0",
				Message: "the archive could not be fetched, unpacked or detected (see Nix's log above)"}},
		},
		{
			name:     "eval-only: no detection is no failure",
			archives: []Archive{x86("a", nil)},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out"))},
			evalOnly: true,
		},
		{
			name:     "Windows archives are not checked",
			archives: []Archive{on("a", "windows-x86_64", nil), x86("a", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "include", "lib"))},
		},
		{
			name:     "two files with one pname: the first is checked",
			archives: []Archive{x86("a", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix", "a2.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix":  one(evaluated("a", "out", "include", "lib")),
				"a2.nix": one(evaluated("a", "out", "bin")), // would be errors if checked
			},
			want: []Finding{{Level: LevelHint, Kind: "duplicatePname", File: "a2.nix",
				Message: "a.nix and a2.nix both have pname a for " + case0 + "; checking a.nix"}},
		},
		{
			name:     "no file has the pname",
			archives: []Archive{x86("b", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out"))},
			want: []Finding{archiveFinding(LevelHint, "noPackageFile", "b", "", "no package file in /pkgs has this pname",
				nil, []string{"out", "include", "lib"})},
		},
		{
			name:     "no file has the pname, unless a broken one",
			archives: []Archive{x86("b", detected(headersAndLib, nil, nil))},
			files:    []string{"a.nix", "x.nix", "y/package.nix"},
			results: map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out")),
				"x.nix": one(failed("boom")), "y/package.nix": one(failed("bang"))},
			want: []Finding{
				{Level: LevelError, Kind: "evalError", File: "x.nix", Message: "does not evaluate: boom"},
				{Level: LevelError, Kind: "evalError", File: "y/package.nix", Message: "does not evaluate: bang"},
				archiveFinding(LevelHint, "noPackageFile", "b", "",
					"no package file in /pkgs has this pname (unless it is one of those that do not evaluate: x.nix, y/package.nix)",
					nil, []string{"out", "include", "lib"}),
			},
		},
		{
			name:     "the archive's own file is broken: its error says it all",
			archives: []Archive{x86("b", detected(headersAndLib, nil, nil)), x86("c", detected(headersAndLib, nil, nil)), x86("d", detected(headersAndLib, nil, nil))},
			files:    []string{"b.nix", "c/package.nix", "d/default.nix"},
			results: map[string][]pkgeval.Result{"b.nix": one(failed("boom")), "c/package.nix": one(failed("boom")),
				"d/default.nix": one(failed("boom"))},
			want: []Finding{
				{Level: LevelError, Kind: "evalError", File: "b.nix", Message: "does not evaluate: boom"},
				{Level: LevelError, Kind: "evalError", File: "c/package.nix", Message: "does not evaluate: boom"},
				{Level: LevelError, Kind: "evalError", File: "d/default.nix", Message: "does not evaluate: boom"},
			},
		},
		{
			name:     "evaluation errors: once per message, naming the cases unless all fail",
			archives: []Archive{on("a", "linux-x86_64", nil), on("a", "linux-sbsa", nil), on("a", "linux-aarch64", nil)},
			evalOnly: true,
			files:    []string{"x.nix", "y.nix", "z.nix", "w.nix"},
			results: map[string][]pkgeval.Result{
				"x.nix": {failed("m1"), failed("m1"), evaluated("x", "out")},
				"y.nix": {failed("m1"), failed("m2"), failed("m2")},
				"z.nix": {failed("m3"), failed("m3"), failed("m3")},
				// A skipped case is not one the file could fail in.
				"w.nix": {{Skip: true, RedistName: "sample"}, failed("m4"), failed("m4")},
			},
			want: []Finding{
				{Level: LevelError, Kind: "evalError", File: "w.nix", Message: "does not evaluate: m4"},
				{Level: LevelError, Kind: "evalError", File: "x.nix",
					Message: "does not evaluate: m1 (for sample 1.0 on linux-x86_64 with CUDA 12.8; sample 1.0 on linux-sbsa with CUDA 12.8)"},
				{Level: LevelError, Kind: "evalError", File: "y.nix", Message: "does not evaluate: m1 (for sample 1.0 on linux-x86_64 with CUDA 12.8)"},
				{Level: LevelError, Kind: "evalError", File: "y.nix",
					Message: "does not evaluate: m2 (for sample 1.0 on linux-sbsa with CUDA 12.8; sample 1.0 on linux-aarch64 with CUDA 12.8)"},
				{Level: LevelError, Kind: "evalError", File: "z.nix", Message: "does not evaluate: m3"},
			},
		},
		{
			name:     "inputs that do not evaluate: outputs checked, dependencies not",
			archives: []Archive{x86("a", detected(headersAndLib, []string{"liba.so.1"}, []string{"libb.so.1"})), x86("b", detected([]string{"lib/libb.so"}, []string{"libb.so.1"}, nil))},
			files:    []string{"a.nix", "b.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix": one(pkgeval.Result{Pname: "a", RedistName: "sample", Outputs: []string{"out", "include"}, DepsError: "no attribute zlib"}),
				"b.nix": one(evaluated("b", "out", "lib")),
			},
			want: []Finding{
				{Level: LevelError, Kind: "inputsEvalError", File: "a.nix", Message: "its buildInputs do not evaluate (outputs checked without them): no attribute zlib"},
				withPath(archiveFinding(LevelHint, "couldSplit", "a", "a.nix", "output lib could be declared", []string{"out", "include"}, []string{"out", "include", "lib"}), "lib/liba.so"),
			},
		},
		{
			name:     "files of no manifest given, and files that are no buildRedist call",
			files:    []string{"m.nix", "n.nix", "q.nix", "s.nix", "t.nix"},
			archives: []Archive{on("a", "linux-x86_64", nil), on("a", "linux-sbsa", nil)},
			evalOnly: true,
			results: map[string][]pkgeval.Result{
				"m.nix": {{Skip: true, RedistName: "nvpl"}, {Skip: true, RedistName: "nvpl"}},
				"n.nix": {{Skip: true, RedistName: "nvpl"}, {Skip: true, RedistName: "nvpl"}},
				"t.nix": {{Skip: true, RedistName: "cutensor"}, {Skip: true, RedistName: "cutensor"}},
				"q.nix": {{NotBuildRedist: true}, {NotBuildRedist: true}},
				"s.nix": {{Skip: true, RedistName: "nvpl"}, evaluated("s", "out")}, // skipped in one case only
			},
			want: []Finding{
				// One warning per redist, with the count: not checked is no error.
				{Level: LevelWarning, Kind: KindNotChecked, Count: 1, Files: []string{"t.nix"}, Message: "redist cutensor: 1 package file(s) not checked: no manifest of this redist was given (give its manifest directory, or name one with --redist cutensor=DIR)"},
				{Level: LevelWarning, Kind: KindNotChecked, Count: 2, Files: []string{"m.nix", "n.nix"}, Message: "redist nvpl: 2 package file(s) not checked: no manifest of this redist was given (give its manifest directory, or name one with --redist nvpl=DIR)"},
				{Level: LevelHint, Kind: "notBuildRedist", File: "q.nix", Message: "the file mentions buildRedist but does not return a buildRedist call, so nothing of it was checked"},
			},
		},
		{
			name:      "a manifest directory no file names (and an output buildRedist drops)",
			manifests: []Manifest{{Redist: "cuda12", Version: "12.8.0", Releases: releases("o", "2.0"), Dir: "/m/cuda12"}},
			archives:  []Archive{x86("a", detected(headersAndLib, nil, nil))},
			files:     []string{"a.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix": one(evaluated("a", "out", "include", "lib", "sample")),
			},
			want: []Finding{
				{Level: LevelError, Kind: "noPackageFiles", File: "/m/cuda12", Message: "no package file in /pkgs has redistName \"cuda12\", so none of these manifests is checked (name the directory's redist with --redist NAME=DIR)"},
				{Level: LevelWarning, Kind: "droppedOutput", File: "a.nix", Message: "declares output \"sample\", which buildRedist drops without a word (it keeps only out doc samples python bin dev include lib static stubs); \"samples\" is meant?"},
			},
		},
		{
			name:     "a needed soname no buildInput provides",
			archives: []Archive{x86("a", detected([]string{"lib/liba.so"}, []string{"liba.so.1"}, []string{"libb.so.1", "libc.so.6"})), x86("b", detected([]string{"lib/libb.so"}, []string{"libb.so.1"}, nil))},
			files:    []string{"a.nix", "b.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "lib")), "b.nix": one(evaluated("b", "out", "lib"))},
			want: []Finding{archiveFinding(LevelError, "missingDependency", "a", "a.nix",
				"needs libb.so.1 (from b), which no buildInput provides: autoPatchelfHook would fail", nil, []string{"out", "lib"})},
		},
		{
			name:     "provided through a propagated input; an unused input",
			archives: []Archive{x86("a", detected([]string{"lib/liba.so"}, nil, []string{"libb.so.1"})), x86("b", detected([]string{"lib/libb.so"}, []string{"libb.so.1"}, nil)), x86("c", detected([]string{"lib/libc2.so"}, []string{"libc2.so"}, nil))},
			files:    []string{"a.nix", "b.nix", "c.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix": one(withInputs(evaluated("a", "out", "lib"), []string{"c"}, nil)),
				"b.nix": one(evaluated("b", "out", "lib")),
				"c.nix": one(withInputs(evaluated("c", "out", "lib"), nil, []string{"b"})),
			},
			want: []Finding{archiveFinding(LevelHint, "unusedDependency", "a", "a.nix",
				"buildInput c provides none of the libraries the archive needs", nil, []string{"out", "lib"})},
		},
		{
			name:     "autoPatchelfIgnoreMissingDeps",
			archives: []Archive{x86("a", detected([]string{"lib/liba.so"}, nil, []string{"libb.so.1", "libz.so.1"})), x86("b", detected([]string{"lib/libb.so"}, []string{"libb.so.1"}, nil))},
			files:    []string{"a.nix", "b.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix": one(func() pkgeval.Result {
					r := evaluated("a", "out", "lib")
					r.IgnoreMissingDeps = []string{"libb.so.*", "libz.so.1"}
					return r
				}()),
				"b.nix": one(evaluated("b", "out", "lib")),
			},
		},
		{
			name:     "a soname no package provides",
			archives: []Archive{x86("a", detected([]string{"lib/liba.so"}, nil, []string{"libz.so.1"}))},
			files:    []string{"a.nix"},
			results:  map[string][]pkgeval.Result{"a.nix": one(evaluated("a", "out", "lib"))},
			want: []Finding{archiveFinding(LevelHint, "unresolvedDependency", "a", "a.nix",
				"needs libz.so.1, which no package of the manifests provides: a buildInput from outside them must, or autoPatchelfIgnoreMissingDeps must list it", nil, []string{"out", "lib"})},
		},
		{
			name: "a provider of another manifest",
			archives: []Archive{x86("a", detected([]string{"lib/liba.so"}, nil, []string{"libo.so.1"})),
				{Redist: "other", Manifest: "2.0", DetectedArchive: manifest.DetectedArchive{Archive: manifest.Archive{Package: "o", Platform: "linux-x86_64"}, Features: detected([]string{"lib/libo.so"}, []string{"libo.so.1"}, nil)}}},
			manifests: []Manifest{{Redist: "other", Version: "2.0", Releases: releases("o", "2.0")}},
			files:     []string{"a.nix", "o.nix"},
			results: map[string][]pkgeval.Result{
				"a.nix": {evaluated("a", "out", "lib"), {Skip: true, RedistName: "sample"}},
				"o.nix": {{Skip: true, RedistName: "other"}, func() pkgeval.Result { r := evaluated("o", "out", "lib"); r.RedistName = "other"; return r }()},
			},
			want: []Finding{archiveFinding(LevelError, "missingDependency", "a", "a.nix",
				"needs libo.so.1 (from o), which no buildInput provides: autoPatchelfHook would fail", nil, []string{"out", "lib"})},
		},
		{
			name:     "report order: files, then archives by package, then failures",
			archives: []Archive{x86("z", nil), x86("b", detected([]string{"lib/libb.so"}, nil, nil)), x86("a", detected([]string{"lib/liba.so"}, nil, nil))},
			files:    []string{"x.nix"},
			results:  map[string][]pkgeval.Result{"x.nix": one(failed("boom"))},
			want: []Finding{
				{Level: LevelError, Kind: "evalError", File: "x.nix", Message: "does not evaluate: boom"},
				archiveFinding(LevelHint, "noPackageFile", "a", "", "no package file in /pkgs has this pname (unless it is one of those that do not evaluate: x.nix)", nil, []string{"out", "lib"}),
				archiveFinding(LevelHint, "noPackageFile", "b", "", "no package file in /pkgs has this pname (unless it is one of those that do not evaluate: x.nix)", nil, []string{"out", "lib"}),
				{Level: LevelFailure, Kind: "fetchFailure", Package: "z", Platform: "linux-x86_64", Variant: "None", Version: "1.0",
					Message: "the archive could not be fetched, unpacked or detected (see Nix's log above)"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Manifests: append([]Manifest{sampleManifest}, tc.manifests...), Archives: tc.archives, EvalOnly: tc.evalOnly, PackagesDir: "/pkgs", Refused: tc.refused}
			p := NewPlan(in)
			for file, rs := range tc.results {
				if len(rs) != len(p.Cases) {
					t.Fatalf("%s: %d results for %d cases %q", file, len(rs), len(p.Cases), p.CaseNames)
				}
			}
			if diff := cmp.Diff(tc.want, p.Check(tc.files, tc.results)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func onSbsa(f Finding) Finding {
	f.Platform = "linux-sbsa"
	return f
}

func withPath(f Finding, path string) Finding {
	f.Path = path
	return f
}
