package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// TestOutputsTableIsBuildRedists: the outputs table of each sample release
// says what the aggregate builder's buildRedist.json says (what
// print-buildredist prints and check-nixpkgs --fix writes): the
// expression per package, the list per platform and variant (an archive
// with lib/<major> directories once per major, Windows not built), and no
// legacy output (demo_src's legacy "out dev include" is "out include").
func TestOutputsTableIsBuildRedists(t *testing.T) {
	r, err := Build(readAll(t, sampleDir("1.0.0"), sampleDir("2.0.0")), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range r.Releases {
		data, err := os.ReadFile(filepath.Join(sampleDir(rel.Version), "buildRedist.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]features.BuildRedistDecl
		if err := jsoncheck.Unmarshal("buildRedist.json", data, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, rel.BuildRedist); diff != "" {
			t.Errorf("%s: Release.BuildRedist is not buildRedist.json (-want +got):\n%s", rel.Version, diff)
		}
		table := buildOutputsTable(rel)
		if table.Legacy {
			t.Errorf("%s: legacy outputs shown, though every archive has buildRedist facts", rel.Version)
		}
		got := tableDecls(t, rel.Version, table)
		for pkg, d := range want {
			if diff := cmp.Diff(d.OutputsByPlatform, got[pkg].OutputsByPlatform); diff != "" {
				t.Errorf("%s %s: table's lists are not buildRedist.json's (-want +got):\n%s", rel.Version, pkg, diff)
			}
			if got[pkg].NixExpression != d.NixExpression {
				t.Errorf("%s %s: outputs = %q, buildRedist.json says %q", rel.Version, pkg, got[pkg].NixExpression, d.NixExpression)
			}
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`<tr><td>demo_src</td>.*</tr>`).FindString(page.String())
	if !strings.Contains(row, `<code>[ &#34;out&#34; &#34;include&#34; ];</code>`) || !strings.Contains(row, "<div>out include</div>") || strings.Contains(row, "dev") {
		t.Errorf("demo_src's row does not say buildRedist's out include (and no dev):\n%s", row)
	}
}

// TestOutputsTableLegacy: aggregates without buildRedist facts (the real
// fixtures, made from upstream's index) show the legacy outputs, each
// row marked legacy and the page saying what that means, and declare
// nothing.
func TestOutputsTableLegacy(t *testing.T) {
	r, err := Build(readAll(t, realFixtureDir("cuda", "11.8.0")), "")
	if err != nil {
		t.Fatal(err)
	}
	rel := r.Releases[0]
	if len(rel.BuildRedist) != 0 {
		t.Errorf("declarations made up from no facts: %v", rel.BuildRedist)
	}
	table := buildOutputsTable(rel)
	if !table.Legacy || len(table.Rows) == 0 {
		t.Fatalf("legacy %v, %d rows", table.Legacy, len(table.Rows))
	}
	for _, row := range table.Rows {
		if !row.Legacy || row.Declare != "" {
			t.Errorf("%s: legacy %v, declare %q", row.Package, row.Legacy, row.Declare)
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<tr class="legacy"><td>cuda_cudart</td><td>11.8.89</td><td><span class="tag">legacy</span></td>`) || !strings.Contains(page.String(), "not a list to declare") {
		t.Error("the page does not mark the legacy rows and say what legacy means")
	}
}

// tableDecls reads the outputs table back as buildRedist declarations,
// failing t for a legacy cell or a platform other than Windows not built.
func tableDecls(t *testing.T, version string, table outputsTable) map[string]features.BuildRedistDecl {
	t.Helper()
	got := map[string]features.BuildRedistDecl{}
	for _, row := range table.Rows {
		d := features.BuildRedistDecl{NixExpression: row.Declare, OutputsByPlatform: map[string]map[string][]string{}}
		for i, cell := range row.Cells {
			platform := table.Platforms[i]
			for _, vo := range cell {
				if vo.Legacy || row.Legacy {
					t.Errorf("%s %s: legacy cell %v", version, row.Package, vo)
				}
				if vo.NotBuilt {
					if !strings.HasPrefix(platform, "windows") {
						t.Errorf("%s %s %s: not built", version, row.Package, platform)
					}
					continue
				}
				if d.OutputsByPlatform[platform] == nil {
					d.OutputsByPlatform[platform] = map[string][]string{}
				}
				d.OutputsByPlatform[platform][vo.Variant.String()] = vo.Outputs
			}
		}
		got[row.Package] = d
	}
	return got
}
