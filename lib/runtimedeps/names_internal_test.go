package runtimedeps

import (
	"fmt"
	"slices"
	"testing"
)

// TestCandidatesBounded: among 100,000 names a load looks at those that
// begin with its literal part and no others (counted, not timed), so a
// release of many libraries costs each load its matches, not a scan.
func TestCandidatesBounded(t *testing.T) {
	var n names
	for i := range 100000 {
		n = append(n, fmt.Sprintf("libx%06d.so.1", i))
	}
	n = append(n, "libnvrtc.so.13", "libnvrtc-builtins.so.13.0", "libnvrtc.so")
	slices.Sort(n)
	if got := n.candidates("libnvrtc.so"); !slices.Equal(got, names{"libnvrtc.so", "libnvrtc.so.13"}) {
		t.Errorf("candidates of libnvrtc.so: %v", got)
	}
	if got := n.matching("libnvrtc.so.%d", "libnvrtc.so.*"); !slices.Equal(got, []string{"libnvrtc.so.13"}) {
		t.Errorf("matching libnvrtc.so.*: %v", got)
	}
	if got := len(n.candidates("libx00001")); got != 10 {
		t.Errorf("candidates of libx00001: %d, want 10", got)
	}
}
