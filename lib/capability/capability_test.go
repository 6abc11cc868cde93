package capability

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOf is the rule set as a table: each row one library's targets and a
// GPU, and what NVIDIA's documentation says happens (docs/compatibility.md).
func TestOf(t *testing.T) {
	tests := []struct {
		name      string
		sass, ptx []string
		cc        string
		want      Support
	}{
		// SASS sm_XY: same major, minor >= Y.
		{"generic SASS, same capability", []string{"sm_80"}, nil, "8.0", SASS},
		{"generic SASS, later minor", []string{"sm_80"}, nil, "8.9", SASS},
		{"generic SASS, earlier minor", []string{"sm_86"}, nil, "8.0", None},
		{"generic SASS, next major", []string{"sm_90"}, nil, "10.0", None},
		{"generic SASS sm_100 on 10.3", []string{"sm_100"}, nil, "10.3", SASS},
		{"generic SASS sm_100 not on 11.0", []string{"sm_100"}, nil, "11.0", None},
		// SASS sm_XYa: exactly X.Y.
		{"specific SASS, its capability", []string{"sm_90a"}, nil, "9.0", SASS},
		{"specific SASS sm_100a not on 10.3", []string{"sm_100a"}, nil, "10.3", None},
		{"specific SASS sm_120a not on 12.1", []string{"sm_120a"}, nil, "12.1", None},
		// SASS sm_XYf: the family table.
		{"family SASS sm_100f on 10.0", []string{"sm_100f"}, nil, "10.0", SASS},
		{"family SASS sm_100f on 10.3", []string{"sm_100f"}, nil, "10.3", SASS},
		{"family SASS sm_100f not on 11.0", []string{"sm_100f"}, nil, "11.0", None},
		{"family SASS sm_103f not on 10.0", []string{"sm_103f"}, nil, "10.0", None},
		{"family SASS sm_110f on 11.0", []string{"sm_110f"}, nil, "11.0", SASS},
		{"family SASS sm_120f on 12.1", []string{"sm_120f"}, nil, "12.1", SASS},
		{"family SASS sm_121f not on 12.0", []string{"sm_121f"}, nil, "12.0", None},
		{"family SASS sm_100f not on 10.1 (not in the table)", []string{"sm_100f"}, nil, "10.1", None},
		{"family not in the table: same major, later minor", []string{"sm_130f"}, nil, "13.2", SASS},
		{"family not in the table: not the next major", []string{"sm_130f"}, nil, "14.0", None},
		// PTX sm_XY: any capability >= X.Y.
		{"generic PTX, later major", nil, []string{"sm_75"}, "12.0", PTX},
		{"generic PTX, same capability", nil, []string{"sm_120"}, "12.0", PTX},
		{"generic PTX, earlier capability", nil, []string{"sm_90"}, "8.9", None},
		{"specific PTX, later capability", nil, []string{"sm_90a"}, "10.0", None},
		{"specific PTX, its capability", nil, []string{"sm_90a"}, "9.0", PTX},
		{"family PTX, family member", nil, []string{"sm_120f"}, "12.1", PTX},
		{"family PTX, next major", nil, []string{"sm_120f"}, "13.0", None},
		// Several targets: SASS wins over PTX.
		{"SASS and PTX for the GPU", []string{"sm_75", "sm_90"}, []string{"sm_90"}, "9.0", SASS},
		{"only PTX for a newer GPU", []string{"sm_75", "sm_90"}, []string{"sm_90"}, "12.0", PTX},
		{"libcublasLt 13 on 12.1", []string{"sm_75", "sm_90a", "sm_100", "sm_120f", "sm_121"}, []string{"sm_75", "sm_120"}, "12.1", SASS},
		{"libcublasLt 13 on 11.0: PTX only", []string{"sm_75", "sm_90a", "sm_100", "sm_120f", "sm_121"}, []string{"sm_75", "sm_120"}, "11.0", PTX},
		{"no device code", nil, nil, "9.0", None},
		{"compute_ name for PTX", nil, []string{"compute_100f"}, "10.3", PTX},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Of(tc.sass, tc.ptx, tc.cc)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Of(%v, %v, %s) = %v, want %v", tc.sass, tc.ptx, tc.cc, got, tc.want)
			}
		})
	}
}

func TestOfErrors(t *testing.T) {
	for _, tc := range []struct {
		sass, ptx []string
		cc, want  string
	}{
		{nil, nil, "10", `compute capability "10"`},
		{nil, nil, "10.3a", `compute capability "10.3a"`},
		{nil, nil, "", `compute capability ""`},
		{[]string{"sm_100x"}, nil, "10.0", `GPU target "sm_100x"`},
		{nil, []string{"gfx90a"}, "10.0", `GPU target "gfx90a"`},
	} {
		_, err := Of(tc.sass, tc.ptx, tc.cc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Of(%v, %v, %q): err = %v, want it to contain %s", tc.sass, tc.ptx, tc.cc, err, tc.want)
		}
	}
}

func TestSort(t *testing.T) {
	got := Sort([]string{"sm_100a", "other", "sm_90a", "sm_100", "sm_52", "sm_103f", "sm_100f", "sm_90", "sm_121a", "sm_120"})
	want := []string{"sm_52", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_100a", "sm_103f", "sm_120", "sm_121a", "other"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sort (-want +got):\n%s", diff)
	}
}

func TestParseTargetRoundTrip(t *testing.T) {
	for _, s := range []string{"sm_75", "sm_90a", "sm_100f", "sm_1000"} {
		tg, err := ParseTarget(s)
		if err != nil || tg.String() != s {
			t.Errorf("ParseTarget(%q) = %v, %v", s, tg, err)
		}
	}
	if c := (Target{SM: 103}).Capability(); c != (Capability{10, 3}) || c.String() != "10.3" {
		t.Errorf("sm_103's capability: %v", c)
	}
}

func TestWhere(t *testing.T) {
	for _, tc := range []struct {
		target string
		ptx    bool
		want   string
	}{
		{"sm_90", false, "9.0 and later 9.x"},
		{"sm_90", true, "9.0 and every later GPU"},
		{"sm_90a", false, "architecture-specific: 9.0 only"},
		{"sm_120a", true, "architecture-specific: 12.0 only"},
		{"sm_100f", false, "family-specific: 10.0, 10.3"},
		{"sm_120f", true, "family-specific: 12.0, 12.1"},
		{"sm_130f", false, "family-specific: its family (13.0 and later 13.x)"},
	} {
		tg, err := ParseTarget(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Where(tc.ptx); got != tc.want {
			t.Errorf("%s.Where(%v) = %q, want %q", tc.target, tc.ptx, got, tc.want)
		}
	}
}
