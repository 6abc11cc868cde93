package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// summary accumulates the run.
type summary struct {
	passed, failed, skipped int
	broken                  bool                // a package or build failed
	output                  map[string][]string // per package/test, until it ends
	skips, notChecked       []string
	failures                []string
}

func key(e event) string { return e.Package + " " + e.Test }

// reason keeps the lines a test logged, less go test's own framing.
func reason(lines []string) string {
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " / ")
}

func (s *summary) add(e event, w io.Writer) {
	if e.Test == "" {
		switch e.Action {
		case "output", "build-output":
			// Package lines ("ok  pkg 1.2s", "FAIL pkg") and build errors.
			fmt.Fprint(w, e.Output)
		case "fail", "build-fail":
			s.broken = true
		}
		return
	}
	k := key(e)
	switch e.Action {
	case "output":
		s.output[k] = append(s.output[k], e.Output)
		if i := strings.Index(e.Output, "NOT CHECKED: "); i >= 0 {
			s.notChecked = append(s.notChecked, fmt.Sprintf("%s %s: %s", e.Package, e.Test,
				strings.TrimSpace(e.Output[i+len("NOT CHECKED: "):])))
		}
	case "pass":
		s.passed++
		delete(s.output, k)
	case "skip":
		s.skipped++
		s.skips = append(s.skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(s.output[k])))
		delete(s.output, k)
	case "fail":
		s.failed++
		s.failures = append(s.failures, e.Package+" "+e.Test)
		// Packages run in parallel, so name the package above the output.
		fmt.Fprintf(w, "--- FAIL in %s:\n%s", e.Package, strings.Join(s.output[k], ""))
		delete(s.output, k)
	}
}

func (s *summary) report(w io.Writer) {
	sort.Strings(s.skips)
	sort.Strings(s.notChecked)
	fmt.Fprintf(w, "\n== skipped tests (%d)\n", len(s.skips))
	for _, l := range s.skips {
		fmt.Fprintln(w, "SKIP", l)
	}
	fmt.Fprintf(w, "== checks left out (%d)\n", len(s.notChecked))
	for _, l := range s.notChecked {
		fmt.Fprintln(w, "NOT CHECKED", l)
	}
	sort.Strings(s.failures)
	for _, l := range s.failures {
		fmt.Fprintln(w, "FAIL", l)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
}

func run(r io.Reader, w io.Writer) (ok bool, err error) {
	s := &summary{output: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// go test writes some errors (e.g. a package that does not
			// build under -json on older Go) as plain text: pass them on.
			fmt.Fprintln(w, sc.Text())
			s.broken = true
			continue
		}
		s.add(e, w)
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("reading go test -json: %w", err)
	}
	s.report(w)
	return s.failed == 0 && !s.broken, nil
}

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ok, err := run(os.Stdin, os.Stdout)
	if err != nil {
		logger.Error("testsummary", "err", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}
