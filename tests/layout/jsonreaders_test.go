package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// decoders are the calls that turn JSON text into values: package
// selector and function name.
var decoders = map[string][]string{
	"json":       {"Unmarshal", "NewDecoder"},
	"jsonschema": {"UnmarshalJSON"},
	"gjson":      {"Parse", "ParseBytes", "Get", "GetBytes", "GetMany", "GetManyBytes"},
}

// unguarded are the functions that decode JSON without lib/jsoncheck in
// the same function, each with the reason that is safe. A new reader must
// call jsoncheck (Check or Unmarshal) first, or be argued for here.
var unguarded = map[string]string{
	"lib/manifest/manifest.go: Parse":           "gjson reads data CheckJSON (jsoncheck) passed, a few lines up",
	"lib/manifest/manifest.go: init":            "keys.json is embedded in the binary",
	"lib/manifest/manifest.go: leafFields":      "parts of a manifest Parse checked whole, marshalled a line up",
	"lib/manifest/versions.go: BaseURL":         "base-urls.json is embedded in the binary",
	"lib/features/encode.go: Encode":            "decodes what json.Marshal just wrote",
	"lib/features/features.go: UnmarshalJSON":   "a part of a document its reader checked whole",
	"lib/builderattrs/attrs.go: NarHashOf":      "parts of the attributes Load checked whole",
	"lib/check/pkgeval/pkgeval.go: result":      "a part of the output Evaluate checked whole",
	"lib/check/schema/identify.go: toJSONValue": "the package's own schema documents, marshalled a line up",
	"lib/nixdriver/settings.go: scalar":         "a value of the output ParseSettings checked whole",
	"lib/nixdriver/settings.go: list":           "a value of the output ParseSettings checked whole",
}

// TestEveryJSONReaderIsGuarded finds every call that decodes JSON in the
// program (tests aside) and wants lib/jsoncheck called in the same
// function, or the function listed in unguarded with its reason: so no
// reader of hostile input can skip the depth and duplicate-key check.
func TestEveryJSONReaderIsGuarded(t *testing.T) {
	found := map[string]bool{}
	n := 0
	eachProgramFile(t, func(r string, f *ast.File) {
		for fn, guarded := range jsonReaders(f) {
			n++
			key := r + ": " + fn
			found[key] = true
			_, listed := unguarded[key]
			switch {
			case guarded && listed:
				t.Errorf("%s calls jsoncheck: take it off the unguarded list", key)
			case !guarded && !listed:
				t.Errorf("%s decodes JSON without lib/jsoncheck: call jsoncheck.Unmarshal (or Check first), or list it in unguarded with the reason it is safe", key)
			}
		}
	})
	var stale []string
	for k := range unguarded {
		if !found[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("unguarded lists %s, which decodes no JSON (any more)", k)
	}
	if n < 5 {
		t.Fatalf("found only %d functions that decode JSON: the search is broken", n)
	}
}

// programFile says whether the walk reads p (r relative to the root):
// the program's Go files, not tests, scripts, vendor/ or lib/jsoncheck
// itself. It returns filepath.SkipDir for a directory left out.
func programFile(r string, d fs.DirEntry) (read bool, err error) {
	if d.IsDir() {
		if r == "vendor" || r == "tests" || r == "scripts" || r == "lib/jsoncheck" || strings.HasPrefix(d.Name(), ".") && r != "." {
			return false, filepath.SkipDir
		}
		return false, nil
	}
	return strings.HasSuffix(r, ".go") && !strings.HasSuffix(r, "_test.go"), nil
}

// eachProgramFile calls fn with each Go file of the program (programFile),
// by its path relative to the repository's root, parsed.
func eachProgramFile(t *testing.T, fn func(r string, f *ast.File)) {
	t.Helper()
	root := testenv.RepoRoot()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		if read, err := programFile(r, d); !read || err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		fn(r, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsonReaders are the functions of the Go file f that decode JSON, each
// with whether it calls lib/jsoncheck.
func jsonReaders(f *ast.File) map[string]bool {
	readers := map[string]bool{}
	for _, decl := range f.Decls {
		fn, body := funcOf(decl)
		if body == nil {
			continue
		}
		if decodes, guarded := jsonCalls(body); decodes {
			readers[fn] = guarded
		}
	}
	return readers
}

// jsonCalls says whether body calls a JSON decoder, and whether it calls
// lib/jsoncheck.
func jsonCalls(body ast.Node) (decodes, guarded bool) {
	ast.Inspect(body, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		guarded = guarded || pkg.Name == "jsoncheck"
		decodes = decodes || slices.Contains(decoders[pkg.Name], sel.Sel.Name)
		return true
	})
	return decodes, guarded
}

// funcOf names a function declaration (package-level variables
// initialised by a function literal are "init").
func funcOf(decl ast.Decl) (string, ast.Node) {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Body == nil { // an assembly function
			return "", nil
		}
		return d.Name.Name, d.Body
	case *ast.GenDecl:
		if d.Tok == token.VAR {
			return "init", d
		}
	}
	return "", nil
}
