package pkgeval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/ansi"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// Case is one platform, CUDA version and manifest to evaluate the files for.
type Case struct {
	// Platform is the hostRedistSystem (linux-x86_64, linux-sbsa, linux-aarch64).
	Platform    string `json:"platform"`
	CudaVersion string `json:"cudaVersion"`
	// RedistName: files whose redistName differs are skipped for this case.
	RedistName string `json:"redistName"`
	// Releases maps the manifest's packages to their versions
	// (finalAttrs.version).
	Releases map[string]string `json:"releases"`
}

// Result is a package file's buildRedist arguments for one Case.
type Result struct {
	// Error is Nix's message when the file does not evaluate for this case.
	Error string `json:"-"`
	// DepsError: the file evaluates, but not its inputs (Nix's message).
	DepsError string `json:"-"`
	// NotBuildRedist: the file returns something other than a buildRedist call.
	NotBuildRedist bool `json:"-"`
	// Skip: the file belongs to another redist than the case's.
	Skip bool `json:"skip"`

	Pname                             string   `json:"pname"`
	RedistName                        string   `json:"redistName"`
	Version                           string   `json:"version"`
	Outputs                           []string `json:"outputs"`
	IncludeRemoveStubsFromRunpathHook *bool    `json:"includeRemoveStubsFromRunpathHook"`
	AllowFHSReferences                bool     `json:"allowFHSReferences"`
	// BuildInputs and PropagatedBuildInputs are package names: an argument
	// stands for its own name, lib.getLib x is x.
	BuildInputs           []string `json:"buildInputs"`
	PropagatedBuildInputs []string `json:"propagatedBuildInputs"`
	// IgnoreMissingDeps is autoPatchelfIgnoreMissingDeps; IgnoreAllMissingDeps
	// when it is true.
	IgnoreMissingDeps    []string `json:"-"`
	IgnoreAllMissingDeps bool     `json:"-"`
	HasDeps              bool     `json:"-"`
	// AppendRunpaths are the strings of appendRunpaths ("${lib.getLib
	// cuda_nvrtc}/lib" reads /nix/store/<zeros>-cuda_nvrtc/lib: see
	// RunpathPackages); RuntimeDependencies package names. Where the
	// file makes a library's run-time loads reachable.
	AppendRunpaths      []string `json:"appendRunpaths"`
	RuntimeDependencies []string `json:"runtimeDependencies"`
}

// standInPath is the store path a stand-in package interpolates to
// (nix/buildredist-standin.nix, package), which names the package.
var standInPath = regexp.MustCompile(`/nix/store/0{32}-([A-Za-z0-9_+.-]+)`)

// RunpathPackages are the packages whose directories appendRunpaths
// names, in order.
func (r Result) RunpathPackages() []string {
	var out []string
	for _, s := range r.AppendRunpaths {
		for _, m := range standInPath.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// OK reports whether the file evaluated to a buildRedist call of the case's redist.
func (r Result) OK() bool { return r.Error == "" && !r.Skip && !r.NotBuildRedist }

// rawResult is what the Nix side writes.
type rawResult struct {
	Result
	BuildRedist                   *bool           `json:"buildRedist"`
	AutoPatchelfIgnoreMissingDeps json.RawMessage `json:"autoPatchelfIgnoreMissingDeps"`
}

func (raw rawResult) result() (Result, error) {
	r := raw.Result
	if raw.BuildRedist != nil && !*raw.BuildRedist {
		r.NotBuildRedist = true
	}
	if len(raw.AutoPatchelfIgnoreMissingDeps) > 0 {
		r.HasDeps = true
		if err := json.Unmarshal(raw.AutoPatchelfIgnoreMissingDeps, &r.IgnoreAllMissingDeps); err != nil {
			if err := json.Unmarshal(raw.AutoPatchelfIgnoreMissingDeps, &r.IgnoreMissingDeps); err != nil {
				return r, fmt.Errorf("autoPatchelfIgnoreMissingDeps: %w", err)
			}
		}
	}
	return r, nil
}

// Evaluator runs nix-instantiate over nix/buildredist-standin.nix.
type Evaluator struct {
	// StandIn is the path of buildredist-standin.nix.
	StandIn string
	// NixpkgsLib is the lib/ directory of a Nixpkgs checkout to use
	// instead of the stand-in lib ("" for the stand-in).
	NixpkgsLib string
	// Options are passed as --option NAME VALUE.
	Options [][2]string
	// Jobs bounds the nix-instantiate processes run at once (default 2).
	Jobs int
	// Log receives Nix's warnings and traces of successful evaluations.
	Log io.Writer
	// Timeout and MaxMemory bound each nix-instantiate (its time, and its
	// address space in bytes); 0 for DefaultTimeout, DefaultMaxMemory. A
	// file that runs away is an error of its own; the others are still
	// evaluated.
	Timeout   time.Duration
	MaxMemory int64
	// Trace keeps Nix's "… while evaluating" trace lines in an error's
	// message, before its cause (check-nixpkgs -v).
	Trace bool

	// onNixError, when set, is given each failed run's stderr as Nix
	// wrote it (the tests capture Nix's error texts with it).
	onNixError func(stderr string)
	runs       atomic.Int64
	// timedOut counts the runs stopped by the time bound.
	timedOut atomic.Int64
}

// Runs is how many nix-instantiate processes the evaluator started.
func (e *Evaluator) Runs() int64 { return e.runs.Load() }

// request is the JSON the Nix side reads.
type request struct {
	Dir        string   `json:"dir"`
	Files      []string `json:"files"`
	NixpkgsLib *string  `json:"nixpkgsLib"`
	WithDeps   bool     `json:"withDeps"`
	// Allowed are the paths the evaluation may read (pathExists answers
	// only for them).
	Allowed []string `json:"allowed"`
	Cases   []Case   `json:"cases"`
}

// evalError is a failed evaluation: Nix ran and printed an error, or a
// bound stopped it (bound).
type evalError struct {
	message string
	bound   bool
	// stderr is what Nix printed (for an error Nix gave, not a bound's).
	stderr string
}

func (e *evalError) Error() string { return e.message }

// Evaluate evaluates every file (relative to dir) for every case.
// The result maps each file to one Result per case, in the order of cases.
// The error is only for what stops everything (Nix missing, a temporary
// file that cannot be written, output that is not the expected JSON).
func (e *Evaluator) Evaluate(ctx context.Context, dir string, files []string, cases []Case) (map[string][]Result, error) {
	if len(files) == 0 || len(cases) == 0 {
		return map[string][]Result{}, nil
	}
	all, err := e.run(ctx, dir, files, cases, true)
	if err == nil {
		return all, nil
	}
	var ee *evalError
	if !errors.As(err, &ee) {
		return nil, err
	}
	// Some file fails: find it by halving the set, so one broken file
	// among n costs about 2·log2(n) runs rather than n.
	out := make(map[string][]Result, len(files))
	var mu sync.Mutex
	put := func(file string, rs []Result) {
		mu.Lock()
		out[file] = rs
		mu.Unlock()
	}
	jobs := e.Jobs
	if jobs < 1 {
		jobs = 2
	}
	slots := make(chan struct{}, jobs)
	next := e.split
	if ee.bound {
		next = e.each
	}
	if err := next(ctx, dir, files, cases, slots, put); err != nil {
		return nil, err
	}
	return out, nil
}

// each evaluates the files one by one (cap(slots) at once). It follows a
// run stopped by a bound: halving would take the whole bound once per
// level, one by one takes it once more (for the runaway file), plus a
// short run per other file.
func (e *Evaluator) each(ctx context.Context, dir string, files []string, cases []Case, slots chan struct{}, put func(string, []Result)) error {
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	for i, file := range files {
		wg.Add(1)
		go func(i int, file string) {
			defer wg.Done()
			errs[i] = e.split(ctx, dir, []string{file}, cases, slots, put)
		}(i, file)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// split evaluates the two halves of files, a set known to fail, each as
// one run, and splits again the halves that fail; a file alone goes to
// e.file. At most cap(slots) nix-instantiate processes run at once.
func (e *Evaluator) split(ctx context.Context, dir string, files []string, cases []Case, slots chan struct{}, put func(string, []Result)) error {
	if len(files) == 1 {
		slots <- struct{}{}
		rs, err := e.file(ctx, dir, files[0], cases)
		<-slots
		if err != nil {
			return err
		}
		put(files[0], rs)
		return nil
	}
	mid := len(files) / 2
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, half := range [][]string{files[:mid], files[mid:]} {
		wg.Add(1)
		go func(i int, half []string) {
			defer wg.Done()
			errs[i] = e.group(ctx, dir, half, cases, slots, put)
		}(i, half)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// group evaluates files in one run, and splits them when that fails.
func (e *Evaluator) group(ctx context.Context, dir string, files []string, cases []Case, slots chan struct{}, put func(string, []Result)) error {
	if len(files) == 1 {
		return e.split(ctx, dir, files, cases, slots, put)
	}
	slots <- struct{}{}
	got, err := e.run(ctx, dir, files, cases, true)
	<-slots
	var ee *evalError
	switch {
	case err == nil:
		for file, rs := range got {
			put(file, rs)
		}
		return nil
	case errors.As(err, &ee) && ee.bound:
		return e.each(ctx, dir, files, cases, slots, put)
	case errors.As(err, &ee):
		return e.split(ctx, dir, files, cases, slots, put)
	}
	return err
}

// file evaluates one file for all cases, then case by case when that fails.
func (e *Evaluator) file(ctx context.Context, dir, file string, cases []Case) ([]Result, error) {
	got, err := e.run(ctx, dir, []string{file}, cases, true)
	if err == nil {
		return got[file], nil
	}
	var ee *evalError
	if !errors.As(err, &ee) {
		return nil, err
	}
	if len(cases) == 1 && !ee.bound {
		return []Result{e.oneCase(ctx, dir, file, cases[0], ee.message)}, nil
	}
	// A file that ran into a bound would most likely do so again in each
	// case, each time taking the whole bound: it is reported as it is.
	if ee.bound {
		rs := make([]Result, len(cases))
		for i := range rs {
			rs[i] = Result{Error: ee.message}
		}
		return rs, nil
	}
	// A file that does not parse fails every case alike: one run says so,
	// rather than two per case.
	if msg, err := e.parse(ctx, dir, file); err != nil {
		return nil, err
	} else if msg != "" {
		rs := make([]Result, len(cases))
		for i := range rs {
			rs[i] = Result{Error: msg}
		}
		return rs, nil
	}
	rs := make([]Result, len(cases))
	for i, c := range cases {
		one, err := e.run(ctx, dir, []string{file}, []Case{c}, true)
		switch {
		case err == nil:
			rs[i] = one[file][0]
		case errors.As(err, &ee):
			rs[i] = e.oneCase(ctx, dir, file, c, ee.message)
		default:
			return nil, err
		}
	}
	return rs, nil
}

// parse returns Nix's message when file is not a valid Nix expression
// (syntax error, duplicate argument), "" when it parses.
func (e *Evaluator) parse(ctx context.Context, dir, file string) (string, error) {
	_, _, err := e.nixInstantiate(ctx, dir, allowedPaths(dir), "--parse", filepath.Join(dir, filepath.FromSlash(file)))
	var ee *evalError
	if errors.As(err, &ee) {
		return ee.message, nil
	}
	if err != nil {
		return "", fmt.Errorf("parse %s: nix-instantiate: %w", file, err)
	}
	return "", nil
}

// oneCase handles a case that failed: without the inputs, does the
// declaration evaluate?
func (e *Evaluator) oneCase(ctx context.Context, dir, file string, c Case, message string) Result {
	got, err := e.run(ctx, dir, []string{file}, []Case{c}, false)
	if err != nil {
		return Result{Error: message}
	}
	r := got[file][0]
	r.DepsError = message
	return r
}

// run is one nix-instantiate.
func (e *Evaluator) run(ctx context.Context, dir string, files []string, cases []Case, withDeps bool) (map[string][]Result, error) {
	tmp, err := os.CreateTemp("", "crff-eval-*.json")
	if err != nil {
		return nil, fmt.Errorf("evaluate package files: %w", err)
	}
	defer os.Remove(tmp.Name())
	allowed, err := e.writeRequest(tmp, dir, files, cases, withDeps)
	if err != nil {
		return nil, err
	}
	args := []string{"--eval", "--strict", "--json", e.StandIn, "--argstr", "request", tmp.Name()}
	stdout, stderr, err := e.nixInstantiate(ctx, dir, allowed, args...)
	var ee *evalError
	if errors.As(err, &ee) {
		if len(files) == 1 && !ee.bound {
			e.addPosition(ctx, dir, files[0], allowed, args, ee)
		}
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("evaluate package files in %s: %w", dir, err)
	}
	if e.Log != nil && len(stderr) > 0 {
		e.Log.Write(stderr)
	}
	return results(stdout, dir, files, len(cases))
}

// writeRequest writes the stand-in's request to tmp and closes it; it
// returns the paths the evaluation may read: the stand-in, its lib, the
// request, the package files, the checkout's lib/ and the .version its
// lib/.version links to (read by lib.version), nothing else.
func (e *Evaluator) writeRequest(tmp *os.File, dir string, files []string, cases []Case, withDeps bool) ([]string, error) {
	allowed := allowedPaths(e.StandIn, filepath.Join(filepath.Dir(e.StandIn), "nixpkgs-lib-standin.nix"), tmp.Name(), dir)
	if e.NixpkgsLib != "" {
		allowed = append(allowed, allowedPaths(e.NixpkgsLib, filepath.Join(filepath.Dir(e.NixpkgsLib), ".version"))...)
	}
	req := request{Dir: dir, Files: files, WithDeps: withDeps, Allowed: allowed, Cases: cases}
	if e.NixpkgsLib != "" {
		req.NixpkgsLib = &e.NixpkgsLib
	}
	data, err := json.Marshal(req)
	if err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("evaluate package files: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("evaluate package files: %w", err)
	}
	return allowed, nil
}

// results reads nix-instantiate's output: for each of files, one result
// per case.
func results(stdout []byte, dir string, files []string, cases int) (map[string][]Result, error) {
	var raw map[string][]rawResult
	if err := jsoncheck.Unmarshal("nix-instantiate's output", stdout, &raw); err != nil {
		return nil, fmt.Errorf("evaluate package files in %s: %w", dir, err)
	}
	out := make(map[string][]Result, len(raw))
	for file, rs := range raw {
		if len(rs) != cases {
			return nil, fmt.Errorf("evaluate %s: %d results for %d cases", file, len(rs), cases)
		}
		for _, r := range rs {
			res, err := r.result()
			if err != nil {
				return nil, fmt.Errorf("evaluate %s: %w", file, err)
			}
			out[file] = append(out[file], res)
		}
	}
	for _, f := range files {
		if _, ok := out[f]; !ok {
			return nil, fmt.Errorf("evaluate package files in %s: no result for %s", dir, f)
		}
	}
	return out, nil
}

// addPosition gives ee, the error of file, the position in file that
// its cause lacks, when Nix names one with --show-trace. Nix 2.13 and
// later print the innermost frames of a trace only with --show-trace
// (Nix 2.34's type error "expected a list but found a string" has no
// position of its own, and the frames it prints are the stand-in's), and
// Nix 2.8 prints a throw's frames only then. The rerun costs one more
// nix-instantiate, for a file that fails, only when the position is
// missing. A throw's or an abort's message is the file's own words and
// stays as it is on every version (Nix 2.8 gives no position for it; later
// versions' innermost frame is the call of throw). Should the rerun fail
// otherwise, ee is left as it is.
func (e *Evaluator) addPosition(ctx context.Context, dir, file string, allowed, args []string, ee *evalError) {
	first, rest, _ := strings.Cut(ee.message, "\n")
	if strings.Contains(first, " at "+file+":") || !strings.Contains(ee.stderr, "stack trace truncated") {
		return
	}
	_, _, err := e.nixInstantiate(ctx, dir, allowed, append(args, "--show-trace")...)
	var traced *evalError
	if !errors.As(err, &traced) || traced.bound {
		return
	}
	pos, call := tracePosition(traced.stderr, filepath.Join(dir, filepath.FromSlash(file)))
	if pos == "" || call == "throw" || call == "abort" || NixMessage(traced.stderr, dir) != NixMessage(ee.stderr, dir) {
		return
	}
	rel, err := filepath.Rel(dir, pos)
	if err != nil {
		return
	}
	ee.message = first + " at " + filepath.ToSlash(rel)
	if rest != "" {
		ee.message += "\n" + rest
	}
}

// tracePosition is the innermost position in path that a --show-trace
// error output of Nix 2.13 or later names ("at PATH:L:C", the last one
// before the cause), "" if none, and the builtin its frame calls
// ("… while calling the 'throw' builtin"), if any.
func tracePosition(stderr, path string) (pos, builtin string) {
	lines := strings.Split(ansi.Strip(stderr), "\n")
	frame := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "error:"); ok && strings.TrimSpace(rest) != "" {
			break
		}
		if strings.HasPrefix(l, "…") {
			frame = l
			continue
		}
		if at, ok := strings.CutPrefix(l, "at "+path+":"); ok {
			pos = path + ":" + strings.TrimSuffix(at, ":")
			builtin = ""
			if b, ok := strings.CutPrefix(frame, "… while calling the '"); ok {
				builtin, _, _ = strings.Cut(b, "'")
			}
		}
	}
	return pos, builtin
}

// NixMessage shortens nix-instantiate's error output to its cause and
// position: "error: attribute 'x' missing at cuda_cupti.nix:17:21", with
// paths under dir made relative to it. The cause is the last "error:"
// line with a message: Nix 2.8 starts with it, Nix 2.13 and later start
// with an empty "error:" and "… while evaluating" trace lines, each with
// a position of its own (the stand-in's), and end with the cause.
func NixMessage(stderr, dir string) string {
	return nixMessage(stderr, dir, false)
}

func nixMessage(stderr, dir string, trace bool) string {
	lines := strings.Split(ansi.Strip(stderr), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	cause := -1
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "error:"); ok && strings.TrimSpace(rest) != "" {
			cause = i
		}
	}
	var msg string
	if cause < 0 {
		msg = strings.TrimSpace(strings.Join(lines, "\n"))
		if msg == "" {
			msg = "nix-instantiate failed without a message"
		}
	} else {
		msg = lines[cause] + messageTail(lines[cause+1:])
		if trace {
			msg += traceLines(lines[:cause])
		}
	}
	if dir != "" {
		if short := strings.ReplaceAll(msg, filepath.Clean(dir)+"/", ""); strings.TrimSpace(short) != "" {
			msg = short
		}
	}
	return msg
}

// messageTail is what follows an error line: the lines that continue its
// message, up to a blank line, a trace or its position, and " at " the
// position when one comes before the next error or trace.
func messageTail(lines []string) string {
	var tail string
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "…") || strings.HasPrefix(l, "error:") {
			break
		}
		tail += " " + l
	}
	tail = strings.Replace(tail, " (use '--show-trace' to show detailed location information)", "", 1)
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "at ") {
			return tail + " at " + strings.TrimSuffix(strings.TrimPrefix(l, "at "), ":")
		}
		if strings.HasPrefix(l, "…") || strings.HasPrefix(l, "error:") {
			break
		}
	}
	return tail
}

// traceLines are the "… while evaluating" lines, each with its position,
// one per line after a newline.
func traceLines(lines []string) string {
	var out string
	for i, l := range lines {
		if strings.HasPrefix(l, "…") {
			out += "\n  " + l + messageTail(lines[i+1:])
		}
	}
	return out
}

// MaxFileSize bounds what is read of one package file to find whether it
// calls buildRedist. The largest of Nixpkgs' cuda-modules files is about
// 10 KB; a bigger one is named and left out, never read in full.
const MaxFileSize = 1 << 20

// Unread is a file of the packages directory that looks like a package
// file (by its name) but was not read: not a regular file (a FIFO, a
// device, a socket, a directory, a symbolic link out of the directory or
// to one of those), or over MaxFileSize. Why says which.
type Unread struct {
	File string // relative to the packages directory, slash-separated
	Why  string
}

// Listing is what Files finds: the package files that call buildRedist
// and the files it could not read.
type Listing struct {
	Files  []string
	Unread []Unread
}

// Files lists the package files of a cuda-modules packages directory:
// DIR/*.nix and DIR/*/package.nix (else DIR/*/default.nix) whose text
// mentions buildRedist (the other files there are hooks, stdenvs and
// packages built from source). Every candidate is accounted for: one
// that is not a regular file inside DIR is in Unread, never opened when
// it is no regular file (opening a FIFO blocks), and never read past
// MaxFileSize.
func Files(dir string) (Listing, error) {
	var l Listing
	top, err := filepath.Glob(filepath.Join(dir, "*.nix"))
	if err != nil {
		return l, err
	}
	nested, err := filepath.Glob(filepath.Join(dir, "*", "package.nix"))
	if err != nil {
		return l, err
	}
	// libcal/default.nix: a directory's default.nix, when it has no package.nix.
	defaults, err := filepath.Glob(filepath.Join(dir, "*", "default.nix"))
	if err != nil {
		return l, err
	}
	for _, d := range defaults {
		if _, err := os.Lstat(filepath.Join(filepath.Dir(d), "package.nix")); err != nil {
			nested = append(nested, d)
		}
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return l, err
	}
	for _, p := range append(top, nested...) {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return l, err
		}
		rel = filepath.ToSlash(rel)
		data, why, err := readPackageFile(root, p)
		switch {
		case err != nil:
			return l, fmt.Errorf("read %s: %w", p, err)
		case why != "":
			l.Unread = append(l.Unread, Unread{File: rel, Why: why})
		case bytes.Contains(data, []byte("buildRedist")):
			l.Files = append(l.Files, rel)
		}
	}
	sort.Strings(l.Files)
	sort.Slice(l.Unread, func(i, j int) bool { return l.Unread[i].File < l.Unread[j].File })
	return l, nil
}

// ReadFile reads again a package file that Files listed (its path
// joined to the packages directory dir), by the same rules: a file that
// has become something else since (a FIFO, a link out of dir, a file over
// MaxFileSize) is an error saying what, never opened or read in full.
func ReadFile(dir, file string) ([]byte, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	data, why, err := readPackageFile(root, filepath.Join(root, filepath.FromSlash(file)))
	switch {
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	case why != "":
		return nil, fmt.Errorf("read %s: %s", file, why)
	case data == nil:
		return nil, fmt.Errorf("read %s: a directory", file)
	}
	return data, nil
}

// readPackageFile reads the candidate p (under root, the packages
// directory resolved) when it is a regular file, or one through a link
// that stays inside root; else it says why not, without opening it.
func readPackageFile(root, p string) ([]byte, string, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return nil, "", err
	}
	if st.IsDir() {
		return nil, "", nil // g.nix/ holds a package.nix: listed on its own
	}
	target := p
	if st.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, "a symbolic link that resolves to nothing (" + err.Error() + "); not read", nil
		}
		if r, err := filepath.Rel(root, resolved); err != nil || r == ".." || strings.HasPrefix(r, "../") {
			to, _ := os.Readlink(p) // as written: /proc/self/mem, not the checker's own PID
			return nil, "a symbolic link out of the packages directory (to " + to + "); not read", nil
		}
		if st, err = os.Lstat(resolved); err != nil {
			return nil, "", err
		}
		target = resolved
	}
	if why := notRegular(st.Mode()); why != "" {
		return nil, why + "; not read", nil
	}
	// O_NONBLOCK: should the file have become a FIFO since the Lstat,
	// opening it does not wait for a writer; the Fstat below refuses it.
	f, err := os.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, "", err
	}
	if why := notRegular(st.Mode()); why != "" {
		return nil, why + "; not read", nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, "", err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Sprintf("larger than %d bytes, no package file; not read", MaxFileSize), nil
	}
	return data, "", nil
}

// notRegular names what a file of mode m is when it is no regular file.
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a link to a directory, not a file"
	}
	return inputfile.Kind(m) + ", not a regular file"
}
