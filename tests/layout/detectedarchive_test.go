package layout_test

import (
	"go/ast"
	"path/filepath"
	"sort"
	"testing"
)

// TestOneDetectedArchiveType finds every struct type of the program
// (tests aside) that holds an archive (manifest.Archive) and its detection
// (*features.Features) side by side, and wants none outside lib/manifest:
// an archive with its detection is manifest.DetectedArchive, which every
// stage after detect imports (it once was defined in lib/aggregate,
// lib/runtimedeps and lib/check/vendored apart, each with its copying
// from one to the other). A type that carries more embeds it.
func TestOneDetectedArchiveType(t *testing.T) {
	var found []string
	eachProgramFile(t, func(r string, f *ast.File) {
		if filepath.Dir(r) == "lib/manifest" {
			return
		}
		for _, name := range archiveWithFeatures(f) {
			found = append(found, r+": "+name)
		}
	})
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s holds a manifest.Archive and its *features.Features: use (or embed) manifest.DetectedArchive", f)
	}
}

// archiveWithFeatures names the struct types of the Go file f with a
// field of type manifest.Archive (embedded or named) and one of type
// *features.Features.
func archiveWithFeatures(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := spec.Type.(*ast.StructType)
		if !ok {
			return true
		}
		var archive, feats bool
		for _, field := range st.Fields.List {
			archive = archive || isSelector(field.Type, "manifest", "Archive")
			if star, ok := field.Type.(*ast.StarExpr); ok {
				feats = feats || isSelector(star.X, "features", "Features")
			}
		}
		if archive && feats {
			out = append(out, spec.Name.Name)
		}
		return true
	})
	return out
}

// isSelector says whether e is pkg.name.
func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == name
}
