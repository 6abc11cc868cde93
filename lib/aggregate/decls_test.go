package aggregate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func TestOutputsExpression(t *testing.T) {
	k := func(p, v string) declKey { return declKey{p, manifest.ParseVariantKey(v)} }
	tests := []struct {
		name  string
		lists map[declKey][]string
		want  string
	}{
		{
			"one list fits all",
			map[declKey][]string{k("linux-x86_64", "None"): {"out", "lib"}, k("linux-sbsa", "None"): {"out", "lib"}},
			`[ "out" "lib" ]`,
		},
		{
			"by platform",
			map[declKey][]string{k("linux-x86_64", "None"): {"out", "lib", "static"}, k("linux-sbsa", "None"): {"out", "lib"}, k("linux-aarch64", "None"): {"out", "lib", "static"}},
			`[ "out" "lib" ] ++ lib.optionals (lib.elem backendStdenv.hostRedistSystem [ "linux-aarch64" "linux-x86_64" ]) [ "static" ]`,
		},
		{
			"by CUDA major across platforms",
			map[declKey][]string{
				k("linux-x86_64", "cuda11"): {"out", "lib"}, k("linux-x86_64", "cuda12"): {"out", "lib", "static", "stubs"},
				k("linux-sbsa", "cuda12"): {"out", "lib", "static", "stubs"},
			},
			`[ "out" "lib" ] ++ lib.optionals (cudaMajorVersion == "12") [ "static" "stubs" ]`,
		},
		{
			"by platform and major",
			map[declKey][]string{
				k("linux-x86_64", "cuda11"): {"out", "lib"}, k("linux-x86_64", "cuda12"): {"out", "lib", "bin"},
				k("linux-sbsa", "cuda11"): {"out", "lib", "bin"}, k("linux-sbsa", "cuda12"): {"out", "lib"},
			},
			`[ "out" "lib" ] ++ lib.optionals ((backendStdenv.hostRedistSystem == "linux-sbsa" && cudaMajorVersion == "11") || (backendStdenv.hostRedistSystem == "linux-x86_64" && cudaMajorVersion == "12")) [ "bin" ]`,
		},
		{
			// cuda_compat's variants in CUDA 13.1.1 to 13.3.1 are a major.minor.
			"by major.minor variant",
			map[declKey][]string{
				k("linux-x86_64", "cuda13.1"): {"out", "lib"}, k("linux-x86_64", "cuda13.2"): {"out", "lib", "bin"},
				k("linux-sbsa", "cuda13.2"): {"out", "lib", "bin"},
			},
			`[ "out" "lib" ] ++ lib.optionals (cudaMajorMinorVersion == "13.2") [ "bin" ]`,
		},
		{
			"by platform and major.minor",
			map[declKey][]string{
				k("linux-x86_64", "cuda13.1"): {"out", "lib"}, k("linux-x86_64", "cuda13.2"): {"out", "lib", "bin"},
				k("linux-sbsa", "cuda13.1"): {"out", "lib", "bin"}, k("linux-sbsa", "cuda13.2"): {"out", "lib"},
			},
			`[ "out" "lib" ] ++ lib.optionals ((backendStdenv.hostRedistSystem == "linux-sbsa" && cudaMajorMinorVersion == "13.1") || (backendStdenv.hostRedistSystem == "linux-x86_64" && cudaMajorMinorVersion == "13.2")) [ "bin" ]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var keys []declKey
			for key := range tc.lists {
				keys = append(keys, key)
			}
			sortKeys(keys)
			if got := outputsExpression(keys, tc.lists); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestDeclarations(t *testing.T) {
	facts := func(outputs []string, stubs bool, fhs ...string) features.BuildRedistFacts {
		return features.BuildRedistFacts{Outputs: outputs, HasStubs: stubs, FHSReferences: features.FHS{Count: len(fhs), Paths: fhs}}
	}
	byMajor := map[string]features.BuildRedistFacts{
		"11": {Outputs: []string{"out", "lib"}}, "12": {Outputs: []string{"out", "lib", "static"}},
	}
	archives := []ArchiveFacts{
		{Archive: manifest.Archive{Package: "a", Platform: "linux-x86_64"}, Facts: facts([]string{"out", "lib", "stubs"}, true)},
		{Archive: manifest.Archive{Package: "a", Platform: "linux-sbsa"}, Facts: facts([]string{"out", "lib", "stubs"}, true, "bin/x")},
		{Archive: manifest.Archive{Package: "a", Platform: "windows-x86_64"}, Facts: facts([]string{"out", "bin"}, false)},
		{Archive: manifest.Archive{Package: "b", Platform: "linux-x86_64"}, ByCudaMajor: byMajor},
		{Archive: manifest.Archive{Package: "c", Platform: "linux-x86_64", Variant: "cuda12"}, Facts: facts([]string{"out", "lib"}, false)},
		{Archive: manifest.Archive{Package: "c", Platform: "linux-x86_64", Variant: "cuda13"}, Facts: facts([]string{"out", "lib", "static"}, false)},
	}
	decls := Declarations(archives)
	a := decls["a"]
	if diff := cmp.Diff([]string{"out", "lib", "stubs"}, a.Outputs); diff != "" {
		t.Errorf("a.Outputs (windows must not count) (-want +got):\n%s", diff)
	}
	if !a.IncludeRemoveStubsFromRunpathHook || !a.AllowFHSReferences || len(a.FHSReferences) != 1 || a.FHSReferences[0] != "linux-sbsa/None: bin/x" {
		t.Errorf("a = %+v", a)
	}
	b := decls["b"]
	if len(b.Outputs) != 0 || b.NixExpression != `[ "out" "lib" ] ++ lib.optionals (cudaMajorVersion == "12") [ "static" ]` {
		t.Errorf("b (lib/<major> as variants) = %+v", b)
	}
	c := decls["c"]
	if diff := cmp.Diff(map[string]map[string][]string{"linux-x86_64": {"cuda12": {"out", "lib"}, "cuda13": {"out", "lib", "static"}}}, c.OutputsByPlatform); diff != "" {
		t.Errorf("c.OutputsByPlatform (variants as keys) (-want +got):\n%s", diff)
	}
}
