package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
)

// TestFailureSummary: failures are grouped by stage and cause, the
// curl errors of Nix 2.8 and 2.34 alike, most frequent first, with three
// names and a count of the rest; the archive's own name is no part of a
// cause; dependency failures are counted by stage.
func TestFailureSummary(t *testing.T) {
	var failures []nixlog.Build
	for i := range 692 {
		cause := fmt.Sprintf("error: unable to download 'https://h/a%d.tar.xz': Couldn't resolve host name (6)", i)
		if i%2 == 1 {
			cause = fmt.Sprintf("error: unable to download 'https://h/a%d.tar.xz': Could not resolve hostname (6) Could not resolve host: h", i)
		}
		failures = append(failures, nixlog.Build{Stage: nixlog.Fetch, Subject: fmt.Sprintf("a%d", i), Cause: cause})
	}
	for _, name := range []string{"libfoo-linux-x86_64-1.0-archive", "libbar-linux-sbsa-2.0-archive"} {
		failures = append(failures, nixlog.Build{Stage: nixlog.Unpack, Subject: name,
			Cause: "cuda-redist-find-features unpack: unpack /nix/store/" + strings.Repeat("a", 32) + "-" + name + ".tar.xz: xz: unexpected EOF"})
	}
	failures = append(failures, nixlog.Build{Stage: nixlog.Detect, Subject: "x"})
	got := failureSummary(failures, map[nixlog.Stage]int{nixlog.Detect: 694, nixlog.Aggregate: 1})
	want := []string{
		"692 fetches failed: could not resolve host (offline? try --offline with local archives)",
		"  a0, a1, a2 …and 689 more",
		"2 unpacks failed: cuda-redist-find-features unpack: unpack …: xz: unexpected EOF",
		"  libfoo-linux-x86_64-1.0-archive, libbar-linux-sbsa-2.0-archive",
		"1 detection failed: its builder wrote no error",
		"  x",
		"694 detections not built: something they need failed",
		"1 aggregate not built: something it needs failed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
