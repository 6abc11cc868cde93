package manifest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestRealManifests parses every real NVIDIA manifest and checks the
// counts against an independent walk of the JSON.
func TestRealManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.Manifests(t), "*", "redistrib_*.json"))
	if len(files) < 19 {
		t.Fatalf("found %d manifests, want the 19 in manifests/", len(files))
	}
	total := 0
	for _, f := range files {
		m, err := manifest.ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		n := len(m.Archives())
		if n == 0 {
			t.Errorf("%s: no archives", f)
		}
		total += n
	}
	t.Logf("%d manifests, %d archives", len(files), total)
}

func TestParseLayouts(t *testing.T) {
	v3 := `{"release_date":"2025-01-01","libx":{"name":"X","license":"L","version":"1.2","cuda_variant":["11","12"],
	  "linux-x86_64":{"cuda11":{"relative_path":"libx/a_cuda11.tar.xz","sha256":"` + strings.Repeat("a", 64) + `","md5":"m","size":"1"},
	                  "cuda12":{"relative_path":"libx/a_cuda12.tar.xz","sha256":"` + strings.Repeat("b", 64) + `","md5":"m","size":"1"}}},
	  "src":{"name":"S","license":"L","version":"1","source":{"relative_path":"src/s.tar.xz","sha256":"` + strings.Repeat("c", 64) + `"}}}`
	m, err := manifest.Parse("v3.json", []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range m.Archives() {
		ids = append(ids, a.ID()+"="+a.VariantKey())
	}
	if got, want := strings.Join(ids, " "), "libx/linux-x86_64/cuda11=cuda11 libx/linux-x86_64/cuda12=cuda12 src/source=None"; got != want {
		t.Errorf("archives = %s, want %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	h := strings.Repeat("a", 64)
	tests := []struct{ name, json, want string }{
		{"broken JSON", `{"a":`, "manifest m.json: not valid JSON"},
		{"unknown platform", `{"p":{"version":"1","linux-riscv":{"relative_path":"x","sha256":"` + h + `"}}}`, `package p: unknown key "linux-riscv"`},
		{"unknown top-level scalar", `{"release_notes":"x"}`, `unknown top-level key "release_notes"`},
		{"unknown leaf field", `{"p":{"version":"1","linux-x86_64":{"relative_path":"x","sha256":"` + h + `","url":"u"}}}`, `platform linux-x86_64: unknown archive field "url"`},
		{"bad sha256", `{"p":{"version":"1","linux-x86_64":{"relative_path":"x","sha256":"XYZ"}}}`, `sha256 "XYZ" is not 64 lowercase hex digits`},
		{"escaping path", `{"p":{"version":"1","linux-x86_64":{"relative_path":"../x","sha256":"` + h + `"}}}`, `leaves the base URL`},
		{"variant not declared", `{"p":{"version":"1","cuda_variant":["12"],"linux-x86_64":{"cuda11":{"relative_path":"x","sha256":"` + h + `"}}}}`, `variant cuda11: not listed in cuda_variant`},
		{"no version", `{"p":{"name":"n"}}`, "package p: no version"},
		{"duplicate package", `{"p":{"version":"1"},"p":{"version":"2"}}`, `top level: duplicate key "p"`},
		{"duplicate platform", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a","sha256":"` + h + `"},"linux-x86_64":{"relative_path":"b","sha256":"` + h + `"}}}`, `package p: duplicate key "linux-x86_64"`},
		{"duplicate leaf key", `{"p":{"version":"1","linux-x86_64":{"cuda12":{"relative_path":"a","sha256":"` + h + `","sha256":"` + h + `"}}}}`, `package p: platform linux-x86_64: variant cuda12: duplicate key "sha256"`},
		{"deep nesting", strings.Repeat(`{"p":`, 100), "manifest m.json: package p: platform p: variant p: key p: and 60 keys deeper: nested too deeply: more than 64 arrays and objects inside each other (byte 321)"},
		{"trailing data", `{"p":{"version":"1"}} {}`, "data after the top-level value"},
		{"absolute path", `{"p":{"version":"1","linux-x86_64":{"relative_path":"/etc/x","sha256":"` + h + `"}}}`, `package p: platform linux-x86_64: relative_path "/etc/x" leaves the base URL`},
		{"dot component", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/./x","sha256":"` + h + `"}}}`, `relative_path "a/./x" is unsafe`},
		{"store-name character", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/x y.tar.xz","sha256":"` + h + `"}}}`, `relative_path "a/x y.tar.xz" is unsafe`},
		{"query character", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/x.tar.xz?y=1","sha256":"` + h + `"}}}`, `is unsafe`},
		{"hidden name", `{"p":{"version":"1","linux-x86_64":{"relative_path":"a/.x","sha256":"` + h + `"}}}`, `is unsafe`},
		{"long name", `{"p":{"version":"1","linux-x86_64":{"relative_path":"` + strings.Repeat("n", 181) + `","sha256":"` + h + `"}}}`, `file name longer than 180`},
		{"numeric variant", `{"p":{"version":"1","cuda_variant":[12]}}`, `cuda_variant holds Number, not a string`},
		{"empty variant list", `{"p":{"version":"1","cuda_variant":[],"linux-x86_64":{"cuda12":{"relative_path":"x","sha256":"` + h + `"}}}}`, `not listed in cuda_variant`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Parse("m.json", []byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"p":{"version":"1","cuda_variant":["12"],"linux-x86_64":{"cuda12":{"relative_path":"x","sha256":"` + strings.Repeat("a", 64) + `"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse("fuzz.json", data)
		if err == nil {
			for _, a := range m.Archives() {
				if a.RelativePath == "" || len(a.SHA256) != 64 {
					t.Fatalf("accepted archive %+v", a)
				}
			}
		}
	})
}

// TestGoldenEntryCounts writes (UPDATE_GOLDEN=1) or checks the number of
// archives the Go parser finds in each bundled manifest. nix/tests.nix
// compares the Nix walker's counts with the same file, so the two parsers
// are held to each other.
func TestGoldenEntryCounts(t *testing.T) {
	repo := testenv.RepoRoot()
	files, err := filepath.Glob(filepath.Join(repo, "manifests", "*", "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled manifests: %v", err)
	}
	counts := map[string]int{}
	for _, f := range files {
		m, err := manifest.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(repo, "manifests"), f)
		counts[filepath.ToSlash(rel)] = len(m.Archives())
	}
	data, err := features.Encode(counts)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(repo, "tests", "golden", "entry-counts.json")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != string(data) {
		t.Errorf("entry counts differ from %s:\n%s", golden, data)
	}
}
