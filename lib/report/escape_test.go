package report

import (
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// TestWriteTextEscapesNames: names with a newline (a forged trailer), an
// ESC sequence or a bidi override neither add lines to the commit
// message nor reach it raw.
func TestWriteTextEscapesNames(t *testing.T) {
	forged := "libfoo\n\nSigned-off-by: Mallory <m@example.org>"
	c := &Changes{Old: "1.0", New: "2.0\x1b[2J", PackagesAdded: []string{forged},
		Archives: []ArchiveChange{{Package: "libbar\u202e", Platform: "linux-x86_64", SonamesAdded: []string{"libx.so\r1"}}}}
	var b strings.Builder
	if err := c.WriteText(&b, "cuda\t"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "cuda\\u0009 1.0 -> 2.0\\u001b[2J\n\nPackages added:\n- libfoo\\u000a\\u000aSigned-off-by: Mallory <m@example.org>\n\nChanged packages:\n- libbar\\u202e\n  - linux-x86_64: sonames +libx.so\\u000d1\n"
	if out != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	if safetext.Text(out) != out {
		t.Errorf("unsafe characters left: %q", out)
	}
	if c.PackagesAdded[0] != forged {
		t.Error("WriteText changed the Changes it was given")
	}
}
