package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// Changes is what changed from release Old to release New.
type Changes struct {
	Old             string   `json:"old"`
	New             string   `json:"new"`
	PackagesAdded   []string `json:"packagesAdded"`
	PackagesRemoved []string `json:"packagesRemoved"`
	// Archives lists, per package present in both, the archives
	// (platform/variant) that appeared, disappeared or changed.
	Archives []ArchiveChange `json:"archives"`
	// Lineage is how the packages went from Old to New: renames, splits,
	// merges, drops and licence changes, with their evidence (LineageOf).
	Lineage *lineage.Lineage `json:"lineage,omitempty"`
}

// ArchiveChange is one platform/variant of a package in both releases,
// or in one only (Added/Removed).
type ArchiveChange struct {
	Package        string           `json:"package"`
	Platform       string           `json:"platform"`
	Variant        manifest.Variant `json:"variant"`
	Added          bool             `json:"added"`
	Removed        bool             `json:"removed"`
	OutputsGained  []string         `json:"outputsGained"`
	OutputsLost    []string         `json:"outputsLost"`
	SASSGained     []string         `json:"sassGained"`
	SASSLost       []string         `json:"sassLost"`
	PTXGained      []string         `json:"ptxGained"`
	PTXLost        []string         `json:"ptxLost"`
	SonamesAdded   []string         `json:"sonamesAdded"`
	SonamesRemoved []string         `json:"sonamesRemoved"`
	// VendoredAdded and VendoredRemoved are the vendored libraries (by
	// name) that appeared and disappeared (docs/vendored.md).
	VendoredAdded   []string `json:"vendoredAdded,omitempty"`
	VendoredRemoved []string `json:"vendoredRemoved,omitempty"`
	// LoadsAdded and LoadsRemoved are the runtime loads (with their
	// providers, lib/runtimedeps.Label) that appeared and disappeared.
	LoadsAdded   []string `json:"runtimeLoadsAdded,omitempty"`
	LoadsRemoved []string `json:"runtimeLoadsRemoved,omitempty"`
	// NarHashChanged is set when the package's version string is the same
	// in both releases but the unpacked content differs: a silent
	// re-upload, which a Nixpkgs hash pin will notice.
	NarHashChanged bool   `json:"narHashChanged"`
	OldNarHash     string `json:"oldNarHash,omitempty"`
	NewNarHash     string `json:"newNarHash,omitempty"`
	Version        string `json:"version,omitempty"`
}

// Diff compares two releases.
func Diff(old, new *Release) *Changes {
	c := &Changes{Old: old.Version, New: new.Version, PackagesAdded: []string{}, PackagesRemoved: []string{}, Archives: []ArchiveChange{}}
	oldPkgs, newPkgs := byName(old.Packages), byName(new.Packages)
	for _, name := range sortedKeys(newPkgs) {
		if _, ok := oldPkgs[name]; !ok {
			c.PackagesAdded = append(c.PackagesAdded, name)
		}
	}
	for _, name := range sortedKeys(oldPkgs) {
		np, ok := newPkgs[name]
		if !ok {
			c.PackagesRemoved = append(c.PackagesRemoved, name)
			continue
		}
		c.Archives = append(c.Archives, diffPackage(oldPkgs[name], np)...)
	}
	return c
}

func byName(pkgs []Package) map[string]Package {
	m := map[string]Package{}
	for _, p := range pkgs {
		m[p.Name] = p
	}
	return m
}

func archiveKey(a Archive) string { return a.Platform + "/" + a.Variant.String() }

func diffPackage(op, np Package) []ArchiveChange {
	olds, news := map[string]Archive{}, map[string]Archive{}
	for _, a := range op.Archives {
		olds[archiveKey(a)] = a
	}
	for _, a := range np.Archives {
		news[archiveKey(a)] = a
	}
	keys := map[string]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	var out []ArchiveChange
	for _, k := range sortedKeys(keys) {
		o, inOld := olds[k]
		n, inNew := news[k]
		ch := ArchiveChange{Package: np.Name}
		switch {
		case !inOld:
			ch.Platform, ch.Variant, ch.Added = n.Platform, n.Variant, true
		case !inNew:
			ch.Platform, ch.Variant, ch.Removed = o.Platform, o.Variant, true
		default:
			ch.Platform, ch.Variant = n.Platform, n.Variant
			ch.OutputsGained, ch.OutputsLost = setDiff(o.Outputs, n.Outputs)
			ch.SASSGained, ch.SASSLost = setDiff(o.SASS, n.SASS)
			ch.PTXGained, ch.PTXLost = setDiff(o.PTX, n.PTX)
			ch.SonamesAdded, ch.SonamesRemoved = setDiff(o.Provides, n.Provides)
			ch.VendoredAdded, ch.VendoredRemoved = setDiff(vendoredNames(o.Vendored), vendoredNames(n.Vendored))
			ch.LoadsAdded, ch.LoadsRemoved = setDiff(o.RuntimeLoads, n.RuntimeLoads)
			if op.Version == np.Version && o.NarHash != n.NarHash {
				ch.NarHashChanged, ch.OldNarHash, ch.NewNarHash, ch.Version = true, o.NarHash, n.NarHash, np.Version
			}
			if !ch.changed() {
				continue
			}
		}
		fill(&ch)
		out = append(out, ch)
	}
	return out
}

func (c ArchiveChange) changed() bool {
	return c.Added || c.Removed || c.NarHashChanged ||
		len(c.OutputsGained)+len(c.OutputsLost)+len(c.SASSGained)+len(c.SASSLost)+
			len(c.PTXGained)+len(c.PTXLost)+len(c.SonamesAdded)+len(c.SonamesRemoved)+len(c.VendoredAdded)+len(c.VendoredRemoved)+
			len(c.LoadsAdded)+len(c.LoadsRemoved) > 0
}

// fill makes nil lists empty, so the JSON has [] rather than null.
func fill(c *ArchiveChange) {
	for _, l := range []*[]string{&c.OutputsGained, &c.OutputsLost, &c.SASSGained, &c.SASSLost, &c.PTXGained, &c.PTXLost, &c.SonamesAdded, &c.SonamesRemoved} {
		if *l == nil {
			*l = []string{}
		}
	}
}

// setDiff returns what is in b and not a (gained), and in a not b (lost),
// keeping the input order.
func setDiff(a, b []string) (gained, lost []string) {
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	for _, s := range b {
		if !ia[s] {
			gained = append(gained, s)
		}
	}
	for _, s := range a {
		if !ib[s] {
			lost = append(lost, s)
		}
	}
	return gained, lost
}

// Empty says whether nothing changed.
func (c *Changes) Empty() bool {
	return len(c.PackagesAdded)+len(c.PackagesRemoved)+len(c.Archives) == 0
}

// WriteText writes the changes as plain text for a commit message or a
// pull request description.
func (c *Changes) WriteText(w io.Writer, redist string) error {
	// Every name escaped, newline included: a name cannot add a line
	// (a trailer such as Signed-off-by, say) to a commit message.
	lin := c.Lineage // escapes its own names
	c, redist = c.escaped(), safetext.Escape(redist)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s -> %s\n", redist, c.Old, c.New)
	if c.Empty() {
		b.WriteString("\nNo changes in packages, outputs, architectures, sonames or NAR hashes.\n")
	}
	list := func(title string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(&b, "\n%s:\n", title)
			for _, s := range items {
				fmt.Fprintf(&b, "- %s\n", s)
			}
		}
	}
	list("Packages added", c.PackagesAdded)
	list("Packages removed", c.PackagesRemoved)
	byPkg := map[string][]ArchiveChange{}
	for _, a := range c.Archives {
		byPkg[a.Package] = append(byPkg[a.Package], a)
	}
	names := sortedKeys(byPkg)
	if len(names) > 0 {
		b.WriteString("\nChanged packages:\n")
	}
	for _, name := range names {
		fmt.Fprintf(&b, "- %s\n", name)
		for _, a := range byPkg[name] {
			fmt.Fprintf(&b, "  - %s\n", a.textLine())
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if lin != nil {
		return lin.WriteText(w)
	}
	return nil
}

// textLine is the archive's line of WriteText: where, then what changed.
func (a ArchiveChange) textLine() string {
	where := a.Platform
	if a.Variant != manifest.NoVariant {
		where += " " + a.Variant.String()
	}
	switch {
	case a.Added:
		return where + ": new archive"
	case a.Removed:
		return where + ": archive removed"
	}
	var parts []string
	add := func(label string, gained, lost []string) {
		if len(gained) > 0 {
			parts = append(parts, label+" +"+strings.Join(gained, " +"))
		}
		if len(lost) > 0 {
			parts = append(parts, label+" -"+strings.Join(lost, " -"))
		}
	}
	add("outputs", a.OutputsGained, a.OutputsLost)
	add("SASS", a.SASSGained, a.SASSLost)
	add("PTX", a.PTXGained, a.PTXLost)
	add("sonames", a.SonamesAdded, a.SonamesRemoved)
	add("vendored", a.VendoredAdded, a.VendoredRemoved)
	add("runtime loads", a.LoadsAdded, a.LoadsRemoved)
	if a.NarHashChanged {
		parts = append(parts, fmt.Sprintf("narHash changed with the same version %s (%s -> %s)", a.Version, a.OldNarHash, a.NewNarHash))
	}
	return where + ": " + strings.Join(parts, "; ")
}

// escaped is a copy of c with every name made safe (safetext.Escape).
func (c *Changes) escaped() *Changes {
	list := func(l []string) []string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = safetext.Escape(s)
		}
		return out
	}
	e := &Changes{Old: safetext.Escape(c.Old), New: safetext.Escape(c.New), PackagesAdded: list(c.PackagesAdded), PackagesRemoved: list(c.PackagesRemoved)}
	for _, a := range c.Archives {
		a.Package, a.Platform, a.Variant, a.Version = safetext.Escape(a.Package), safetext.Escape(a.Platform), manifest.Variant(safetext.Escape(string(a.Variant))), safetext.Escape(a.Version)
		a.OldNarHash, a.NewNarHash = safetext.Escape(a.OldNarHash), safetext.Escape(a.NewNarHash)
		a.OutputsGained, a.OutputsLost = list(a.OutputsGained), list(a.OutputsLost)
		a.SASSGained, a.SASSLost, a.PTXGained, a.PTXLost = list(a.SASSGained), list(a.SASSLost), list(a.PTXGained), list(a.PTXLost)
		a.SonamesAdded, a.SonamesRemoved = list(a.SonamesAdded), list(a.SonamesRemoved)
		a.VendoredAdded, a.VendoredRemoved = list(a.VendoredAdded), list(a.VendoredRemoved)
		a.LoadsAdded, a.LoadsRemoved = list(a.LoadsAdded), list(a.LoadsRemoved)
		e.Archives = append(e.Archives, a)
	}
	return e
}
