package nixfix

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // kind letter + text
	}{
		{"brackets and ; inside strings and comments are text", `[ "a]" /* ] ; */ "b;" # ]
]`, []string{"P[", `S"a]"`, "C/* ] ; */", `S"b;"`, "C# ]", "P]"}},
		{"interpolation with a string holding }", `"x${ f "}" }y" z`, []string{`S"x${ f "}" }y"`, "Iz"}},
		{"indented string escapes", `'' a ''${b} ''' c ${d} '' e`, []string{`S'' a ''${b} ''' c ${d} ''`, "Ie"}},
		{"paths, URIs, operators", `./a/b.nix <nixpkgs> https://x.invalid/p a ++ b // c -> d`, []string{
			"F./a/b.nix", "F<nixpkgs>", "Uhttps://x.invalid/p", "Ia", "P++", "Ib", "P//", "Ic", "P->", "Id"}},
		{"lambda is not a URI", "finalAttrs: { }", []string{"IfinalAttrs", "P:", "P{", "P}"}},
		{"identifiers with ' and -", "x' foo-bar 1.5", []string{"Ix'", "Ifoo-bar", "N1.5"}},
	}
	letter := map[kind]string{kIdent: "I", kString: "S", kNumber: "N", kPath: "F", kURI: "U", kPunct: "P", kComment: "C"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toks, err := tokenize(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tk := range toks {
				got = append(got, letter[tk.kind]+tk.text)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	for _, src := range []string{`"abc`, `'' abc`, `/* x`, `"${ x"`, "a ` b", `"${"` + strings.Repeat(`${"`, 300)} {
		if _, err := tokenize(src); err == nil || !strings.Contains(err.Error(), "offset") {
			t.Errorf("tokenize(%.30q): error %v, want one naming the offset", src, err)
		}
	}
}

func TestLocate(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		bindings []string
		formals  []string
		terms    []string // cond: values, or "opaque"
	}{
		{"plain set", `{ buildRedist, lib ? null }: buildRedist { redistName = "cuda"; pname = "x"; outputs = [ "out" ]; meta.license = lib.licenses.free; }`,
			[]string{"redistName", "pname", "outputs", "meta.license"}, []string{"buildRedist", "lib"}, []string{": out"}},
		{"finalAttrs with let, with and assert inside values", `{ buildRedist, lib }:
buildRedist (
  finalAttrs:
  let
    a = let b = 1; in b;
  in
  {
    inherit (lib) x;
    inherit y;
    postFixup = with lib; assert true; "${a}";
    outputs = [ "out" ] ++ lib.optionals (lib.versionOlder finalAttrs.version "13") [ "doc" "lib" ] ++ optionals cond [ ];
  }
)`, []string{"inherit", "inherit", "postFixup", "outputs"}, []string{"buildRedist", "lib"},
			[]string{": out", `(lib.versionOlder finalAttrs.version "13"): doc lib`, "cond: "}},
		{"quoted names are the names Nix reads; computed ones match nothing", `{ buildRedist, x }: buildRedist { "postPatch" = ""; ${"outputs"} = [ "out" ]; meta."main\x" = 1; ${x} = 2; "${x}y" = 3; inherit "pname"; }`,
			[]string{"postPatch", "outputs", "meta.mainx", "${…}", "${…}", "inherit"}, []string{"buildRedist", "x"}, []string{": out"}},
		{"computed outputs are opaque", `{ buildRedist }: buildRedist rec { outputs = [ "out" ] ++ (if a then [ "lib" ] else [ ]) ++ [ x ]; }`,
			[]string{"outputs"}, []string{"buildRedist"}, []string{": out", "opaque", "opaque"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := locate(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, b := range s.bindings {
				names = append(names, b.name)
			}
			var terms []string
			b, _ := s.binding("outputs")
			for _, tm := range s.terms(b) {
				if tm.opaque {
					terms = append(terms, "opaque")
					continue
				}
				terms = append(terms, tm.cond+": "+strings.Join(values(tm), " "))
			}
			if diff := cmp.Diff([][]string{tc.bindings, tc.formals, tc.terms}, [][]string{names, s.formals, terms}); diff != "" {
				t.Errorf("bindings, formals, terms (-want +got):\n%s", diff)
			}
		})
	}
}

// fuzzSeeds are package files in the real shapes (see fix_test.go).
var fuzzSeeds = []string{
	`{ buildRedist }: buildRedist { redistName = "cuda"; pname = "cuda_rt"; outputs = [ "out" "include" "lib" "static" "stubs" ]; }`,
	`{
  backendStdenv,
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "cuda";
  pname = "cuda_rt";

  outputs = [
    "out"
    "doc"
    "include"
    "lib"
    "stubs"
  ]
  ++ lib.optionals (backendStdenv.hostRedistSystem == "linux-x86_64") [ "static" ];

  # The tool has /usr/ in it.
  allowFHSReferences = false;
  postInstall = ''
    echo ''${x} "]" ;
  '';
})
`,
	`{ buildRedist, lib }: let x = [ "a" ]; in buildRedist (finalAttrs: let y = 1; in { pname = "p"; includeRemoveStubsFromRunpathHook = false; })`,
}

// FuzzTokenize: any input tokenizes or fails with an error, never a
// panic; tokens are in order, inside the input, and cover every byte
// that is not white space.
func FuzzTokenize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := tokenize(src)
		if err != nil {
			return
		}
		pos := 0
		for _, tk := range toks {
			if tk.start < pos || tk.end <= tk.start || tk.end > len(src) {
				t.Fatalf("token %q at [%d,%d) after %d", tk.text, tk.start, tk.end, pos)
			}
			if gap := src[pos:tk.start]; strings.TrimSpace(gap) != "" {
				t.Fatalf("bytes %q skipped", gap)
			}
			pos = tk.end
		}
		if strings.TrimSpace(src[pos:]) != "" {
			t.Fatalf("tail %q skipped", src[pos:])
		}
	})
}

// FuzzFix: any file is fixed or refused, never a panic; a fixed file
// reads back, keeps every comment outside outputs, and (with Nix installed) parses with
// Nix whenever the original did.
func FuzzFix(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	nix, _ := exec.LookPath("nix-instantiate")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := locate(src)
		if err != nil {
			return
		}
		got, err := Fix(src, fuzzCases(unconditionalOutputs(s)))
		if err != nil || got == src {
			return
		}
		if _, err := locate(got); err != nil {
			t.Fatalf("the fixed file does not read back: %v\n%s", err, got)
		}
		checkCommentsKept(t, s, got)
		if nix != "" && nixParses(t, src) && !nixParses(t, got) {
			t.Fatalf("the fixed file does not parse with Nix:\n%s\nfrom:\n%s", got, src)
		}
	})
}

// unconditionalOutputs is what the file declares when no condition
// holds: its unconditional lists.
func unconditionalOutputs(s *source) []string {
	b, ok := s.binding("outputs")
	if !ok {
		return []string{"out"}
	}
	var outputs []string
	for _, tm := range s.terms(b) {
		if tm.cond == "" && !tm.opaque {
			outputs = append(outputs, values(tm)...)
		}
	}
	return outputs
}

// fuzzCases are an x86 and an sbsa case declaring outputs.
func fuzzCases(outputs []string) []Case {
	x86 := Case{Name: "x86", Platform: "linux-x86_64", CudaVersion: "12.8", Outputs: outputs, Archives: []Archive{{Name: "x86", Tree: features.Tree{
		Files: []string{"LICENSE", "include/a.h", "lib/libx.so", "lib/libx.a", "lib/stubs/libx.so", "bin/t"}, UsrFiles: []string{"bin/t"}}}}}
	sbsa := Case{Name: "sbsa", Platform: "linux-sbsa", CudaVersion: "13.0", Outputs: outputs, Archives: []Archive{{Name: "sbsa", Tree: features.Tree{
		Files: []string{"LICENSE", "include/a.h", "lib/libx.so"}}}}}
	return []Case{x86, sbsa}
}

// checkCommentsKept: a branch the fix removes goes with its comment;
// every comment outside outputs stays in got.
func checkCommentsKept(t *testing.T, s *source, got string) {
	t.Helper()
	ob, hasOutputs := s.binding("outputs")
	for _, tk := range s.all {
		inOutputs := hasOutputs && tk.start >= s.toks[ob.first].start && tk.end <= s.toks[ob.semicolon].end
		if tk.kind == kComment && !inOutputs && !strings.Contains(got, tk.text) {
			t.Fatalf("comment %q lost:\n%s", tk.text, got)
		}
	}
}

func nixParses(t *testing.T, src string) bool {
	p := filepath.Join(t.TempDir(), "f.nix")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Parses(context.Background(), p) == nil
}
