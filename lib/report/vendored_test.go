package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// nsightRelease is a release whose nsight_systems archive holds the
// given libraries (sonames), each in host-linux-x64/.
func nsightRelease(version string, sonames ...string) *Aggregate {
	f := &features.Features{NarHash: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
	for _, s := range sonames {
		f.Libraries = append(f.Libraries, features.Library{Path: "host-linux-x64/" + s, Kind: "shared", Soname: s, Needed: []string{}})
	}
	return &Aggregate{Redist: "cuda", Version: version, Detail: features.Detail{
		"nsight_systems": {"linux-x86_64": {"None": {Features: f}}}}}
}

// TestVendoredDiffAndSection: diff names the vendored libraries that
// appear (OpenSSL's libssl.so.3) and disappear (ICU), not NVIDIA's own
// libnvlog.so; the HTML report lists them in its own section, which a
// release without any leaves out.
func TestVendoredDiffAndSection(t *testing.T) {
	old := ReleaseOf(nsightRelease("1.0", "libQt6Core.so.6", "libicuuc.so.71", "libnvlog.so"))
	new := ReleaseOf(nsightRelease("2.0", "libQt6Core.so.6", "libssl.so.3", "libnvlog.so", "libnvlog2.so"))
	if got := vendoredNames(old.Packages[0].Archives[0].Vendored); !cmp.Equal(got, []string{"libQt6Core.so.6", "libicuuc.so.71"}) {
		t.Fatalf("vendored of 1.0: %v", got)
	}
	var b strings.Builder
	if err := Diff(&old, &new).WriteText(&b, "cuda"); err != nil {
		t.Fatal(err)
	}
	if want := "  - linux-x86_64: sonames +libnvlog2.so +libssl.so.3; sonames -libicuuc.so.71; vendored +libssl.so.3; vendored -libicuuc.so.71\n"; !strings.Contains(b.String(), want) {
		t.Errorf("diff text lacks %q:\n%s", want, b.String())
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, &Report{Redist: "cuda", Releases: []Release{old, new}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table class="vendored" id="vendored-2.0">`, `<td><code>host-linux-x64/libssl.so.3</code></td><td>OpenSSL</td><td>Debian bookworm main</td>`} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	html.Reset()
	none := ReleaseOf(nsightRelease("3.0", "libnvlog.so"))
	if err := WriteHTML(&html, &Report{Redist: "cuda", Releases: []Release{none}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "Vendored libraries") {
		t.Error("a release without vendored libraries has the section")
	}
}

// TestVendoredDiffOncePerName: a vendored library that appears in two
// folders of an archive is one +NAME in diff, not two.
func TestVendoredDiffOncePerName(t *testing.T) {
	old := ReleaseOf(nsightRelease("1.0", "libnvlog.so"))
	twice := nsightRelease("2.0", "libnvlog.so", "libssl.so.3")
	f := twice.Detail["nsight_systems"]["linux-x86_64"]["None"].Features
	f.Libraries = append(f.Libraries, features.Library{Path: "target-linux-x64/libssl.so.3", Kind: "shared", Soname: "libssl.so.3", Needed: []string{}})
	new := ReleaseOf(twice)
	var b strings.Builder
	if err := Diff(&old, &new).WriteText(&b, "cuda"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "vendored +libssl.so.3\n") {
		t.Errorf("diff text, want vendored +libssl.so.3 once:\n%s", b.String())
	}
}
