package nixdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// Build is what a run builds.
type Build int

const (
	// BuildFeatures builds each manifest's aggregate (and the merged
	// index when asked for): process-manifests.
	BuildFeatures Build = iota
	// BuildDetections builds every entry's detection and no aggregate:
	// check-nixpkgs.
	BuildDetections
	// BuildNothing lists the manifests' entries and builds nothing (no
	// derivation is even written): check-nixpkgs --eval-only.
	BuildNothing
	// BuildUnpacks builds the unpacks that no recorded NAR hash pins:
	// process-manifests records their hashes before it detects, so that
	// its detections already read the pinned trees (PinUnpacked).
	BuildUnpacks
)

// ProcessOptions are the choices of one run.
type ProcessOptions struct {
	// Build is what the run builds.
	Build Build
	// IndexName, when set, also builds the merged index of the manifests
	// under this redist name (with BuildFeatures).
	IndexName string
	// Cleanup remembers what the store held before the build, so that
	// Outcome.Cleanup can delete what the run added.
	Cleanup bool
	Log     *slog.Logger
}

// Refused is a manifest the Go parser refused, or one the pipeline does
// not evaluate over (Nix's message), and why.
type Refused struct {
	Path string
	Err  error
}

// Outcome is what a run's build left: per manifest its entries, whether
// their detections and its aggregate built.
type Outcome struct {
	// Refused are the manifests the Go parser refused or Nix could not
	// evaluate; they were not built.
	Refused []Refused
	// Manifests are the manifests that were built (or tried).
	Manifests []ManifestOutcome
	// Index is the merged index's derivation (nil unless asked for);
	// IndexBuilt says whether its output exists.
	Index      *Derivation
	IndexBuilt bool
	// BuildErr is Nix's failure, if any: some derivation did not build.
	BuildErr error

	runner  *Runner
	roots   *rootDir
	closure []string
	before  map[string]bool
}

// ManifestOutcome is one manifest's result.
type ManifestOutcome struct {
	PlannedManifest
	// Parsed is the manifest as the Go parser validated it, for its
	// release data (package versions); its archives are the entries, as
	// the Nix walker lists them.
	Parsed *manifest.Manifest
	// Built: the aggregate's output exists; its files can be copied out.
	Built bool
	// BuiltEntries and FailedEntries split the entries by whether their
	// detection exists (what a manifest whose aggregate failed reports;
	// both empty with BuildNothing).
	BuiltEntries  []Entry
	FailedEntries []Entry
}

// Validated are the manifests of a run as the Go parser found them.
type Validated struct {
	// Good are the manifests it read; Refused the others.
	Good    []Manifest
	Refused []Refused
	parsed  map[string]*manifest.Manifest // by path
}

// Pin sets each manifest's records, those of record(path) (nil: none)
// for its archives.
func (v *Validated) Pin(record func(manifestPath string) *manifest.UnpackedHashes) {
	for i := range v.Good {
		m := &v.Good[i]
		m.UnpackedHashes = nil
		h := record(m.Path)
		if h == nil {
			continue
		}
		sub := &manifest.UnpackedHashes{Format: manifest.UnpackedHashesFormat, Trees: map[string]manifest.UnpackedTree{}}
		for _, a := range v.parsed[m.Path].Archives() {
			if t, ok := h.Trees[a.SHA256]; ok {
				sub.Trees[a.SHA256] = t
			}
		}
		if len(sub.Trees) > 0 {
			m.UnpackedHashes = sub
		}
	}
}

// DefaultMaxArchives bounds the archives of one manifest, about 12 times
// the most a real one lists (largestRealManifest).
const DefaultMaxArchives = 2000

// largestRealManifest is the count of archives of NVIDIA's largest
// manifest to date (cuda 12.4.0 and 12.4.1).
const largestRealManifest = 159

// Validate reads each manifest with the Go parser (manifest.ReadFile:
// duplicate and unknown keys, unsafe paths, ...). A manifest it refuses
// is left out, and the others go on; none left is an error. What the
// parser gives is kept for the manifests' release data only: their
// archives are the ones nix/cli.nix lists.
//
// A manifest that lists more than maxArchives archives (0: no bound) is
// refused too: each archive costs a fetch, an unpack and a detection
// (seconds each), so one manifest of 50,000 tiny packages would hold the
// others back for days instead of failing.
func Validate(ms []Manifest, maxArchives int, log *slog.Logger) (*Validated, error) {
	v := &Validated{parsed: map[string]*manifest.Manifest{}}
	for _, m := range ms {
		mf, err := manifest.ReadFile(m.Path)
		if err == nil && maxArchives > 0 {
			err = archiveBound(m.Path, len(mf.Archives()), maxArchives)
		}
		if err != nil {
			// The error itself is reported once, by the command.
			log.Warn("manifest refused; the others go on", "manifest", m.Path)
			v.Refused = append(v.Refused, Refused{Path: m.Path, Err: err})
			continue
		}
		v.parsed[m.Path] = mf
		v.Good = append(v.Good, m)
	}
	if len(v.Good) == 0 {
		return nil, noneLeft(v.Refused)
	}
	return v, nil
}

// archiveBound refuses a manifest of n archives past maxArchives.
func archiveBound(path string, n, maxArchives int) error {
	if n <= maxArchives {
		return nil
	}
	return fmt.Errorf("%s: lists %d archives, more than --max-archives %d (NVIDIA's largest manifest lists %d)",
		path, n, maxArchives, largestRealManifest)
}

// Process runs the Nix work of process-manifests and check-nixpkgs over
// the manifests Validate read: it instantiates the pipeline once
// (nix/cli.nix, which lists their entries: the archives as the Nix
// walker reads them, each with its derivations by stage; should that
// fail, refuseUnevaluable moves the manifests that fail alone to
// v.Refused and the others are instantiated again), tells
// SetRoles each derivation's stage, adds local archives to the store,
// builds what opts.Build asks for with one Nix command, and finds out
// what built. The outputs are held by GC roots until Close.
func (r *Runner) Process(ctx context.Context, v *Validated, opts ProcessOptions) (*Outcome, error) {
	RemoveStaleRoots(opts.Log)
	index := ""
	if opts.Build == BuildFeatures {
		index = opts.IndexName
	}
	plan, err := r.instantiate(ctx, v.Good, index, opts.Build == BuildNothing)
	if err != nil {
		if err := r.refuseUnevaluable(ctx, v, opts.Build == BuildNothing, opts.Log, err); err != nil {
			return nil, err
		}
		if plan, err = r.instantiate(ctx, v.Good, index, opts.Build == BuildNothing); err != nil {
			return nil, err
		}
	}
	o := &Outcome{runner: r, Refused: v.Refused}
	if opts.Build == BuildNothing {
		for _, m := range plan.Manifests {
			o.Manifests = append(o.Manifests, ManifestOutcome{PlannedManifest: m, Parsed: v.parsed[m.Path]})
		}
		return o, nil
	}
	if r.SetRoles != nil {
		r.SetRoles(plan.Roles())
	}
	if err := o.build(ctx, plan, plan.targets(opts.Build), opts); err != nil {
		return nil, err
	}
	if err := o.collect(ctx, plan, v.parsed); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// refuseUnevaluable is what follows a failed evaluation of the pipeline
// over all of v's manifests at once (first, its error): each manifest is
// evaluated alone, and one that does not evaluate alone (a string Nix's
// fromJSON cannot hold, which the Go parser accepts) is moved to
// v.Refused with Nix's message, named; the others go on. When every
// manifest evaluates alone, or (of several) none does, the failure is not
// one manifest's: first is returned.
func (r *Runner) refuseUnevaluable(ctx context.Context, v *Validated, archivesOnly bool, log *slog.Logger, first error) error {
	if ctx.Err() != nil {
		return first
	}
	log.Warn("the pipeline does not evaluate over all manifests; evaluating them one by one", "manifests", len(v.Good))
	var good []Manifest
	var refused []Refused
	for _, m := range v.Good {
		err := r.evalAlone(ctx, m, archivesOnly)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			refused = append(refused, Refused{Path: m.Path, Err: err})
			continue
		}
		good = append(good, m)
	}
	switch {
	case len(good) == len(v.Good):
		return first
	case len(good) == 0 && len(v.Good) > 1:
		// Not one manifest's fault (Nix itself, the store, the disk):
		// its own error, not one refusal per manifest.
		return fmt.Errorf("%w (no manifest evaluates alone either)", first)
	}
	for _, rf := range refused {
		// The error itself is reported once, by the command.
		log.Warn("manifest does not evaluate; the others go on", "manifest", rf.Path)
	}
	v.Refused = append(v.Refused, refused...)
	v.Good = good
	if len(good) == 0 {
		return noneLeft(v.Refused)
	}
	return nil
}

// noneLeft is the error of a run whose every manifest was refused.
func noneLeft(refused []Refused) error {
	msgs := make([]string, len(refused))
	for i, r := range refused {
		msgs[i] = r.Err.Error()
	}
	return fmt.Errorf("no manifest could be processed: %s", strings.Join(msgs, "; "))
}

// evalAlone evaluates the pipeline over one manifest; its error names
// the manifest and holds Nix's message.
func (r *Runner) evalAlone(ctx context.Context, m Manifest, archivesOnly bool) error {
	a := r.cliArgs([]Manifest{m})
	a.ArchivesOnly = archivesOnly
	data, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("manifest %s: %w", m.Path, err)
	}
	stderr := &nixexec.LimitedBuffer{Max: maxMessage}
	if _, err := r.evalCLI(ctx, data, !archivesOnly, stderr); err != nil {
		return fmt.Errorf("manifest %s: does not evaluate: %s", m.Path, pkgeval.NixMessage(stderr.String(), ""))
	}
	return nil
}

// build adds local archives to the store and realises the targets,
// rooted in a directory of GC roots until Close. A failed build is
// o.BuildErr; an interruption fails it.
func (o *Outcome) build(ctx context.Context, plan *Plan, targets []string, opts ProcessOptions) error {
	r := o.runner
	opts.Log.Info("building", "manifests", len(plan.Manifests), "entries", len(plan.Entries()), "derivations", len(targets))
	r.CheckSettings(ctx, opts.Log)
	if opts.Cleanup {
		if err := o.rememberStore(ctx, targets); err != nil {
			return err
		}
	}
	if err := r.addLocalArchives(ctx, plan, opts.Log); err != nil {
		return err
	}
	var err error
	if o.roots, err = newRootDir(); err != nil {
		return err
	}
	r.RootDir = o.roots.path
	o.BuildErr = r.Realise(ctx, targets)
	if ctx.Err() != nil {
		// Interrupted: nothing of the run is copied out.
		o.Close()
		return context.Cause(ctx)
	}
	if o.BuildErr != nil {
		// Only Nix's exit status: the failures themselves, with their
		// causes, are the progress lines and the run's summary.
		opts.Log.Debug("some builds failed", "error", o.BuildErr)
	}
	return nil
}

// targets are the derivations a run builds: the aggregates and the
// index, or the detections of the entries check-nixpkgs checks.
func (p *Plan) targets(b Build) []string {
	var targets []string
	for _, m := range p.Manifests {
		if b == BuildUnpacks {
			targets = append(targets, unpinnedUnpacks(m.Entries)...)
			continue
		}
		if b == BuildDetections {
			for _, e := range m.Entries {
				// check-nixpkgs reads no archive of a platform it does
				// not check (Windows): none is fetched for it.
				if nixpkgscheck.Checked(e.Platform) {
					targets = append(targets, e.Detect.Drv)
				}
			}
			continue
		}
		targets = append(targets, m.Aggregate.Drv)
	}
	if p.Index != nil && b == BuildFeatures {
		targets = append(targets, p.Index.Drv)
	}
	return targets
}

// collect asks the build's store which outputs exist.
func (o *Outcome) collect(ctx context.Context, plan *Plan, parsed map[string]*manifest.Manifest) error {
	var outs []string
	for _, m := range plan.Manifests {
		outs = append(outs, m.Aggregate.Out)
		for _, e := range m.Entries {
			outs = append(outs, e.Detect.Out)
		}
	}
	if plan.Index != nil {
		outs = append(outs, plan.Index.Out)
	}
	valid, err := o.runner.Valid(ctx, outs)
	if err != nil {
		return err
	}
	for _, m := range plan.Manifests {
		mo := ManifestOutcome{PlannedManifest: m, Parsed: parsed[m.Path], Built: valid[m.Aggregate.Out]}
		for _, e := range m.Entries {
			if valid[e.Detect.Out] {
				mo.BuiltEntries = append(mo.BuiltEntries, e)
			} else {
				mo.FailedEntries = append(mo.FailedEntries, e)
			}
		}
		o.Manifests = append(o.Manifests, mo)
	}
	o.Index = plan.Index
	o.IndexBuilt = plan.Index != nil && valid[plan.Index.Out]
	return nil
}

// FeatureFile is the store path of the manifest's feature_<version>.json.
func (m ManifestOutcome) FeatureFile() string {
	return m.Aggregate.Out + "/feature_" + m.Version + ".json"
}

// ReadFile reads a result file from the build's store.
func (o *Outcome) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return o.runner.ReadFile(ctx, path)
}

// PartialFeatures encodes the feature_<version>.json of the entries that
// did build, with the aggregate builder's code.
func (o *Outcome) PartialFeatures(ctx context.Context, m ManifestOutcome) ([]byte, error) {
	var detected []aggregate.Detected
	for _, e := range m.BuiltEntries {
		f, err := o.ReadFeatures(ctx, e)
		if err != nil {
			return nil, err
		}
		detected = append(detected, aggregate.Detected{DetectedArchive: manifest.DetectedArchive{Archive: e.Archive, Features: f}})
	}
	return aggregate.EncodeLegacy(detected)
}

// ReadFeatures reads an entry's detection from the build's store: local,
// or the remote one with --store.
func (o *Outcome) ReadFeatures(ctx context.Context, e Entry) (*features.Features, error) {
	if e.Detect.Out == "" {
		return nil, fmt.Errorf("entry %s: no detection in this run", e.ID())
	}
	f, err := o.readDetection(ctx, e.Detect.Out)
	if err == nil {
		// The detector records facts; the rules' results, as the aggregate has them.
		err = aggregate.Complete(f, e.Variant)
	}
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.ID(), err)
	}
	return f, nil
}

// UnpackedNarHash is the NAR hash of an entry's unpacked tree, as its
// detection recorded it.
func (o *Outcome) UnpackedNarHash(ctx context.Context, e Entry) (string, error) {
	f, err := o.readDetection(ctx, e.Detect.Out)
	if err != nil {
		return "", fmt.Errorf("entry %s: %w", e.ID(), err)
	}
	return f.NarHash, nil
}

// readDetection reads a detection file from the build's store.
func (o *Outcome) readDetection(ctx context.Context, path string) (*features.Features, error) {
	if o.runner.Store == "" {
		return features.ReadFeatures(path)
	}
	data, err := o.runner.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return features.DecodeFeatures(path, data)
}

// rememberStore notes which paths of the build's closure the store holds
// before the build.
func (o *Outcome) rememberStore(ctx context.Context, targets []string) error {
	closure, err := Closure(ctx, targets)
	if err != nil {
		return err
	}
	o.closure = closure
	o.before, err = o.runner.Valid(ctx, closure)
	return err
}

// Close drops the run's GC roots.
func (o *Outcome) Close() error {
	if o.roots == nil {
		return nil
	}
	err := o.roots.remove()
	o.roots = nil
	o.runner.RootDir = ""
	return err
}

// Cleanup drops the GC roots (they would keep everything) and deletes
// what the run added to the store, as far as nothing else holds it. It
// returns how many paths were added and how many deleted.
func (o *Outcome) Cleanup(ctx context.Context) (added, deleted int, err error) {
	if err := o.Close(); err != nil {
		return 0, 0, err
	}
	var paths []string
	for _, path := range o.closure {
		if !o.before[path] {
			paths = append(paths, path)
		}
	}
	return len(paths), Delete(ctx, paths), nil
}
