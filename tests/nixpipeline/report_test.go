package nixpipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportDerivation builds the sample's reports with Nix (nix/report.nix,
// builder: the static binary): the redist-level one over both versions
// equals the library's golden, and the per-version one has no changes.
func TestReportDerivation(t *testing.T) {
	requireNix(t)
	all := strings.TrimSpace(buildSample(t, "report"))
	got, err := os.ReadFile(filepath.Join(all, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(repoRoot(), "lib", "report", "testdata", "sample-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s/report.json differs from lib/report/testdata/sample-report.json", all)
	}
	one := strings.TrimSpace(buildSample(t, `"2.0.0".report`))
	single, err := os.ReadFile(filepath.Join(one, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(single), `"changes"`) || !strings.Contains(string(single), `"version": "2.0.0"`) {
		t.Errorf("%s/report.json: want release 2.0.0 alone, without changes", one)
	}
	html, err := os.ReadFile(filepath.Join(one, "report.html"))
	if err != nil || !strings.Contains(string(html), "<h1>sample redistributables: 2.0.0</h1>") {
		t.Errorf("%s/report.html: %v", one, err)
	}
}
