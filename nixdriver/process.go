package nixdriver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/stage/aggregate"
	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// ProcessOptions are the choices of one process-manifests run.
type ProcessOptions struct {
	// IndexName, when set, also builds the merged index of the manifests
	// under this redist name.
	IndexName string
	// Cleanup remembers what the store held before the build, so that
	// Outcome.Cleanup can delete what the run added.
	Cleanup bool
	Log     *slog.Logger
}

// Outcome is what a process-manifests build left: per manifest whether
// its aggregate built and, if not, which entries did.
type Outcome struct {
	// Refused are the manifests the Go parser refused; they were not built.
	Refused []error
	// Manifests are the manifests that were built (or tried).
	Manifests []ManifestOutcome
	// Index is the merged index's derivation (nil unless asked for);
	// IndexBuilt says whether its output exists.
	Index      *Derivation
	IndexBuilt bool
	// BuildErr is Nix's failure, if any: some derivation did not build.
	BuildErr error

	runner  *Runner
	roots   string
	closure []string
	before  map[string]bool
}

// ManifestOutcome is one manifest's result.
type ManifestOutcome struct {
	PlannedManifest
	Parsed *manifest.Manifest
	// Built: the aggregate's output exists; its files can be copied out.
	Built bool
	// BuiltEntries and FailedEntries split the entries by whether their
	// detection exists (what a manifest whose aggregate failed reports).
	BuiltEntries  []Entry
	FailedEntries []Entry
}

// Process validates the manifests with the Go parser (a bad one is
// refused alone), instantiates the pipeline once over the good ones, adds
// local archives to the store, builds the aggregate derivations (and the
// merged index) with one Nix command, and finds out what built. The
// outputs are held by GC roots until Close.
func (r *Runner) Process(ctx context.Context, ms []Manifest, opts ProcessOptions) (*Outcome, error) {
	o := &Outcome{runner: r}
	var good []Manifest
	parsed := map[string]*manifest.Manifest{}
	for _, m := range ms {
		mf, err := manifest.ReadFile(m.Path)
		if err != nil {
			// The error itself is reported once, with the run's others.
			opts.Log.Warn("manifest refused; the others are still processed", "manifest", m.Path)
			o.Refused = append(o.Refused, err)
			continue
		}
		parsed[m.Path] = mf
		good = append(good, m)
	}
	if len(good) == 0 {
		return nil, fmt.Errorf("no manifest could be processed: %s", joinErrors(o.Refused))
	}
	plan, err := r.Instantiate(ctx, good, opts.IndexName)
	if err != nil {
		return nil, err
	}
	targets := plan.targets()
	opts.Log.Info("building", "manifests", len(plan.Manifests), "entries", len(plan.Entries()))
	if opts.Cleanup {
		if err := o.rememberStore(ctx, targets); err != nil {
			return nil, err
		}
	}
	if err := r.AddLocalArchives(ctx, plan, parsed, opts.Log); err != nil {
		return nil, err
	}
	if o.roots, err = os.MkdirTemp("", "crff-gc-roots-"); err != nil {
		return nil, err
	}
	r.RootDir = o.roots
	o.BuildErr = r.Realise(ctx, targets)
	if ctx.Err() != nil {
		// Interrupted: nothing of the run is copied out.
		o.Close()
		return nil, context.Cause(ctx)
	}
	if o.BuildErr != nil {
		opts.Log.Warn("some builds failed", "error", o.BuildErr)
	}
	if err := o.collect(ctx, plan, parsed); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// targets are the derivations a run builds: the aggregates and the index.
func (p *Plan) targets() []string {
	var targets []string
	for _, m := range p.Manifests {
		targets = append(targets, m.Aggregate.Drv)
	}
	if p.Index != nil {
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
			outs = append(outs, e.OutPath)
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
			if valid[e.OutPath] {
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
		f, err := o.readFeatures(ctx, e.OutPath)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID(), err)
		}
		a, ok := m.Parsed.Archive(e.Package, e.Platform, e.Variant)
		if !ok {
			return nil, fmt.Errorf("entry %s: not in manifest %s", e.ID(), m.Parsed.Source)
		}
		detected = append(detected, aggregate.Detected{Archive: a, Features: f})
	}
	return aggregate.EncodeLegacy(detected)
}

// readFeatures reads a detection from the build's store: local, or the
// remote one with --store.
func (o *Outcome) readFeatures(ctx context.Context, path string) (*features.Features, error) {
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
	if o.roots == "" {
		return nil
	}
	err := os.RemoveAll(o.roots)
	o.roots = ""
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

func joinErrors(errs []error) string {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}
