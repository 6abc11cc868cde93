package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: Nix is not installed\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: NOT CHECKED: no patchelf\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n")
	var out strings.Builder
	ok, err := run(strings.NewReader(in), &out)
	if err != nil || !ok {
		t.Fatalf("run = %v, %v; want ok", ok, err)
	}
	for _, want := range []string{
		"ok  \tp\t0.1s\n",
		"SKIP p TestB: b_test.go:9: Nix is not installed\n",
		"NOT CHECKED p TestC: no patchelf\n",
		"2 passed, 0 failed, 1 skipped\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN") {
		t.Errorf("passing tests' output printed:\n%s", out.String())
	}
}

func TestRunFails(t *testing.T) {
	for name, in := range map[string]string{
		"test":  `{"Action":"output","Package":"p","Test":"TestF","Output":"    f_test.go:1: boom\n"}` + "\n" + `{"Action":"fail","Package":"p","Test":"TestF"}`,
		"build": `{"Action":"build-output","ImportPath":"p","Output":"x.go:1: syntax error\n"}` + "\n" + `{"Action":"build-fail","ImportPath":"p"}`,
		"text":  "# p\nnot json",
	} {
		var out strings.Builder
		ok, err := run(strings.NewReader(in), &out)
		if err != nil || ok {
			t.Errorf("%s: run = %v, %v; want not ok", name, ok, err)
		}
		if name == "test" && (!strings.Contains(out.String(), "--- FAIL in p:\n    f_test.go:1: boom") ||
			!strings.Contains(out.String(), "FAIL p TestF\n0 passed, 1 failed, 0 skipped\n")) {
			t.Errorf("failed test's output not printed:\n%s", out.String())
		}
		if name == "build" && !strings.Contains(out.String(), "syntax error") {
			t.Errorf("build error not printed:\n%s", out.String())
		}
	}
}
