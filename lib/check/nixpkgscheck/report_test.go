package nixpkgscheck

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSort(t *testing.T) {
	archive := func(level, kind, pkg, platform, variant, version, file string) Finding {
		return Finding{Level: level, Kind: kind, Package: pkg, Platform: platform, Variant: variant, Version: version, File: file, Message: kind}
	}
	// want is the report's order; the test sorts it reversed.
	want := []Finding{
		// The files' own findings first, by file, whatever their level.
		{Level: LevelHint, Kind: "duplicatePname", File: "a.nix", Message: "1"},
		{Level: LevelError, Kind: "evalError", File: "b.nix", Message: "2"},
		{Level: LevelError, Kind: "inputsEvalError", File: "c.nix", Message: "3"},
		{Level: LevelHint, Kind: "noManifest", File: "d.nix", Message: "4"},
		{Level: LevelHint, Kind: "notBuildRedist", File: "e.nix", Message: "5"},
		{Level: LevelWarning, Kind: "droppedOutput", File: "f.nix", Message: "6"},
		// Archives by package, platform, variant, version: not by file.
		archive(LevelHint, "couldSplit", "a", "linux-sbsa", "None", "1.0", "z.nix"),
		archive(LevelError, "emptyOutput", "b", "linux-sbsa", "None", "1.0", "a.nix"),
		archive(LevelHint, "noPackageFile", "b", "linux-x86_64", "None", "1.0", ""),
		archive(LevelHint, "couldSplit", "b", "linux-x86_64", "cuda11", "1.0", "b.nix"),
		archive(LevelHint, "couldSplit", "b", "linux-x86_64", "cuda12", "1.0", "b.nix"),
		archive(LevelHint, "couldSplit", "b", "linux-x86_64", "cuda12", "2.0", "b.nix"),
		// Failures last.
		archive(LevelFailure, "fetchFailure", "a", "linux-x86_64", "None", "1.0", ""),
		archive(LevelFailure, "fetchFailure", "c", "linux-x86_64", "None", "1.0", ""),
	}
	got := make([]Finding, len(want))
	for i := range want {
		got[len(want)-1-i] = want[i]
	}
	Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Stable: one archive's findings stay in the order they were found in.
	// (Many, interleaved with another archive's: sort.Slice is stable on
	// a dozen or on equal elements alone.)
	var interleaved, wantStable []Finding
	for _, pkg := range []string{"a", "b"} {
		for i := 0; i < 40; i++ {
			f := archive(LevelHint, "couldSplit", pkg, "linux-x86_64", "None", "1.0", "a.nix")
			f.Message = fmt.Sprint(i)
			wantStable = append(wantStable, f)
		}
	}
	for i := 0; i < 40; i++ {
		interleaved = append(interleaved, wantStable[40+i], wantStable[i])
	}
	Sort(interleaved)
	if diff := cmp.Diff(wantStable, interleaved); diff != "" {
		t.Errorf("not stable (-want +got):\n%s", diff)
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		levels  []string
		want    Counts
		code    int
		message string
	}{
		{nil, Counts{}, ExitOK, ""},
		{[]string{LevelHint, LevelHint}, Counts{Hints: 2}, ExitOK, ""},
		{[]string{LevelHint, LevelError, LevelError}, Counts{Errors: 2, Hints: 1}, ExitErrors, "2 error(s): the Nixpkgs builds of these packages would fail"},
		{[]string{LevelFailure}, Counts{Failures: 1}, ExitIncomplete, "1 archive(s) could not be fetched or detected: the check is incomplete"},
		// An error found is more than an incomplete check.
		{[]string{LevelFailure, LevelError}, Counts{Errors: 1, Failures: 1}, ExitErrors, "1 error(s): the Nixpkgs builds of these packages would fail"},
		// Warnings never fail; a refused manifest leaves the check incomplete.
		{[]string{LevelWarning, LevelHint}, Counts{Warnings: 1, Hints: 1}, ExitOK, ""},
		{[]string{"refused"}, Counts{Refused: 1}, ExitIncomplete, "1 manifest(s) could not be read: the check is incomplete"},
		{[]string{"refused", LevelFailure}, Counts{Refused: 1, Failures: 1}, ExitIncomplete, "1 manifest(s) could not be read and 1 archive(s) could not be fetched or detected: the check is incomplete"},
		{[]string{"refused", LevelError}, Counts{Refused: 1, Errors: 1}, ExitErrors, "1 error(s): the Nixpkgs builds of these packages would fail"},
	}
	for _, tc := range tests {
		var findings []Finding
		for _, l := range tc.levels {
			if l == "refused" {
				findings = append(findings, Finding{Level: LevelFailure, Kind: "manifestRefused"})
				continue
			}
			findings = append(findings, Finding{Level: l})
		}
		n := Count(findings)
		if n != tc.want {
			t.Errorf("Count(%v) = %+v, want %+v", tc.levels, n, tc.want)
		}
		code, err := n.Outcome()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if code != tc.code || msg != tc.message || (code == ExitOK) != errors.Is(err, nil) {
			t.Errorf("%+v.Outcome() = %d, %v; want %d, %q", n, code, err, tc.code, tc.message)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{Finding{Level: LevelError, Kind: "evalError", File: "a.nix", Message: "does not evaluate: x"}, "ERROR a.nix: does not evaluate: x"},
		// -v: the trace lines of an evaluation error each on a line of
		// their own; any other newline stays escaped.
		{Finding{Level: LevelError, Kind: "evalError", File: "a.nix", Message: "does not evaluate: error: x at a.nix:1:2\n  … while evaluating y at /s.nix:3:4\n  … while z\u001b[31m at /s.nix:5:6"},
			"ERROR a.nix: does not evaluate: error: x at a.nix:1:2\n  … while evaluating y at /s.nix:3:4\n  … while z\\u001b[31m at /s.nix:5:6"},
		{Finding{Level: LevelError, Kind: "evalError", File: "a\n.nix", Message: "does not evaluate: x\ny"}, "ERROR a\\u000a.nix: does not evaluate: x\\u000ay"},
		{Finding{Level: LevelHint, Kind: "noManifest", File: "n.nix", Message: "m"}, "HINT  n.nix: m"},
		{Finding{Level: LevelWarning, Kind: "droppedOutput", File: "s.nix", Message: "m"}, "WARN  s.nix: m"},
		{Finding{Level: LevelFailure, Kind: "manifestRefused", File: "/m/redistrib_1.json", Message: "m"}, "FAILED /m/redistrib_1.json: m"},
		{Finding{Level: LevelFailure, Kind: "fetchFailure", Package: "a", Platform: "linux-sbsa", Variant: "None", Version: "1.0", Message: "m"},
			"FAILED a linux-sbsa None 1.0: m"},
		{Finding{Level: LevelError, Kind: "missingDependency", Package: "a", Platform: "linux-sbsa", Variant: "cuda12", Version: "1.0", File: "a.nix",
			Needed: []string{"out"}, Message: "needs x"}, "ERROR a linux-sbsa cuda12 1.0: needs x [a.nix]"},
		{Finding{Level: LevelHint, Kind: "couldSplit", Package: "a", Platform: "linux-x86_64", Variant: "None", Version: "1.0", File: "a.nix",
			Declared: []string{"out"}, Needed: []string{"out", "include"}, Message: "output include could be declared", Path: "include/a.h"},
			"HINT  a linux-x86_64 None 1.0: declared [out] needed [out include]: output include could be declared (include/a.h)"},
		{Finding{Level: LevelHint, Kind: "noPackageFile", Package: "a", Platform: "linux-x86_64", Variant: "None", Version: "1.0",
			Needed: []string{"out", "lib"}, Message: "no package file"},
			"HINT  a linux-x86_64 None 1.0: declared [] needed [out lib]: no package file"},
	}
	for _, tc := range tests {
		if got := tc.f.Text(); got != tc.want {
			t.Errorf("Text() = %q, want %q", got, tc.want)
		}
	}
}
