package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestOneDetectedArchiveType finds every struct type of the program
// (tests aside) that holds an archive (manifest.Archive) and its detection
// (*features.Features) side by side, and wants none outside lib/manifest:
// an archive with its detection is manifest.DetectedArchive, which every
// stage after detect imports (it once was defined in lib/aggregate,
// lib/runtimedeps and lib/check/vendored apart, each with its copying
// from one to the other). A type that carries more embeds it.
func TestOneDetectedArchiveType(t *testing.T) {
	root := testenv.RepoRoot()
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		if read, err := programFile(r, d); !read || err != nil {
			return err
		}
		if filepath.Dir(r) == "lib/manifest" {
			return nil
		}
		types, err := archiveWithFeatures(p)
		for _, name := range types {
			found = append(found, r+": "+name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s holds a manifest.Archive and its *features.Features: use (or embed) manifest.DetectedArchive", f)
	}
}

// archiveWithFeatures names the struct types of the Go file p with a
// field of type manifest.Archive (embedded or named) and one of type
// *features.Features.
func archiveWithFeatures(p string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
	if err != nil {
		return nil, err
	}
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
	return out, nil
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
