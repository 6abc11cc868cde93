package coverage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/capability"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

func mustParse(t *testing.T, s string) Capability {
	t.Helper()
	c, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOf: each kind of target against each kind of cudaCapabilities
// entry, with the targets that give the answer.
func TestOf(t *testing.T) {
	tests := []struct {
		name       string
		sass, ptx  []string
		capability string
		want       Support
		targets    []string
	}{
		// Generic SASS sm_XY: X.Z for Z >= Y.
		{"sm_XY on its GPU", []string{"sm_80", "sm_90"}, nil, "9.0", SASS, []string{"sm_90"}},
		{"sm_XY on a later minor", []string{"sm_80", "sm_90"}, nil, "8.9", SASS, []string{"sm_80"}},
		{"sm_XY not on an earlier minor", []string{"sm_86"}, nil, "8.0", None, []string{}},
		{"sm_XY not on the next major", []string{"sm_90"}, nil, "10.0", None, []string{}},
		// Family SASS sm_XYf: the members of its family.
		{"sm_XYf on a family member", []string{"sm_100f"}, nil, "10.3", SASS, []string{"sm_100f"}},
		{"sm_XYf not outside the family", []string{"sm_100f"}, nil, "11.0", None, []string{}},
		{"sm_XYf for an f entry", []string{"sm_90", "sm_120f"}, nil, "12.1f", SASS, []string{"sm_120f"}},
		// Specific SASS sm_XYa: X.Y only.
		{"sm_XYa on its GPU", []string{"sm_90a"}, nil, "9.0a", SASS, []string{"sm_90a"}},
		{"sm_XYa not on another minor", []string{"sm_100a"}, nil, "10.3", None, []string{}},
		{"an a entry runs generic SASS too", []string{"sm_120"}, nil, "12.0a", SASS, []string{"sm_120"}},
		{"every cubin that runs is named", []string{"sm_100", "sm_100a", "sm_100f", "sm_103a"}, nil, "10.0a", SASS, []string{"sm_100", "sm_100f", "sm_100a"}},
		// PTX only: the driver JITs generic PTX for every later GPU.
		{"PTX only, later major", nil, []string{"sm_75"}, "12.0", PTX, []string{"sm_75"}},
		{"PTX for GPUs newer than every cubin", []string{"sm_75", "sm_90"}, []string{"sm_90"}, "12.0a", PTX, []string{"sm_90"}},
		{"SASS wins over PTX", []string{"sm_90"}, []string{"sm_90"}, "9.0", SASS, []string{"sm_90"}},
		{"specific PTX only for its GPU", nil, []string{"sm_90a"}, "10.0", None, []string{}},
		{"family PTX for a member", nil, []string{"sm_120f"}, "12.1", PTX, []string{"sm_120f"}},
		// Nothing.
		{"nothing: older GPU than every target", []string{"sm_75", "sm_80"}, []string{"sm_80"}, "6.1", None, []string{}},
		{"nothing: newer GPU and no PTX", []string{"sm_75", "sm_90a", "sm_100", "sm_120f"}, nil, "11.0f", None, []string{}},
		// No device code: not a gap.
		{"no device code", nil, nil, "9.0", NoDeviceCode, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Of(tc.sass, tc.ptx, mustParse(t, tc.capability))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Cell{Support: tc.want, Targets: tc.targets}, got); diff != "" {
				t.Errorf("Of(%v, %v, %s) (-want +got):\n%s", tc.sass, tc.ptx, tc.capability, diff)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Capability
	}{
		{"8.9", Capability{"8.9", capability.Capability{Major: 8, Minor: 9}, capability.Generic}},
		{"10.0f", Capability{"10.0f", capability.Capability{Major: 10, Minor: 0}, capability.Family}},
		{"12.0a", Capability{"12.0a", capability.Capability{Major: 12, Minor: 0}, capability.Specific}},
	} {
		if got := mustParse(t, tc.in); got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	got, err := ParseList(" 8.9, 9.0,10.0f,12.0a")
	if err != nil || !cmp.Equal(Names(got), []string{"8.9", "9.0", "10.0f", "12.0a"}) {
		t.Errorf("ParseList: %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"":           "empty entry",
		"8.9,,9.0":   "empty entry",
		"8.9,8.9":    "8.9 given twice",
		"sm_89":      `CUDA capability "sm_89"`,
		"10.0x":      `CUDA capability "10.0x"`,
		"10.0af":     `CUDA capability "10.0af"`,
		"10":         `CUDA capability "10"`,
		"9.0,10.10a": `CUDA capability "10.10a"`,
	} {
		if _, err := ParseList(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseList(%q): err = %v, want it to contain %s", in, err, want)
		}
	}
}

// TestOfArchive: the archive gets the worst of its libraries with device
// code; stubs and libraries without device code do not count; every none
// is a gap.
func TestOfArchive(t *testing.T) {
	caps, err := ParseList("7.5,9.0a,12.0")
	if err != nil {
		t.Fatal(err)
	}
	f := &features.Features{Libraries: []features.Library{
		{Path: "lib/libb.so.1", Kind: "shared", SASSArchitectures: []string{"sm_75", "sm_90a"}},
		{Path: "lib/liba.so.1", Kind: "shared", SASSArchitectures: []string{"sm_75", "sm_90"}, PTXArchitectures: []string{"sm_90"}},
		{Path: "lib/libhost.so.1", Kind: "shared"},
		{Path: "lib/stubs/libb.so", Kind: "shared", Stub: true, SASSArchitectures: []string{"sm_52"}},
	}}
	a, gaps, err := OfArchive(manifest.Archive{Package: "libx", Platform: "linux-x86_64"}, f, caps)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]Support{"7.5": SASS, "9.0a": SASS, "12.0": None}, a.Coverage); diff != "" {
		t.Errorf("archive coverage (-want +got):\n%s", diff)
	}
	var paths []string
	for _, l := range a.Libraries {
		paths = append(paths, l.Path)
	}
	if diff := cmp.Diff([]string{"lib/liba.so.1", "lib/libb.so.1"}, paths); diff != "" {
		t.Errorf("libraries (-want +got):\n%s", diff)
	}
	if got := a.Libraries[0].Coverage["12.0"]; got.Support != PTX || !cmp.Equal(got.Targets, []string{"sm_90"}) {
		t.Errorf("liba on 12.0: %+v", got)
	}
	want := []Gap{{Package: "libx", Platform: "linux-x86_64", Library: "lib/libb.so.1", Capability: "12.0",
		SASS: []string{"sm_75", "sm_90a"}, PTX: []string{}}}
	if diff := cmp.Diff(want, gaps); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}

	host := &features.Features{Libraries: []features.Library{{Path: "lib/libhost.so.1", Kind: "shared"}}}
	a, gaps, err = OfArchive(manifest.Archive{Package: "cuda_cudart", Platform: "linux-x86_64"}, host, caps)
	if err != nil || len(gaps) != 0 || a.Coverage["9.0a"] != NoDeviceCode || len(a.Libraries) != 0 {
		t.Errorf("host-only archive: %+v, gaps %v, err %v", a, gaps, err)
	}

	bad := &features.Features{Libraries: []features.Library{{Path: "lib/libbad.so", SASSArchitectures: []string{"gfx90a"}}}}
	if _, _, err := OfArchive(manifest.Archive{Package: "libbad", Platform: "linux-x86_64"}, bad, caps); err == nil || !strings.Contains(err.Error(), "libbad linux-x86_64 None: lib/libbad.so") {
		t.Errorf("bad target: err = %v, want it to name the archive and library", err)
	}
}

func TestOfDetail(t *testing.T) {
	caps, _ := ParseList("8.0,10.0f")
	lib := func(sass ...string) *features.Features {
		return &features.Features{Libraries: []features.Library{{Path: "lib/l.so", Kind: "shared", SASSArchitectures: sass}}}
	}
	d := features.Detail{
		"libz": {"linux-x86_64": {"None": {Features: lib("sm_80", "sm_100f")}}, "linux-sbsa": {"None": {Features: lib("sm_80")}}},
		"liba": {"linux-x86_64": {"cuda12": {Features: lib("sm_100a")}, "cuda13": {}}},
	}
	r, err := OfDetail(d, caps)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, a := range r.Archives {
		order = append(order, a.Package+"/"+a.Platform+"/"+a.Variant.String()+"="+string(a.Coverage["8.0"])+","+string(a.Coverage["10.0f"]))
	}
	want := []string{"liba/linux-x86_64/cuda12=none,sass", "libz/linux-sbsa/None=sass,none", "libz/linux-x86_64/None=sass,sass"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("archives (-want +got):\n%s", diff)
	}
	if len(r.None) != 2 || r.None[0].Capability != "8.0" || r.None[1].Platform != "linux-sbsa" {
		t.Errorf("none: %+v", r.None)
	}
	if diff := cmp.Diff([]string{"8.0", "10.0f"}, r.Capabilities); diff != "" {
		t.Errorf("capabilities: %s", diff)
	}
}

// FuzzParseList: any input gives a list or an error, never a panic, and a
// list's names are the trimmed entries, each parsing back alone.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"8.9,9.0,10.0f,12.0a", " 7.5 ", "", ",", "10.0af", "999.9a,1.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caps, err := ParseList(s)
		if err != nil {
			return
		}
		parts := strings.Split(s, ",")
		if len(caps) != len(parts) {
			t.Fatalf("ParseList(%q): %d entries from %d parts", s, len(caps), len(parts))
		}
		for i, c := range caps {
			if c.Name != strings.TrimSpace(parts[i]) {
				t.Errorf("entry %d: name %q, part %q", i, c.Name, parts[i])
			}
			if again, err := Parse(c.Name); err != nil || again != c {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", c.Name, again, err, c)
			}
		}
	})
}
