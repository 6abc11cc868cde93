package nixfix

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/buildredist"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/declcheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// NewArchive is one archive of a package that has no package file yet.
type NewArchive struct {
	Platform string // hostRedistSystem: linux-x86_64, ...
	Variant  manifest.Variant
	Options  buildredist.Options
	Tree     features.Tree
}

// NewFile writes a package file for a package of redist that has none,
// in the shape of the real ones: the arguments it uses, buildRedist of
// a set with redistName, pname, the outputs every archive fills (a
// lib.optionals per platform or CUDA major where they differ, as
// print-buildredist writes them) and the flags the archives need.
func NewFile(redist, pname string, archives []NewArchive) (string, error) {
	if len(archives) == 0 {
		return "", fmt.Errorf("%s: no archive to write a package file from", pname)
	}
	facts := make([]aggregate.ArchiveFacts, len(archives))
	withVariant, without := false, false
	for i, a := range archives {
		v := a.Variant
		withVariant, without = withVariant || v != manifest.NoVariant, without || v == manifest.NoVariant
		if withVariant && without {
			// Conditions on cudaMajorVersion cannot tell a variant from
			// an archive for every CUDA version.
			return "", fmt.Errorf("%s has archives with and without CUDA variants; write its file by hand", pname)
		}
		facts[i] = aggregate.ArchiveFacts{Archive: manifest.Archive{Package: pname, Platform: a.Platform, Variant: v}, Facts: buildredist.Analyze(a.Tree, a.Options)}
	}
	decl, ok := aggregate.Declarations(facts)[pname]
	if !ok {
		return "", fmt.Errorf("%s: no Linux archive to write a package file from", pname)
	}
	outputs, err := formatOutputs(decl.NixExpression, "  ")
	if err != nil {
		return "", fmt.Errorf("%s: %w", pname, err)
	}
	hook, err := newFileHook(archives, facts, decl)
	if err != nil {
		return "", fmt.Errorf("%s: %w", pname, err)
	}
	var b strings.Builder
	b.WriteString(formals(decl.NixExpression))
	b.WriteString("buildRedist {\n")
	fmt.Fprintf(&b, "  redistName = %s;\n  pname = %s;\n\n  outputs = %s;\n", quote(redist), quote(pname), outputs)
	if hook != "" {
		b.WriteString("\n  includeRemoveStubsFromRunpathHook = " + hook + ";\n")
	}
	if decl.AllowFHSReferences {
		b.WriteString("\n  allowFHSReferences = true;\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// formals is the argument set: buildRedist and what the outputs
// expression uses, sorted, one a line as nixfmt writes two or more.
func formals(expr string) string {
	names := []string{"buildRedist"}
	for _, n := range []string{"backendStdenv.", "cudaMajorVersion", "lib."} {
		if strings.Contains(expr, n) {
			names = append(names, strings.TrimSuffix(n, "."))
		}
	}
	sort.Strings(names)
	if len(names) == 1 {
		return "{ " + names[0] + " }:\n"
	}
	return "{\n  " + strings.Join(names, ",\n  ") + ",\n}:\n"
}

// formatOutputs lays out an outputs expression (a list, then "++
// lib.optionals COND [ ... ]" terms) as nixfmt does: a list of two or
// more items expanded, each "++" term on a line of its own.
func formatOutputs(expr, indent string) (string, error) {
	src, err := locate("{ }: buildRedist { outputs = " + expr + "; }")
	if err != nil {
		return "", err
	}
	b, _ := src.binding("outputs")
	var out strings.Builder
	for i, t := range src.terms(b) {
		if t.opaque {
			return "", fmt.Errorf("cannot lay out %s", expr)
		}
		list := nixInline(values(t))
		if len(t.elems) >= 2 {
			list = nixExpanded(values(t), indent)
		}
		if i > 0 {
			cond := t.cond
			// ((a && b)): print-buildredist's parentheses around a pair.
			if f, l := t.condFirst, t.condLast; src.is(f, "(") && src.is(f+1, "(") && src.match[f+1] == l-1 {
				cond = src.span(f+1, l-1)
			}
			out.WriteString("\n" + indent + "++ lib.optionals " + cond + " ")
		}
		out.WriteString(list)
	}
	return out.String(), nil
}

// newFileHook is the includeRemoveStubsFromRunpathHook binding a new
// file needs: none when its default (stubs declared) suits every
// archive, else the value that does.
func newFileHook(archives []NewArchive, facts []aggregate.ArchiveFacts, decl features.BuildRedistDecl) (string, error) {
	fits := func(hook *bool) bool {
		for i, a := range archives {
			if strings.HasPrefix(a.Platform, "windows") {
				continue
			}
			v := facts[i].Variant.String() // buildRedist.json's key
			d := declcheck.Declaration{Outputs: decl.OutputsByPlatform[a.Platform][v], IncludeRemoveStubsFromRunpathHook: hook, AllowFHSReferences: true}
			for _, f := range declcheck.Check(a.Tree, d, a.Options) {
				if f.Error {
					return false
				}
			}
		}
		return true
	}
	t, f := true, false
	switch {
	case fits(nil):
		return "", nil
	case fits(&t):
		return "true", nil
	case fits(&f):
		return "false", nil
	}
	return "", fmt.Errorf("no outputs list and stubs hook suit every archive")
}
