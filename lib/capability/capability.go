package capability

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Capability is a GPU's compute capability, Major.Minor: 10.3 for a GPU
// whose SM version is sm_103.
type Capability struct{ Major, Minor int }

func (c Capability) String() string { return fmt.Sprintf("%d.%d", c.Major, c.Minor) }

var capabilityRE = regexp.MustCompile(`^([0-9]{1,3})\.([0-9])$`)

// ParseCapability reads "10.3". A GPU has no a or f: those name targets.
func ParseCapability(s string) (Capability, error) {
	m := capabilityRE.FindStringSubmatch(s)
	if m == nil {
		return Capability{}, fmt.Errorf("compute capability %q: want MAJOR.MINOR, such as 10.3", s)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return Capability{major, minor}, nil
}

// Kind is a target's kind, from its suffix.
type Kind byte

const (
	Generic  Kind = 0   // sm_100
	Family   Kind = 'f' // sm_100f: family-specific (CUDA 12.9+)
	Specific Kind = 'a' // sm_100a: architecture-specific (CUDA 12.0+)
)

// Target is a compilation target as cuobjdump names it: sm_100f is SM 100,
// Family.
type Target struct {
	SM   int
	Kind Kind
}

// Capability is the compute capability the target was built for: 10.0
// for sm_100, 7.5 for sm_75.
func (t Target) Capability() Capability { return Capability{t.SM / 10, t.SM % 10} }

func (t Target) String() string {
	s := "sm_" + strconv.Itoa(t.SM)
	if t.Kind != Generic {
		s += string(t.Kind)
	}
	return s
}

var targetRE = regexp.MustCompile(`^(?:sm|compute)_([0-9]{2,4})([af]?)$`)

// ParseTarget reads sm_XY, sm_XYa, sm_XYf (compute_ alike: a PTX target's
// nvcc name).
func ParseTarget(s string) (Target, error) {
	m := targetRE.FindStringSubmatch(s)
	if m == nil {
		return Target{}, fmt.Errorf("GPU target %q: want sm_<number> with an optional a or f suffix", s)
	}
	sm, _ := strconv.Atoi(m[1])
	t := Target{SM: sm}
	if m[2] != "" {
		t.Kind = Kind(m[2][0])
	}
	return t, nil
}

// families lists the members of each family-specific target: NVIDIA's
// "Family-Specific Compatibility" table (CUDA Programming Guide, 13.x).
// A family target not listed falls back to the guide's general rule:
// later devices with the same major capability.
var families = map[int][]Capability{
	100: {{10, 0}, {10, 3}},
	103: {{10, 3}},
	110: {{11, 0}},
	120: {{12, 0}, {12, 1}},
	121: {{12, 1}},
}

// inFamily reports whether c is a member of the family of target t.
func inFamily(t Target, c Capability) bool {
	if members, ok := families[t.SM]; ok {
		return slices.Contains(members, c)
	}
	return sameMajorAtLeast(t.Capability(), c)
}

// sameMajorAtLeast is binary compatibility: code for own runs on c of the
// same major version and an equal or higher minor one.
func sameMajorAtLeast(own, c Capability) bool {
	return c.Major == own.Major && c.Minor >= own.Minor
}

// RunsSASS reports whether a cubin built for t runs on a GPU of
// capability c.
func (t Target) RunsSASS(c Capability) bool {
	switch t.Kind {
	case Specific:
		return c == t.Capability()
	case Family:
		return inFamily(t, c)
	}
	return sameMajorAtLeast(t.Capability(), c)
}

// JITs reports whether the driver can compile PTX built for t for a GPU
// of capability c. Specific and family PTX compile for the GPUs their
// SASS runs on; generic PTX also for every later major version.
func (t Target) JITs(c Capability) bool {
	if t.Kind != Generic {
		return t.RunsSASS(c)
	}
	own := t.Capability()
	return c.Major > own.Major || sameMajorAtLeast(own, c)
}

// Less orders target names by SM number, then from the most to the least
// portable target of that number: generic, family (f), specific (a):
// sm_90, sm_90a, sm_100, sm_100f, sm_100a, sm_103f. Names that are not
// targets sort after all targets, by string.
func Less(a, b string) bool {
	ta, ea := ParseTarget(a)
	tb, eb := ParseTarget(b)
	switch {
	case ea != nil || eb != nil:
		if (ea == nil) != (eb == nil) {
			return ea == nil
		}
		return a < b
	case ta.SM != tb.SM:
		return ta.SM < tb.SM
	}
	return rank(ta.Kind) < rank(tb.Kind)
}

func rank(k Kind) int {
	switch k {
	case Generic:
		return 0
	case Family:
		return 1
	}
	return 2
}

// Sort sorts target names in Less order, in place, and returns them.
func Sort(names []string) []string {
	sort.SliceStable(names, func(i, j int) bool { return Less(names[i], names[j]) })
	return names
}

// Where says in words on which GPUs code for t runs: as SASS, or (ptx)
// JIT-compiled from PTX. For report titles and legends.
func (t Target) Where(ptx bool) string {
	own := t.Capability()
	switch t.Kind {
	case Specific:
		return "architecture-specific: " + own.String() + " only"
	case Family:
		members, ok := families[t.SM]
		if !ok {
			return fmt.Sprintf("family-specific: its family (%s and later %d.x)", own, own.Major)
		}
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.String()
		}
		return "family-specific: " + strings.Join(names, ", ")
	}
	if ptx {
		return own.String() + " and every later GPU"
	}
	return fmt.Sprintf("%s and later %d.x", own, own.Major)
}
