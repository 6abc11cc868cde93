package nixdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/nix-community/go-nix/pkg/nixhash"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixexec"
)

// The trust model of a pinned unpack (docs/safety.md, "Pinned unpacks").
// A pinned unpack is a fixed-output derivation: its store path P depends
// on its name (the archive's stem and sha256) and the recorded NAR hash
// alone, and any client of the store can make P valid with any tree of
// that hash (nix store add-path, or a fixed-output derivation of its
// own), without building ours. The record is a file people commit. So a
// record is taken only once this tool knows that unpacking the archive
// of that sha256 gives that tree, by one of:
//
//   - a witness of this user's own (Witnesses): an earlier run saw it;
//   - P's path info says the daemon built it (ultimate) from this run's
//     own pinned unpack derivation (deriver): no client can set ultimate,
//     and the derivation's inputs are the archive (fixed by its sha256)
//     and this detector, so P is what this tool unpacked;
//   - the same unpack built without the pin (input-addressed: only the
//     daemon building exactly that derivation makes it valid) has the
//     recorded NAR hash.
//
// Otherwise the record is wrong (or P was planted): the manifests that
// use it are refused, naming the archive and both hashes, and nothing
// reads P.

// PinMismatch is an entry whose recorded tree is not what this tool
// unpacks its archive to.
type PinMismatch struct {
	Entry Entry
	// Recorded is the pinned hash, Got that of the tree this run's
	// unpacker writes (the entry's unpack built without the pin); Got ""
	// when that unpack failed too.
	Recorded, Got string
	// FirstDiff is the first path (in byte order) that is in one tree's
	// listing and not in the other's, with which one; or, when the
	// listings agree, a sentence saying so.
	FirstDiff string
}

func (m PinMismatch) Error() string {
	if m.Got == "" {
		return fmt.Sprintf("entry %s (%s): the tree recorded in unpacked-hashes.json (%s) could not be checked: the archive's unpack failed (see the build log above); nothing is read from the recorded tree",
			m.Entry.ID(), m.Entry.RelativePath, m.Recorded)
	}
	return fmt.Sprintf("entry %s (%s): the unpacked tree is not the one recorded in unpacked-hashes.json: recorded %s, unpacked now %s (archive sha256 %s); first difference: %s. "+
		"The recorded tree is never read as this archive's unpack. If the new tree is right, delete the archive's record (the next run records the new hash); "+
		"else the record is wrong (review where it came from) or the unpacker changed its output (a bug)",
		m.Entry.ID(), m.Entry.RelativePath, m.Recorded, m.Got, m.Entry.SHA256, m.FirstDiff)
}

// PinCheck is how CheckPins runs.
type PinCheck struct {
	// VerifyAll (--verify-pinned) trusts no witness and no path info:
	// every pinned archive is unpacked again without its pin, and its
	// tree's NAR hash compared with the record.
	VerifyAll bool
	// Witnesses are this user's; nil: none kept.
	Witnesses *Witnesses
	// Before is the listing of the tree the previous run detected for an
	// entry (nil: unknown), for the first difference of a mismatch.
	Before func(Entry) *features.Tree
	Log    *slog.Logger
}

// CheckPins makes sure every record that pins an unpack of v's manifests
// is this tool's unpack of that archive, before anything is built from
// them. A manifest with a record that is not is moved to v.Refused, with
// the mismatches named; the others go on. With every record witnessed
// (the usual run) it evaluates and builds nothing.
func (r *Runner) CheckPins(ctx context.Context, v *Validated, c PinCheck) error {
	if !c.VerifyAll && r.allWitnessed(v, c.Witnesses) {
		return nil
	}
	plan, err := r.pinPlan(ctx, v.Good)
	if err != nil {
		// Without the plan nothing can be checked, and the run stops:
		// going on without the records is not enough, since a later step
		// (the recording of new hashes) pins the manifests' records again,
		// and one unchecked record is all a planted tree needs.
		return fmt.Errorf("check the recorded unpacked trees (unpacked-hashes.json): %w", err)
	}
	pinned := pinnedEntries(plan)
	unsure := pinned
	if !c.VerifyAll {
		if unsure, err = r.unwitnessed(ctx, pinned, c.Witnesses); err != nil {
			return err
		}
	}
	mismatches, err := r.verifyUnpinned(ctx, unsure, c)
	if err != nil {
		return err
	}
	refuseMismatched(v, plan, mismatches, c.Log)
	return nil
}

// allWitnessed: every (sha256, NAR hash) the manifests' records pin has a
// witness.
func (r *Runner) allWitnessed(v *Validated, w *Witnesses) bool {
	if w == nil {
		return false
	}
	for _, m := range v.Good {
		if m.UnpackedHashes == nil {
			continue
		}
		for sha, t := range m.UnpackedHashes.Trees {
			if !w.Has(sha, t.NarHash) {
				return false
			}
		}
	}
	return true
}

// pinPlan evaluates the manifests with each pinned unpack's unpinned
// twin and its detection.
func (r *Runner) pinPlan(ctx context.Context, ms []Manifest) (*cliResult, error) {
	a := r.cliArgs(ms)
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
	if len(res.Manifests) != len(ms) {
		return nil, fmt.Errorf("evaluate the unpinned unpacks: %d manifests in, %d out", len(ms), len(res.Manifests))
	}
	for i := range res.Manifests {
		for j := range res.Manifests[i].Entries {
			e := &res.Manifests[i].Entries[j]
			e.Manifest, e.Redist = ms[i].Version, ms[i].RedistName
		}
	}
	return &res, nil
}

// pinnedEntries are the plan's pinned entries, one per pinned path.
func pinnedEntries(plan *cliResult) []Entry {
	seen := map[string]bool{}
	var out []Entry
	for _, m := range plan.Manifests {
		for _, e := range m.Entries {
			if e.PinnedNarHash != "" && !seen[e.Unpack.Out] {
				seen[e.Unpack.Out] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// unwitnessed builds the pinned unpacks that no witness vouches for and
// returns those whose path the daemon did not build from this run's own
// derivation; the others get a witness.
func (r *Runner) unwitnessed(ctx context.Context, entries []Entry, w *Witnesses) ([]Entry, error) {
	var todo []Entry
	for _, e := range entries {
		if !w.Has(e.SHA256, e.PinnedNarHash) {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	// A record the unpacker does not reproduce fails here, with Nix's
	// hash mismatch in the log; verifyUnpinned names it.
	infos, err := r.buildAndQuery(ctx, todo, func(e Entry) Derivation { return e.Unpack })
	if err != nil {
		return nil, err
	}
	var unsure []Entry
	for _, e := range todo {
		info, ok := infos[e.Unpack.Out]
		if ok && info.Ultimate && info.Deriver == e.Unpack.Drv && info.NarHash == e.PinnedNarHash {
			w.Add(e.SHA256, e.PinnedNarHash)
			continue
		}
		unsure = append(unsure, e)
	}
	return unsure, nil
}

// verifyUnpinned builds each entry's unpack without its pin and compares
// its NAR hash with the record: a match gets a witness, a mismatch is
// returned (with the first difference of the listings, from the
// detection of the unpinned tree).
func (r *Runner) verifyUnpinned(ctx context.Context, entries []Entry, c PinCheck) ([]PinMismatch, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	c.Log.Info("checking recorded unpacked trees: unpacking their archives without the record", "archives", len(entries))
	infos, err := r.buildAndQuery(ctx, entries, func(e Entry) Derivation { return e.Unpinned })
	if err != nil {
		return nil, err
	}
	var out []PinMismatch
	for _, e := range entries {
		info, ok := infos[e.Unpinned.Out]
		switch {
		case !ok:
			out = append(out, PinMismatch{Entry: e, Recorded: e.PinnedNarHash})
		case info.NarHash == e.PinnedNarHash:
			c.Witnesses.Add(e.SHA256, e.PinnedNarHash)
		default:
			m := PinMismatch{Entry: e, Recorded: e.PinnedNarHash, Got: info.NarHash}
			m.FirstDiff = r.firstDiff(ctx, e, c.Before)
			out = append(out, m)
		}
	}
	return out, nil
}

// firstDiff builds the detection of the unpinned tree and compares its
// listing with the previous run's.
func (r *Runner) firstDiff(ctx context.Context, e Entry, before func(Entry) *features.Tree) string {
	if err := r.Realise(ctx, []string{e.UnpinnedDetect.Drv}); err != nil {
		return "unknown (the detection of the new tree failed)"
	}
	data, err := r.ReadFile(ctx, e.UnpinnedDetect.Out)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	f, err := features.DecodeFeatures(e.UnpinnedDetect.Out, data)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	var prev *features.Tree
	if before != nil {
		prev = before(e)
	}
	return FirstListingDiff(prev, &f.Tree)
}

// refuseMismatched moves every manifest with a mismatched entry to
// v.Refused, with its mismatches.
func refuseMismatched(v *Validated, plan *cliResult, mismatches []PinMismatch, log *slog.Logger) {
	if len(mismatches) == 0 {
		return
	}
	bad := map[string]PinMismatch{}
	for _, m := range mismatches {
		bad[m.Entry.Unpack.Out] = m
	}
	var good []Manifest
	for i, m := range v.Good {
		var msgs []string
		for _, e := range plan.Manifests[i].Entries {
			if mm, ok := bad[e.Unpack.Out]; ok && e.PinnedNarHash != "" {
				mm.Entry = e
				msgs = append(msgs, mm.Error())
			}
		}
		if len(msgs) == 0 {
			good = append(good, m)
			continue
		}
		log.Warn("manifest refused: a recorded unpacked tree is not its archive's; the others go on", "manifest", m.Path)
		v.Refused = append(v.Refused, Refused{Path: m.Path, Err: fmt.Errorf("manifest %s: %s", m.Path, strings.Join(msgs, "; "))})
	}
	v.Good = good
}

func outsOf(entries []Entry, f func(Entry) string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = f(e)
	}
	return out
}

// buildAndQuery builds the derivation d of each entry (each whatever the
// others do) and returns the path info of the outputs that are valid
// then.
func (r *Runner) buildAndQuery(ctx context.Context, entries []Entry, d func(Entry) Derivation) (map[string]pathInfo, error) {
	if err := r.realiseKeepGoing(ctx, outsOf(entries, func(e Entry) string { return d(e).Drv })); ctx.Err() != nil {
		return nil, err
	}
	return r.pathInfos(ctx, outsOf(entries, func(e Entry) string { return d(e).Out }))
}

// realiseKeepGoing builds drvs, each whatever the others do; the caller
// looks at what is valid afterwards.
func (r *Runner) realiseKeepGoing(ctx context.Context, drvs []string) error {
	saved := r.BuildArgs
	r.BuildArgs = append(append([]string{}, saved...), "--keep-going")
	defer func() { r.BuildArgs = saved }()
	return r.Realise(ctx, drvs)
}

// pathInfo is what `nix path-info --json` says of a valid path.
type pathInfo struct {
	Path     string `json:"path"`
	NarHash  string `json:"narHash"`
	Deriver  string `json:"deriver"`
	Ultimate bool   `json:"ultimate"`
}

// pathInfos is the path info of those of paths that are valid in the
// build's store (the local one, or r.Store).
func (r *Runner) pathInfos(ctx context.Context, paths []string) (map[string]pathInfo, error) {
	valid, err := r.Valid(ctx, paths)
	if err != nil {
		return nil, err
	}
	var ask []string
	for p, ok := range valid {
		if ok {
			ask = append(ask, p)
		}
	}
	sort.Strings(ask)
	args := append(append([]string{}, nixCommand...), "path-info", "--json")
	if r.Store != "" {
		args = append(args, "--store", r.Store)
	}
	args = append(args, r.optionArgs(ctx)...)
	batches, err := nixexec.Batches(args, ask)
	if err != nil {
		return nil, fmt.Errorf("nix path-info: %w", err)
	}
	infos := map[string]pathInfo{}
	for _, batch := range batches {
		errOut := &nixexec.LimitedBuffer{Max: maxMessage}
		cmd := nixexec.Command("nix", append(append([]string{}, args...), batch...)...)
		cmd.Stderr = errOut
		out, err := cmd.Output(ctx)
		if err != nil {
			return nil, fmt.Errorf("nix path-info: %w: %s", err, strings.TrimSpace(errOut.String()))
		}
		list, err := decodePathInfos(out)
		if err != nil {
			return nil, err
		}
		for _, i := range list {
			infos[i.Path] = i
		}
	}
	return infos, nil
}

// decodePathInfos reads `nix path-info --json`: a list up to Nix 2.18, an
// object by path since; the NAR hash in SRI form whatever Nix spells.
func decodePathInfos(out []byte) ([]pathInfo, error) {
	const what = "nix path-info --json"
	var list []pathInfo
	if t := bytes.TrimSpace(out); len(t) > 0 && t[0] == '{' {
		var byPath map[string]pathInfo
		if err := jsoncheck.Unmarshal(what, out, &byPath); err != nil {
			return nil, err
		}
		for p, i := range byPath {
			i.Path = p
			list = append(list, i)
		}
	} else if err := jsoncheck.Unmarshal(what, out, &list); err != nil {
		return nil, err
	}
	for k := range list {
		sri, err := sriOf(list[k].NarHash)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", what, list[k].Path, err)
		}
		list[k].NarHash = sri
	}
	return list, nil
}

// sriOf is a SHA-256 hash as Nix prints it, in SRI form.
func sriOf(s string) (string, error) {
	algo := nixhash.SHA256
	h, err := nixhash.ParseAny(s, &algo)
	if err != nil {
		return "", fmt.Errorf("the NAR hash %q: %w", s, err)
	}
	sri, err := nixhash.NewHashWithEncoding(nixhash.SHA256, h.Digest(), nixhash.SRI, true)
	if err != nil {
		return "", err
	}
	return sri.String(), nil
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
// pinned trees and the next run rebuilds nothing. Each tree is witnessed
// (w): this run unpacked it. It returns the trees for the caller to
// record; failed unpacks are left to the main build, which reports them.
// Local store only (nil with --store: the records are then made after
// the run, from the detections).
func (r *Runner) PinUnpacked(ctx context.Context, v *Validated, w *Witnesses, log *slog.Logger) ([]Unpacked, error) {
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
	var todo []Entry
	var where []string
	for _, m := range out.Manifests {
		for _, e := range m.Entries {
			if e.PinnedNarHash == "" {
				todo = append(todo, e)
				where = append(where, m.Path)
			}
		}
	}
	infos, err := r.pathInfos(ctx, outsOf(todo, func(e Entry) string { return e.Unpack.Out }))
	if err != nil {
		return nil, err
	}
	var trees []Unpacked
	for i, e := range todo {
		info, ok := infos[e.Unpack.Out]
		if !ok {
			continue
		}
		if err := r.addPinned(ctx, e, info.NarHash); err != nil {
			return nil, err
		}
		w.Add(e.SHA256, info.NarHash)
		trees = append(trees, Unpacked{Entry: e, ManifestPath: where[i], NarHash: info.NarHash})
	}
	return trees, nil
}

// addPinned registers e's unpacked tree (input-addressed: this run's)
// at the path of its pinned unpack.
func (r *Runner) addPinned(ctx context.Context, e Entry, narHash string) error {
	if e.PinnedName == "" {
		return fmt.Errorf("entry %s: no pinned name in the plan", e.ID())
	}
	add := nixexec.Command("nix", append([]string{"--extra-experimental-features", "nix-command", "store", "add-path", "--name", e.PinnedName, e.Unpack.Out}, r.optionArgs(ctx)...)...)
	add.Stdout, add.Stderr = io.Discard, r.Stderr
	if err := add.Run(ctx); err != nil {
		return fmt.Errorf("entry %s: nix store add-path: %w", e.ID(), err)
	}
	return nil
}

// PinMismatches explains the failed entries of m whose pinned unpack is
// missing from the store after the build: a witnessed record (so not
// checked before the build) whose tree was collected, and that this
// unpacker no longer reproduces (Nix's hash mismatch). It builds each
// one's unpack without the pin and compares, as CheckPins does; an entry
// whose unpinned unpack fails too is named so. Local store only.
func (o *Outcome) PinMismatches(ctx context.Context, m ManifestOutcome, before func(Entry) *features.Tree) ([]PinMismatch, error) {
	r := o.runner
	var pinned []Entry
	for _, e := range m.FailedEntries {
		if e.PinnedNarHash != "" {
			pinned = append(pinned, e)
		}
	}
	if r.Store != "" || len(pinned) == 0 {
		return nil, nil
	}
	valid, err := r.Valid(ctx, outsOf(pinned, func(e Entry) string { return e.Unpack.Out }))
	if err != nil {
		return nil, err
	}
	plan, err := r.pinPlan(ctx, []Manifest{m.Manifest})
	if err != nil {
		return nil, err
	}
	twins := map[string]Entry{}
	for _, e := range plan.Manifests[0].Entries {
		twins[e.Unpack.Out] = e
	}
	var missing []Entry
	for _, e := range pinned {
		if t, ok := twins[e.Unpack.Out]; ok && !valid[e.Unpack.Out] {
			missing = append(missing, t)
		}
	}
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	return r.verifyUnpinned(ctx, missing, PinCheck{Before: before, Log: log})
}
