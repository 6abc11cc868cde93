package nixdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nix-community/go-nix/pkg/nixhash"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"

	"github.com/nix-cuda/cuda-redist-find-features/detector/facts"
	"github.com/nix-cuda/cuda-redist-find-features/detector/narhash"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// PinMismatch is an entry whose unpack, pinned to a recorded NAR hash
// (unpacked-hashes.json), the unpacker no longer reproduces: Nix failed
// it with "hash mismatch in fixed-output derivation".
type PinMismatch struct {
	Entry Entry
	// Recorded is the pinned hash, Got that of the tree this run's
	// unpacker writes (the entry's unpack built without the pin).
	Recorded, Got string
	// FirstDiff is the first path (in byte order) that is in one tree's
	// listing and not in the other's, with which one; or, when the
	// listings agree, a sentence saying so.
	FirstDiff string
}

func (m PinMismatch) Error() string {
	return fmt.Sprintf("entry %s (%s): the unpacked tree is no longer the one recorded in unpacked-hashes.json: recorded %s, unpacked now %s; first difference: %s. "+
		"If the new tree is right, delete the archive's record (the next run records the new hash); else the unpacker changed its output: a bug",
		m.Entry.ID(), m.Entry.RelativePath, m.Recorded, m.Got, m.FirstDiff)
}

// PinMismatches explains the failed entries of m whose unpack was pinned
// and is missing: it builds each one's unpack without the pin (this run's
// unpacker), detects the tree, and compares its NAR hash with the
// recorded one and its listing with before, the listing of the
// detection that recorded the hash (nil: none known). An entry whose
// unpinned unpack fails too is not a mismatch (its unpack error is Nix's
// log) and is left out. Local store only: with --store it returns nil.
func (o *Outcome) PinMismatches(ctx context.Context, m ManifestOutcome, before func(Entry) *features.Tree) ([]PinMismatch, error) {
	if o.runner.Store != "" {
		return nil, nil
	}
	var out []PinMismatch
	var unpinned map[string]Derivation
	for _, e := range m.FailedEntries {
		if e.PinnedNarHash == "" {
			continue
		}
		valid, err := o.runner.Valid(ctx, []string{e.Unpack.Out})
		if err != nil {
			return nil, err
		}
		if valid[e.Unpack.Out] {
			continue
		}
		if unpinned == nil {
			if unpinned, err = o.runner.unpinnedUnpacks(ctx, m.Manifest); err != nil {
				return nil, err
			}
		}
		u, ok := unpinned[e.RelativePath]
		if !ok {
			continue
		}
		if err := o.runner.Realise(ctx, []string{u.Drv}); err != nil {
			continue
		}
		f, err := facts.Detect(u.Out)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID(), err)
		}
		if f.NarHash == e.PinnedNarHash {
			continue
		}
		out = append(out, PinMismatch{Entry: e, Recorded: e.PinnedNarHash, Got: f.NarHash, FirstDiff: FirstListingDiff(before(e), &f.Tree)})
	}
	return out, nil
}

// FirstListingDiff names the first path, in byte order, that the listing
// of one tree has and the other's has not (as a file, symlink or empty
// directory). before nil: the recorded tree's listing is unknown.
func FirstListingDiff(before, now *features.Tree) string {
	if before == nil {
		return "unknown (no detection of the recorded tree: its aggregate_<version> link is gone)"
	}
	a, b := listing(before), listing(now)
	var diffs []string
	for p, k := range a {
		if b[p] != k {
			diffs = append(diffs, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			diffs = append(diffs, p)
		}
	}
	if len(diffs) == 0 {
		return "none in the listing (same files, symlinks and empty directories): a file's content or executable bit, or a symlink's target, differs"
	}
	sort.Strings(diffs)
	p := diffs[0]
	return fmt.Sprintf("%s (recorded: %s; now: %s)", p, kindOr(a[p]), kindOr(b[p]))
}

func listing(t *features.Tree) map[string]string {
	m := map[string]string{}
	for _, l := range []struct {
		kind  string
		paths []string
	}{{"file", t.Files}, {"symlink", t.Symlinks}, {"empty directory", t.EmptyDirs}} {
		for _, p := range l.paths {
			m[p] = l.kind
		}
	}
	return m
}

func kindOr(k string) string {
	if k == "" {
		return "absent"
	}
	return k
}

// unpinnedUnpacks evaluates the manifest's pipeline again, asking also
// for each pinned unpack without its pin (nix/cli.nix's "unpinned"), and
// returns them by relative path: one more derivation per archive, so
// only when a pin failed.
func (r *Runner) unpinnedUnpacks(ctx context.Context, m Manifest) (map[string]Derivation, error) {
	a := r.cliArgs([]Manifest{m})
	a.Unpinned = true
	data, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	out, err := r.evalCLI(ctx, data, true, r.Stderr)
	if err != nil {
		return nil, err
	}
	var res cliResult
	if err := jsoncheck.Unmarshal("evaluate the unpinned unpacks: nix-instantiate's output", out, &res); err != nil {
		return nil, err
	}
	found := map[string]Derivation{}
	for _, pm := range res.Manifests {
		for _, e := range pm.Entries {
			if e.Unpinned.Drv != "" {
				found[e.RelativePath] = e.Unpinned
			}
		}
	}
	return found, nil
}

func unpinnedUnpacks(entries []Entry) []string {
	var drvs []string
	for _, e := range entries {
		if e.PinnedNarHash == "" {
			drvs = append(drvs, e.Unpack.Drv)
		}
	}
	return drvs
}

// Unpacked is a tree an unpinned unpack wrote and its NAR hash, in SRI
// form (pinned now: Runner.PinUnpacked).
type Unpacked struct {
	Entry        Entry
	ManifestPath string
	NarHash      string
}

// PinUnpacked builds the unpacks of the manifests that no recorded hash
// pins, and registers each tree built at the store path of its pinned
// unpack (`nix store add-path --name`: the path of a recursive SHA-256
// fixed-output derivation of that name and hash), so that the run's
// detections, instantiated afterwards with the new records, read the
// pinned trees and the next run rebuilds nothing. It returns the trees
// for the caller to record; failed unpacks are left to the main build,
// which reports them. Local store only (nil with --store: the records
// are then made after the run, from the detections).
func (r *Runner) PinUnpacked(ctx context.Context, v *Validated, log *slog.Logger) ([]Unpacked, error) {
	if r.Store != "" {
		return nil, nil
	}
	out, err := r.Process(ctx, v, ProcessOptions{Build: BuildUnpacks, Log: log})
	if err != nil {
		return nil, err
	}
	defer out.Close()
	// The records change what the manifests' arguments name: the run's
	// next instantiation must evaluate them again.
	defer func() { r.plans = nil }()
	var trees []Unpacked
	for _, m := range out.Manifests {
		for _, e := range m.Entries {
			if e.PinnedNarHash != "" {
				continue
			}
			u, ok, err := r.pinTree(ctx, e)
			if err != nil {
				return nil, err
			}
			if ok {
				u.ManifestPath = m.Path
				trees = append(trees, u)
			}
		}
	}
	return trees, nil
}

// pinTree registers e's unpacked tree at its pinned path; ok is false
// when the unpack did not build.
func (r *Runner) pinTree(ctx context.Context, e Entry) (_ Unpacked, ok bool, _ error) {
	if _, err := os.Lstat(e.Unpack.Out); err != nil {
		return Unpacked{}, false, nil
	}
	var hash bytes.Buffer
	cmd := nixexec.Command("nix-store", "--query", "--hash", e.Unpack.Out)
	cmd.Stdout, cmd.Stderr = &hash, r.Stderr
	if err := cmd.Run(ctx); err != nil {
		return Unpacked{}, false, fmt.Errorf("entry %s: nix-store --query --hash: %w", e.ID(), err)
	}
	algo := nixhash.SHA256
	h, err := nixhash.ParseAny(strings.TrimSpace(hash.String()), &algo)
	if err != nil {
		return Unpacked{}, false, fmt.Errorf("entry %s: the NAR hash Nix gives: %w", e.ID(), err)
	}
	sri, err := narhash.SRI(h.Digest())
	if err != nil {
		return Unpacked{}, false, err
	}
	// The store path's name: what follows "<32 characters of hash>-".
	name := filepath.Base(e.Unpack.Out)[33:]
	add := nixexec.Command("nix", append([]string{"--extra-experimental-features", "nix-command", "store", "add-path", "--name", name, e.Unpack.Out}, r.optionArgs(ctx)...)...)
	add.Stdout, add.Stderr = io.Discard, r.Stderr
	if err := add.Run(ctx); err != nil {
		return Unpacked{}, false, fmt.Errorf("entry %s: nix store add-path: %w", e.ID(), err)
	}
	return Unpacked{Entry: e, NarHash: sri}, true, nil
}
