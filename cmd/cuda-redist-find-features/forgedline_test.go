package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
)

// forged is a package key whose newline would start a line of its own.
const forged = "libx\nFORGED all clear"

// noForgedLine fails when a line of out starts with FORGED, or the
// escaped key is missing.
func noForgedLine(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "FORGED") {
			t.Errorf("%s: a forged line %q in:\n%s", what, line, out)
		}
	}
	if !strings.Contains(out, `libx\u000aFORGED all clear`) {
		t.Errorf("%s: the escaped key is missing:\n%s", what, out)
	}
}

// TestTextOutputsEscapeNewlines: a newline in a package key (or a
// library path) reaches every text output escaped, so it cannot forge a
// line: the print-* tables, coverage, and check-nixpkgs' findings. On
// main each printed the newline raw.
func TestTextOutputsEscapeNewlines(t *testing.T) {
	detail := map[string]any{
		forged: map[string]any{"linux-x86_64": map[string]any{"None": map[string]any{"sha256": "", "relativePath": "", "features": map[string]any{
			"providedLibs": []string{"libfine.so.1"}, "neededLibs": []string{forged + ".so"},
			"libraries": []any{map[string]any{"path": "lib/" + forged + ".so", "kind": "shared", "sassArchitectures": []string{"sm_80"}, "ptxArchitectures": []string{}}},
		}}}},
	}
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "detail.json"), detail)
	for _, args := range [][]string{
		{"print-dependencies", dir},
		{"coverage", "--cuda-capabilities", "8.0,9.0", dir},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", args[0], code, stderr)
		}
		noForgedLine(t, args[0], stdout)
	}

	decls := map[string]any{
		forged: map[string]any{"outputs": []string{}, "nixExpression": `[ "out" ]`, "includeRemoveStubsFromRunpathHook": false, "allowFHSReferences": false, "fhsReferences": []string{},
			"outputsByPlatform": map[string]any{"linux-x86_64": map[string]any{"None": []string{"out"}}, "linux-sbsa": map[string]any{"None": []string{"out", "lib"}}}},
	}
	br := filepath.Join(t.TempDir(), "buildRedist.json")
	writeJSON(t, br, decls)
	code, stdout, stderr := runCLI("print-buildredist", br)
	if code != 0 {
		data, _ := os.ReadFile(br)
		t.Errorf("print-buildredist: exit %d: %s\n%s", code, stderr, data)
	}
	noForgedLine(t, "print-buildredist", stdout)

	// check-nixpkgs prints each finding's Text.
	for _, f := range []nixpkgscheck.Finding{
		{Level: nixpkgscheck.LevelError, Kind: "outputMissing", Package: forged, Platform: "linux-x86_64", Variant: "None", Version: "1.0", Message: "m"},
		{Level: nixpkgscheck.LevelWarning, Kind: "notRead", File: forged + ".nix", Message: "m"},
		{Level: nixpkgscheck.LevelHint, Kind: "missingDependency", Package: "p", File: "f", Message: "needs " + forged},
	} {
		noForgedLine(t, "check-nixpkgs "+f.Kind, f.Text())
	}
}
