package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestLicencesInReport: each release of the sample's report groups its
// packages by licence string (the sample's "Sample" is unknown to the
// table) and by licence text (one LICENSE in every archive), in the JSON
// model and in the HTML.
func TestLicencesInReport(t *testing.T) {
	r, err := Build(readAll(t, sampleDir("1.0.0"), sampleDir("2.0.0")), "")
	if err != nil {
		t.Fatal(err)
	}
	rel := r.Releases[0]
	if len(rel.Licences) != 1 || rel.Licences[0].License != "Sample" || rel.Licences[0].Attr != "" || len(rel.Licences[0].Packages) != len(rel.Packages) {
		t.Errorf("licences %+v", rel.Licences)
	}
	if len(rel.LicenceTexts) != 1 || rel.LicenceTexts[0].FirstLine != "Sample license for the bundled demo archives." {
		t.Errorf("licence texts %+v", rel.LicenceTexts)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td>Sample</td><td>unknown to the table</td>", `<td class="mono">` + rel.LicenceTexts[0].SHA256[:12] + "</td>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
