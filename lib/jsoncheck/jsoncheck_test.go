package jsoncheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func TestAccepts(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `1`, `"x"`, `null`, ` {"a":[1,{"b":{}}],"c":"d"} `,
		`{"a":{"x":1},"b":{"x":1}}`, // the same key in two objects
		`[[[[1]]],[[2]]]`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	} {
		if err := Check([]byte(in)); err != nil {
			t.Errorf("Check(%.40q) = %v, want nil", in, err)
		}
	}
}

func TestRefuses(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, c := range []struct {
		in   string
		kind error
		want string
	}{
		{``, ErrSyntax, "not valid JSON: no JSON value (byte 0)"},
		{`{"a": [1, {"b": 2}`, ErrSyntax, "not valid JSON: the input ends with arrays or objects still open (2) (byte 18)"},
		{`{"a":`, ErrSyntax, "not valid JSON"},
		{`{"a":1} {}`, ErrSyntax, "data after the top-level value"},
		{`{"a":1,"a":2}`, ErrDuplicate, `top level: duplicate key "a" (byte 10)`},
		{`{"p":{"q":[{"x":1,"x":1}]}}`, ErrDuplicate, `at "p"."q": duplicate key "x"`},
		{`{"narHash":1,"NarHash":2}`, ErrDuplicate, `top level: duplicate key "NarHash"`},
		{`{"k":1,"K":2}`, ErrDuplicate, `duplicate key`},
		{deep, ErrDepth, "top level: nested too deeply: more than 64 arrays and objects inside each other (byte 65)"},
		{`{"a":` + deep[:MaxDepth] + `{"b":1}`, ErrDepth, `at "a": nested too deeply`},
		{strings.Repeat(`{"`+strings.Repeat("k", 100)+`":`, 100), ErrDepth, `at "` + strings.Repeat("k", 64) + `...".`},
		{strings.Repeat(`{"k":`, 100), ErrDepth, `at "k"."k"."k"."k" and 60 keys deeper: nested too deeply`},
	} {
		err := Check([]byte(c.in))
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%.40q) = %v, want %v containing %q", c.in, err, c.kind, c.want)
		}
	}
}

// TestManyKeys crosses from the list of keys to the set.
func TestManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1,`)
	}
	ok := b.String() + `"end":1}`
	if err := Check([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	if err := Check([]byte(b.String() + `"kxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx":2}`)); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate after the 17th key: %v", err)
	}
}

// TestHostileNesting: millions of open brackets are refused at the
// limit, having read only what came before it.
func TestHostileNesting(t *testing.T) {
	for _, open := range []string{"[", `{"a":`, `{"` + strings.Repeat("k", 1000) + `":`} {
		in := bytes.Repeat([]byte(open), 1<<20)
		err := Check(in)
		var e *Error
		if !errors.As(err, &e) || e.Kind != ErrDepth {
			t.Fatalf("%q × 2^20: %v, want a depth error", open, err)
		}
		if e.Offset > int64(len(open)*(MaxDepth+1)+4096) {
			t.Errorf("%q × 2^20: refused at byte %d, after the limit", open, e.Offset)
		}
	}
}

// TestRealFilesFarFromTheLimit holds MaxDepth's comment to the real
// files: every JSON file of the repository and of the shared data nests
// at most a quarter of the limit, and passes.
func TestRealFilesFarFromTheLimit(t *testing.T) {
	root := testenv.RepoRoot()
	dirs := []string{root}
	if d := "/work/shared/data"; dirExists(d) {
		dirs = append(dirs, d)
	}
	n := 0
	for _, p := range jsonFiles(t, dirs) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			continue // not a JSON file of ours (a deliberately broken fixture)
		}
		n++
		if err := CheckDepth(data, MaxDepth/4); err != nil && !errors.Is(err, ErrDuplicate) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if n < 40 {
		t.Fatalf("only %d JSON files found", n)
	}
	t.Logf("%d JSON files nest at most %d deep", n, MaxDepth/4)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// reference is the recursive check Check replaces, with a depth count:
// fine for the small inputs of the fuzzer.
func reference(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return ErrSyntax
	}
	switch tok {
	case json.Delim('{'), json.Delim('['):
		if depth >= MaxDepth {
			return ErrDepth
		}
		// Keys equal but for case are the same key (encoding/json folds
		// them): compared pairwise with strings.EqualFold, independently
		// of Check's folding.
		var seen []string
		for dec.More() {
			if tok == json.Delim('{') {
				kt, err := dec.Token()
				if err != nil {
					return ErrSyntax
				}
				k, _ := kt.(string)
				for _, s := range seen {
					if strings.EqualFold(s, k) {
						return ErrDuplicate
					}
				}
				seen = append(seen, k)
			}
			if err := reference(dec, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return ErrSyntax
		}
	}
	return nil
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":2}]}`, `{"a":1,"a":2}`, `[[[]]]`, `{"a":{"b":{"c":[]}}}`, `1 2`, `"\u00e9"`,
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkProperties)
}

// checkProperties: Check accepts only valid JSON, its errors are *Error
// with an offset in the input, and on valid JSON it agrees with reference.
func checkProperties(t *testing.T, data []byte) {
	err := Check(data)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(data)) {
			t.Fatalf("error %v: not an *Error with an offset in the input", err)
		}
	}
	if !json.Valid(data) {
		// Accepted, or refused for another reason than its syntax.
		if err == nil || !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrDepth) && !errors.Is(err, ErrDuplicate) {
			t.Fatalf("invalid JSON %q: %v", data, err)
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // as Check: a number too large for a float is still JSON
	want := reference(dec, 0)
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("Check(%q) = %v, reference says %v", data, err, want)
	}
}

// jsonFiles are the .json files below dirs, but vendor/, .git, fuzz
// corpora and hostile fixtures.
func jsonFiles(t *testing.T, dirs []string) []string {
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "vendor" || d.Name() == ".git" || strings.Contains(p, "testdata/fuzz")) {
				return filepath.SkipDir
			}
			if strings.HasSuffix(p, ".json") && !strings.Contains(p, "hostile") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}
