package nixdriver

import (
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver/nixlog"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
	nixlib "github.com/nix-cuda/cuda-redist-find-features/nix"
)

// Runner runs Nix commands.
type Runner struct {
	// NixLib is the directory holding cli.nix and pipeline.nix (the
	// repository's nix/, or the package's share/cuda-redist-find-features/nix).
	NixLib string
	// DetectorProgram is the static cuda-redist-detector: the builder of
	// the unpack and detect derivations.
	DetectorProgram string
	// AggregateProgram is the static cuda-redist-aggregate: the builder of
	// the aggregate, buildRedist and merged-index derivations.
	AggregateProgram string
	// System is the system the derivations build on ("": the local one).
	System string
	// Options are passed to every Nix command as --option NAME VALUE.
	Options [][2]string
	// BuildArgs are passed to the build only (-j, --keep-going, --builders).
	BuildArgs []string
	// Log, when set, receives the driver's warnings about Nix's settings
	// (CheckSettings); nil: slog's default.
	Log *slog.Logger
	// Stderr receives Nix's progress and build logs.
	Stderr io.Writer
	// RootDir, when set, gets a GC root for every output the build
	// realises (nix-store --add-root), so that a garbage collection during
	// the run cannot take them before they are copied out; the caller
	// removes the directory when done.
	RootDir string
	// Store, when set (a store URI such as ssh-ng://builder), is where the
	// derivations are built and their outputs kept; evaluation stays local
	// (see store.go).
	Store string
	// SetRoles, when set, is given the stage of every derivation of a run
	// once the pipeline is instantiated and before anything is built:
	// what the progress display counts by (nixlog.Tracker.SetRoles).
	SetRoles func(nixlog.Roles)

	plans           map[string]*Plan // by the arguments' JSON: one evaluation per run
	settingsChecked bool             // CheckSettings ran (settings.go)
	// untrusted, set by CheckSettings, are the settings of a daemon that
	// does not trust the client: its restricted settings are not passed.
	untrusted *Settings
}

// Manifest is one manifest to process.
type Manifest struct {
	RedistName string `json:"redistName"`
	Version    string `json:"version"`
	Path       string `json:"manifest"`
	BaseURL    string `json:"baseUrl"`
	// UnpackedHashes are the records of unpacked-hashes.json that pin the
	// manifest's unpacks (those of its archives: Validated.Pin), or nil.
	// Nix reads them from here, not from the file: what it pins is what
	// this program read and checked.
	UnpackedHashes *manifest.UnpackedHashes `json:"unpackedHashes,omitempty"`
}

// Entry is one archive of a manifest, as nix/cli.nix lists it: the Nix
// walker's (nix/manifest.nix) record of it, and its derivations.
type Entry struct {
	Manifest string `json:"-"` // the manifest's version
	Redist   string `json:"-"`
	// Archive is the walker's record: package, platform, variant,
	// relativePath, sha256.
	manifest.Archive
	// The derivations of its stages; zero in a plan of the archives
	// alone (BuildNothing). Fetch.Out is the archive in the store,
	// Detect.Out its detection (a JSON file).
	Fetch  Derivation `json:"fetch"`
	Unpack Derivation `json:"unpack"`
	Detect Derivation `json:"detect"`
	// PinnedNarHash is the recorded NAR hash that makes Unpack a
	// fixed-output derivation ("" when none); Unpinned is then the same
	// unpack without the pin, built to explain a hash mismatch.
	PinnedNarHash string     `json:"pinnedNarHash"`
	Unpinned      Derivation `json:"unpinned"`
	// UnpinnedDetect is Unpinned's detection (a pinned tree that is not
	// the archive's is compared with it); PinnedName the name of the
	// pinned unpack's store path (<stem>-<sha256>).
	UnpinnedDetect Derivation `json:"unpinnedDetect"`
	PinnedName     string     `json:"pinnedName"`
}

// ID names the entry in messages.
func (e Entry) ID() string {
	return fmt.Sprintf("%s %s/%s/%s", e.Manifest, e.Package, e.Platform, e.Variant)
}

// Derivation is a derivation and its (single) output path.
type Derivation struct {
	Drv string `json:"drv"`
	Out string `json:"out"`
}

// PlannedManifest is one manifest's aggregate derivation and its entries.
type PlannedManifest struct {
	Manifest
	Aggregate Derivation
	Entries   []Entry
}

// Plan is what one instantiation of nix/cli.nix gives: per manifest the
// aggregate derivation (feature_<version>.json, index.json, ...) and the
// entries with their derivations, and the merged index when asked for.
type Plan struct {
	Manifests []PlannedManifest
	Index     *Derivation
}

// Entries lists the entries of every manifest of the plan.
func (p *Plan) Entries() []Entry {
	var out []Entry
	for _, m := range p.Manifests {
		out = append(out, m.Entries...)
	}
	return out
}

// Roles are the stage of each derivation of the plan, as nix/cli.nix
// lists them, for the progress display: an entry's fetch, unpack and
// detect are named by its archive (the unpack derivation's name, the
// archive's file name without its suffix), an aggregate and the index by
// their own names.
func (p *Plan) Roles() nixlog.Roles {
	roles := nixlog.Roles{}
	add := func(d Derivation, stage nixlog.Stage, subject string) {
		if d.Drv != "" {
			roles[d.Drv] = nixlog.Role{Stage: stage, Subject: subject}
		}
	}
	for _, m := range p.Manifests {
		add(m.Aggregate, nixlog.Aggregate, nixlog.DrvName(m.Aggregate.Drv))
		for _, e := range m.Entries {
			// A pinned unpack's name ends in the archive's sha256, which
			// the progress lines leave out.
			subject := strings.TrimSuffix(nixlog.DrvName(e.Unpack.Drv), "-"+e.SHA256)
			add(e.Fetch, nixlog.Fetch, subject)
			add(e.Unpack, nixlog.Unpack, subject)
			add(e.Detect, nixlog.Detect, subject)
		}
	}
	if p.Index != nil {
		add(*p.Index, nixlog.Aggregate, nixlog.DrvName(p.Index.Drv))
	}
	return roles
}

// FindNixLib returns the Nix library directory (the one holding cli.nix):
// explicit (--nix-lib, $CRFF_NIX_LIB) when given; else the one installed
// beside the executable (../share/cuda-redist-find-features/nix, as
// nix/package.nix lays it out); else the one the binary carries, written
// once to the user's cache directory (nixlib.Extract). A binary built
// without it (crff_noembed, the flake's pipeline builder) looks for nix/
// in the working directory or one of its parents (a checkout).
func FindNixLib(explicit string) (string, error) {
	if explicit != "" {
		if !isNixLib(explicit) {
			return "", fmt.Errorf("--nix-lib %s: no cli.nix there", explicit)
		}
		return filepath.Abs(explicit)
	}
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		if dir := InstalledNixLib(self); isNixLib(dir) {
			return dir, nil
		}
	}
	if nixlib.Embedded {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no Nix library: %v; set XDG_CACHE_HOME or HOME (the binary writes its Nix library there once), or pass --nix-lib", err)
		}
		return extractNixLib(context.Background(), filepath.Join(cache, nixlib.CacheName))
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if isNixLib(filepath.Join(d, "nix")) {
			return filepath.Join(d, "nix"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no Nix library: not installed beside the executable (../share/cuda-redist-find-features/nix), not in this binary (built with crff_noembed), no nix/cli.nix in the working directory or its parents; pass --nix-lib (or set CRFF_NIX_LIB)")
		}
	}
}

// extractNixLib writes the library the binary carries to cacheRoot
// ($XDG_CACHE_HOME/cuda-redist-find-features, else ~/.cache/...), once,
// and returns the nix/ directory of its copy in the Nix store
// (storeNixLib says why there).
func extractNixLib(ctx context.Context, cacheRoot string) (string, error) {
	dir, err := nixlib.Extract(cacheRoot, NixLibOutside())
	var unsafe *nixlib.UnsafeError
	if errors.As(err, &unsafe) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("%w; set XDG_CACHE_HOME to a writable directory, or pass --nix-lib", err)
	}
	if testHookAfterExtract != nil {
		testHookAfterExtract(dir)
	}
	store, err := storeNixLib(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("%w; or pass --nix-lib", err)
	}
	return filepath.Join(store, "nix"), nil
}

// testHookAfterExtract, set by tests, runs between the cache's check and
// the library's copy into the store: where another user would swap a file.
var testHookAfterExtract func(dir string)

// NixLibOutside are the files of the Nix library outside nix/ (those
// nix/library-files.txt lists), by their path in the repository, from the
// package that embeds them.
func NixLibOutside() map[string][]byte {
	out := map[string][]byte{}
	for n, b := range manifest.LibraryFiles() {
		out[path.Join("lib", "manifest", n)] = b
	}
	return out
}

// InstalledNixLib is where the package installs the Nix library relative
// to the executable at exe.
func InstalledNixLib(exe string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(exe)), "share", "cuda-redist-find-features", "nix")
}

func isNixLib(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cli.nix"))
	return err == nil
}

// InstallHint installs the CLI, the detector and the aggregate builder
// in one command, together in one directory (GOBIN), where the CLI finds
// the two builders. CGO_ENABLED=0 makes them static (the sandbox has no
// dynamic loader); -trimpath, -buildvcs=false and
// -ldflags='-s -w -buildid=' make a builder's bytes a function of its
// source and the Go toolchain alone, and so the store path of every
// derivation it builds: without them the bytes also hold the build
// directory, a build ID and, built in a git clone, the commit (Go 1.24
// and later stamp it as the module's version), and another checkout,
// machine or commit rebuilds every unpack, detect and aggregate. From the
// module path the module's version is in the bytes whatever the flags: a
// new release's builders build their derivations once.
const InstallHint = "CGO_ENABLED=0 go install -trimpath -buildvcs=false -ldflags='-s -w -buildid=' " + Module + "/cmd/...@latest" +
	" (from a checkout: CGO_ENABLED=0 go install -trimpath -buildvcs=false -ldflags='-s -w -buildid=' ./cmd/...)"

// Module is the Go module path of the three programs.
const Module = "github.com/nix-cuda/cuda-redist-find-features"

// CheckStatic fails unless path is a statically linked executable: inside
// the sandbox there is no dynamic loader.
func CheckStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("program %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("program %s is dynamically linked; the sandboxed builds need a static binary: build or install it with CGO_ENABLED=0 (%s)", path, InstallHint)
		}
	}
	return nil
}

func (r *Runner) optionArgs(ctx context.Context) []string {
	var args []string
	for _, o := range r.EffectiveOptions(ctx) {
		args = append(args, "--option", o[0], o[1])
	}
	return args
}

// cliArgs is the JSON nix/cli.nix reads.
type cliArgs struct {
	// The builders; absent when no derivation is asked for (ArchivesOnly).
	DetectorProgram  string     `json:"detectorProgram,omitempty"`
	AggregateProgram string     `json:"aggregateProgram,omitempty"`
	System           *string    `json:"system"`
	Manifests        []Manifest `json:"manifests"`
	Index            *string    `json:"index"`
	ArchivesOnly     bool       `json:"archivesOnly"`
	// Unpinned asks for each pinned unpack without its pin too.
	Unpinned bool `json:"unpinned,omitempty"`
}

// cliArgs is the JSON for nix/cli.nix over ms with r's programs and
// system.
func (r *Runner) cliArgs(ms []Manifest) cliArgs {
	a := cliArgs{DetectorProgram: r.DetectorProgram, AggregateProgram: r.AggregateProgram, Manifests: ms}
	if a.Manifests == nil {
		a.Manifests = []Manifest{}
	}
	if r.System != "" {
		a.System = &r.System
	}
	return a
}

// cliResult is what nix/cli.nix evaluates to.
type cliResult struct {
	Manifests []struct {
		Version   string     `json:"version"`
		Aggregate Derivation `json:"aggregate"`
		Entries   []Entry    `json:"entries"`
	} `json:"manifests"`
	Index *Derivation `json:"index"`
}

// instantiate evaluates the pipeline over the manifests once, writing
// the derivations to the local store, and returns what to build. With
// index != "", the plan also has the merged index of all of them (named
// index). With archivesOnly, the plan has the manifests' entries alone:
// no derivation is evaluated or written. Evaluation errors fail here,
// before anything is built.
func (r *Runner) instantiate(ctx context.Context, ms []Manifest, index string, archivesOnly bool) (*Plan, error) {
	a := r.cliArgs(ms)
	a.ArchivesOnly = archivesOnly
	if index != "" {
		a.Index = &index
	}
	data, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: %w", err)
	}
	if p, ok := r.plans[string(data)]; ok {
		return p, nil
	}
	out, err := r.evalCLI(ctx, data, !archivesOnly, r.Stderr)
	if err != nil {
		return nil, err
	}
	var res cliResult
	if err := jsoncheck.Unmarshal("evaluate the pipeline: nix-instantiate's output", out, &res); err != nil {
		return nil, err
	}
	if len(res.Manifests) != len(ms) {
		return nil, fmt.Errorf("evaluate the pipeline: %d manifests in, %d out", len(ms), len(res.Manifests))
	}
	p := &Plan{Index: res.Index}
	for i, m := range res.Manifests {
		pm := PlannedManifest{Manifest: ms[i], Aggregate: m.Aggregate}
		for _, e := range m.Entries {
			e.Manifest, e.Redist = ms[i].Version, ms[i].RedistName
			pm.Entries = append(pm.Entries, e)
		}
		p.Manifests = append(p.Manifests, pm)
	}
	if r.plans == nil {
		r.plans = map[string]*Plan{}
	}
	r.plans[string(data)] = p
	return p, nil
}

// evalCLI evaluates nix/cli.nix with the arguments' JSON (args), in a
// temporary file, and returns the result's JSON. writeDrvs: the
// evaluation writes the derivations it names to the store (false when
// only the archive list is asked for). Nix's messages go to stderr.
func (r *Runner) evalCLI(ctx context.Context, args []byte, writeDrvs bool, stderr io.Writer) ([]byte, error) {
	argsFile, err := os.CreateTemp("", "crff-nix-args-*.json")
	if err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: %w", err)
	}
	defer os.Remove(argsFile.Name())
	if _, err := argsFile.Write(args); err != nil {
		argsFile.Close()
		return nil, fmt.Errorf("evaluate the pipeline: %w", err)
	}
	if err := argsFile.Close(); err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: %w", err)
	}
	cmdArgs := []string{"--eval", "--strict", "--json"}
	if writeDrvs {
		// Evaluating drvPath writes the .drv files, so the build needs no
		// second evaluation.
		cmdArgs = append(cmdArgs, "--read-write-mode")
	}
	cmdArgs = append(cmdArgs, filepath.Join(r.NixLib, "cli.nix"), "--argstr", "argsFile", argsFile.Name())
	cmdArgs = append(cmdArgs, r.optionArgs(ctx)...)
	cmd := nixexec.Command("nix-instantiate", cmdArgs...)
	cmd.Stderr = stderr
	out, err := cmd.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: nix-instantiate: %w", err)
	}
	return out, nil
}

// Realise builds the derivations (and what they need) with `nix-store
// --realise`, one command per batch of derivations that fits a command
// line (nixexec.Batches: one for a few thousand). With --keep-going among
// BuildArgs a failure leaves the others built, and the later batches are
// still built; the error only says that the build failed, the caller
// checks which outputs exist. With --builders (and --max-jobs 0) the
// builds run on remote builders and the outputs come back.
func (r *Runner) Realise(ctx context.Context, drvs []string) error {
	if len(drvs) == 0 {
		return nil
	}
	if r.Store != "" {
		return r.realiseInStore(ctx, drvs)
	}
	fixed := append(append([]string{"--realise", "--add-root", filepath.Join(r.RootDir, "batch-000"), "--no-gc-warning"}, r.buildArgs(ctx)...), r.optionArgs(ctx)...)
	batches, err := nixexec.Batches(fixed, drvs)
	if err != nil {
		return fmt.Errorf("nix-store --realise: %w", err)
	}
	var first error
	for i, batch := range batches {
		args := []string{"--realise"}
		if r.RootDir != "" {
			// Each batch its roots: batch-I, batch-I-2, batch-I-3, ...
			args = append(args, "--add-root", filepath.Join(r.RootDir, fmt.Sprintf("batch-%03d", i)))
		} else {
			// The caller reads the outputs right away and roots nothing;
			// without this Nix warns "you did not specify '--add-root'".
			args = append(args, "--no-gc-warning")
		}
		args = append(append(append(args, r.buildArgs(ctx)...), r.optionArgs(ctx)...), batch...)
		cmd := nixexec.Command("nix-store", args...)
		cmd.Stderr = r.Stderr
		err := cmd.Run(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("nix-store --realise: %w", err)
		}
		if err != nil && first == nil {
			first = fmt.Errorf("nix-store --realise: %w", err)
		}
		if err != nil && !slices.Contains(r.BuildArgs, "--keep-going") {
			break
		}
	}
	return first
}

// Closure lists the output paths of everything the derivations need
// (fetches, unpacks, detections, aggregates). Taken before a build, it
// tells --cleanup what the run added.
func Closure(ctx context.Context, drvs []string) ([]string, error) {
	req, err := batchedOutput(ctx, []string{"-qR"}, drvs)
	if err != nil {
		return nil, fmt.Errorf("nix-store -qR: %w", err)
	}
	var all []string
	seen := map[string]bool{}
	for _, p := range req {
		if strings.HasSuffix(p, ".drv") && !seen[p] {
			seen[p] = true
			all = append(all, p)
		}
	}
	outputs, err := batchedOutput(ctx, []string{"-q", "--outputs"}, all)
	if err != nil {
		return nil, fmt.Errorf("nix-store -q --outputs: %w", err)
	}
	return outputs, nil
}

// batchedOutput runs `nix-store ARGS PATHS` for each batch of paths that
// fits a command line, and returns the words of their outputs.
func batchedOutput(ctx context.Context, args, paths []string) ([]string, error) {
	batches, err := nixexec.Batches(args, paths)
	if err != nil {
		return nil, err
	}
	var words []string
	for _, batch := range batches {
		out, err := nixexec.Command("nix-store", append(append([]string{}, args...), batch...)...).Output(ctx)
		if err != nil {
			return nil, err
		}
		words = append(words, strings.Fields(string(out))...)
	}
	return words, nil
}

// AddFixed adds local files to the store as flat sha256 fixed outputs
// (nix-store --add-fixed sha256), the paths a builtin:fetchurl of them
// would produce, and returns those paths, one per file (a file given
// twice is added once). With r.Store, they go there. The files go in
// batches that fit a command line.
func (r *Runner) AddFixed(ctx context.Context, files []string) ([]string, error) {
	var unique []string
	seen := map[string]bool{}
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			unique = append(unique, f)
		}
	}
	args := []string{"--add-fixed", "sha256"}
	if r.Store != "" {
		args = append([]string{"--store", r.Store}, args...)
	}
	args = append(args, r.optionArgs(ctx)...)
	batches, err := nixexec.Batches(args, unique)
	if err != nil {
		return nil, fmt.Errorf("nix-store --add-fixed: %w", err)
	}
	added := map[string]string{}
	for _, batch := range batches {
		cmd := nixexec.Command("nix-store", append(append([]string{}, args...), batch...)...)
		cmd.Stderr = r.Stderr
		out, err := cmd.Output(ctx)
		if err != nil {
			return nil, fmt.Errorf("nix-store --add-fixed: %w", err)
		}
		paths := strings.Fields(string(out))
		if len(paths) != len(batch) {
			return nil, fmt.Errorf("nix-store --add-fixed: %d files in, %d store paths out", len(batch), len(paths))
		}
		for i, f := range batch {
			added[f] = paths[i]
		}
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = added[f]
	}
	return out, nil
}

// Delete removes the given store paths, one at a time so that a path
// something else still needs (and so Nix refuses to delete) does not stop
// the rest. It returns how many were deleted.
func Delete(ctx context.Context, paths []string) int {
	deleted := 0
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if nixexec.Command("nix-store", "--delete", p).Run(ctx) == nil {
			deleted++
		}
	}
	return deleted
}
