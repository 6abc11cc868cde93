package lineage

import (
	"fmt"
	"io"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// maxFilesShown bounds the moved files listed per move in text; the JSON
// has them all.
const maxFilesShown = 40

// Empty says whether no package appeared, disappeared, was renamed, lost
// files to another or changed its licence.
func (l *Lineage) Empty() bool {
	return len(l.Added)+len(l.Dropped)+len(l.Renamed)+len(l.Moves)+len(l.LicenceChanges) == 0
}

// WriteText writes the lineage as plain text, every name escaped
// (safetext.Escape, newlines included: the text goes into commit
// messages).
func (l *Lineage) WriteText(w io.Writer) error {
	e := safetext.Escape
	var b strings.Builder
	b.WriteString("\nPackage lineage:\n")
	if l.Empty() {
		b.WriteString("- the same packages under the same keys and licences\n")
	}
	for _, r := range l.Renamed {
		fmt.Fprintf(&b, "- renamed: %s -> %s (\"%s\", %s -> %s); evidence: %s\n", e(r.From), e(r.To), e(r.Name), e(r.OldVersion), e(r.NewVersion), e(strings.Join(r.Evidence, "; ")))
	}
	for _, d := range l.Dropped {
		fmt.Fprintf(&b, "- dropped: %s (\"%s\"; last release %s, version %s)\n", e(d.Package), e(d.Name), e(d.LastRelease), e(d.LastVersion))
		for _, m := range d.MovedTo {
			fmt.Fprintf(&b, "  - moved to redist %s: %s in %s; evidence: %s\n", e(m.Redist), e(m.Package), e(m.Version), e(m.Evidence))
		}
	}
	for _, a := range l.Added {
		fmt.Fprintf(&b, "- new: %s (\"%s\", %s; licence \"%s\")\n", e(a.Package), e(a.Name), e(a.Version), e(a.License))
		for _, m := range a.From {
			fmt.Fprintf(&b, "  - moved from redist %s: %s in %s; evidence: %s\n", e(m.Redist), e(m.Package), e(m.Version), e(m.Evidence))
		}
	}
	if len(l.Added) == 0 && !l.Empty() {
		b.WriteString("- new: none\n")
	}
	for _, m := range l.Moves {
		writeMove(&b, m)
	}
	for _, c := range l.LicenceChanges {
		writeLicenceChange(&b, c)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMove writes a move's line, then its files (maxFilesShown of them).
func writeMove(b *strings.Builder, m Move) {
	e := safetext.Escape
	fmt.Fprintf(b, "- %s: %s -> %s, %d files", m.Kind, e(m.From), e(m.To), len(m.Files))
	if len(m.Sonames) > 0 {
		fmt.Fprintf(b, ", sonames %s", e(strings.Join(m.Sonames, " ")))
	}
	fmt.Fprintf(b, "; evidence: %s\n", e(strings.Join(m.Evidence, "; ")))
	for i, f := range m.Files {
		if i == maxFilesShown {
			fmt.Fprintf(b, "  - ... %d more (--json lists them all)\n", len(m.Files)-maxFilesShown)
			break
		}
		if f.Old == f.New {
			fmt.Fprintf(b, "  - %s\n", e(f.Old))
		} else {
			fmt.Fprintf(b, "  - %s -> %s (by %s)\n", e(f.Old), e(f.New), f.By)
		}
	}
}

// writeLicenceChange writes a licence change's line, and its texts'
// when they changed.
func writeLicenceChange(b *strings.Builder, c LicenceChange) {
	e := safetext.Escape
	where := e(c.Package)
	if c.From != c.Package {
		where = e(c.From) + " -> " + where
	}
	fmt.Fprintf(b, "- licence of %s: \"%s\" (%s) -> \"%s\" (%s)\n", where, e(c.Old), attrText(c.OldAttr), e(c.New), attrText(c.NewAttr))
	if c.OldText != nil && c.NewText != nil {
		fmt.Fprintf(b, "  - text %s (%s) -> %s (%s)\n", short(c.OldText.SHA256), e(c.OldText.FirstLine), short(c.NewText.SHA256), e(c.NewText.FirstLine))
	}
}

func attrText(attr string) string {
	if attr == "" {
		return "unknown to the licence table"
	}
	return attr
}

// short is the start of a sha256, enough to tell texts apart in text.
func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
