package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// verifyPinnedHelp is --verify-pinned's help, the same for both commands.
const verifyPinnedHelp = "trust no earlier check of the recorded unpacked trees (" + manifest.UnpackedHashesFile +
	"): unpack every pinned archive again without its record and compare the tree's NAR hash with it (docs/safety.md)"

// readRecords reads (unless !pin, --pin-unpacked=false) the
// unpacked-hashes.json beside each manifest, checked here so that a bad
// file is named with its key, not as a Nix evaluation error. A missing
// file is an empty record.
func readRecords(pin bool, ms []nixdriver.Manifest) (map[string]*manifest.UnpackedHashes, error) {
	if !pin {
		return nil, nil
	}
	files := map[string]*manifest.UnpackedHashes{}
	for _, m := range ms {
		path := hashesFileOf(m.Path)
		if _, ok := files[path]; ok {
			continue
		}
		h, err := manifest.ReadUnpackedHashes(path)
		if err != nil {
			return nil, err
		}
		files[path] = h
	}
	return files, nil
}

// recordOf is the record beside each manifest, for Validated.Pin.
func recordOf(files map[string]*manifest.UnpackedHashes) func(string) *manifest.UnpackedHashes {
	return func(manifestPath string) *manifest.UnpackedHashes { return files[hashesFileOf(manifestPath)] }
}

// openWitnesses opens this user's witnesses of unpacked trees; without
// them (no cache directory, or one another user can write) every record
// is checked against the store or unpacked again, with one warning.
func openWitnesses(log *slog.Logger) *nixdriver.Witnesses {
	witnessesOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err == nil {
			if witnesses, err = nixdriver.OpenWitnesses(cache); err == nil {
				return
			}
		}
		log.Warn("no witnesses of unpacked trees kept: each recorded tree is checked again (its unpack built when the store cannot vouch for it)", "error", err)
	})
	return witnesses
}

// witnesses are opened once a run (openWitnesses), so a refusal is one
// warning.
var (
	witnessesOnce sync.Once
	witnesses     *nixdriver.Witnesses
)

// checkPins checks the records the manifests use (nixdriver.CheckPins):
// a manifest whose record is not its archive's unpack is refused.
func checkPins(ctx context.Context, r *nixdriver.Runner, v *nixdriver.Validated, verifyAll bool, before func(nixdriver.Entry) *features.Tree, log *slog.Logger) error {
	return r.CheckPins(ctx, v, nixdriver.PinCheck{VerifyAll: verifyAll, Witnesses: openWitnesses(log), Before: before, Log: log})
}

// recordUnpackedHashes records the NAR hash of every tree this run
// unpacked without a pin, from its detection (which holds it), in the
// unpacked-hashes.json beside its manifest: the next run unpacks those
// archives with fixed-output derivations. (With --store or --cleanup;
// otherwise pinFirst recorded them before the build.)
func (p *processRun) recordUnpackedHashes(ctx context.Context, out *nixdriver.Outcome) error {
	changed := map[string]bool{}
	for _, m := range out.Manifests {
		path := hashesFileOf(m.Path)
		h := p.hashes[path]
		if h == nil {
			continue
		}
		c, err := recordManifest(ctx, out, m, h)
		if err != nil {
			return err
		}
		changed[path] = changed[path] || c
	}
	p.writeChanged(changed)
	return nil
}

// writeChanged writes each unpacked-hashes.json whose records changed
// (changed[path]) or that was of format 1, and says so. A file that
// cannot be written (a read-only directory) is one warning naming it and
// why: the run's results do not depend on it, only the next run's
// reuse of the trees.
func (p *processRun) writeChanged(changed map[string]bool) {
	for path, h := range p.hashes {
		if !changed[path] && !h.Migrated {
			continue
		}
		migrated := h.Migrated
		if err := h.Write(path); err != nil {
			if !p.warnedUnwritable[path] {
				p.e.log.Warn("the unpacked trees' record could not be written; the results are complete, but the next run unpacks these archives again (make the directory writable, or pass --pin-unpacked=false)", "file", path, "error", err)
				p.warnedUnwritable[path] = true
			}
			continue
		}
		if migrated {
			p.e.log.Info("rewrote the unpacked trees' record in format 2 (keyed by the archive's sha256)", "file", path)
		}
		if changed[path] {
			p.e.log.Info("recorded unpacked NAR hashes: these archives are unpacked as fixed-output derivations from now on", "file", path)
		}
	}
}

// hashesFileOf is the unpacked-hashes.json of a manifest: the one beside it.
func hashesFileOf(manifestPath string) string {
	return filepath.Join(filepath.Dir(manifestPath), manifest.UnpackedHashesFile)
}

// recordManifest records in h the trees of m's entries that were unpacked
// without a pin, and says whether h changed.
func recordManifest(ctx context.Context, out *nixdriver.Outcome, m nixdriver.ManifestOutcome, h *manifest.UnpackedHashes) (bool, error) {
	changed := false
	for _, e := range m.BuiltEntries {
		if e.PinnedNarHash != "" {
			continue
		}
		narHash, err := out.UnpackedNarHash(ctx, e)
		if err != nil {
			return false, err
		}
		c, err := h.Record(e.RelativePath, e.SHA256, narHash)
		if err != nil {
			return false, fmt.Errorf("%s: %w", m.Path, err)
		}
		changed = changed || c
	}
	return changed, nil
}

// previousTree is, for CheckPins' messages, the listing of the tree the
// previous run detected for an entry (the aggregate_<version> link's
// detail.json), when it is the recorded tree.
func (p *processRun) previousTree(e nixdriver.Entry) *features.Tree {
	detail := previousDetail(aggregateLink(p.linkDir, p.manifestPathOf(e), e.Manifest))
	d, ok := detail[e.Package][e.Platform][e.Variant.String()]
	if !ok || d.Features == nil || d.SHA256 != e.SHA256 || d.Features.NarHash != e.PinnedNarHash {
		return nil
	}
	return &d.Features.Tree
}

// manifestPathOf is the path of the manifest of e's version.
func (p *processRun) manifestPathOf(e nixdriver.Entry) string {
	for _, m := range p.manifests {
		if m.Version == e.Manifest {
			return m.Path
		}
	}
	return ""
}

// previousDetail is the detail.json of an earlier run's aggregate, or
// nil when there is none to read.
func previousDetail(link string) features.Detail {
	path := filepath.Join(link, "detail.json")
	data, err := inputfile.Read(path, inputfile.MaxDocument)
	if err != nil {
		return nil
	}
	var d features.Detail
	if jsoncheck.Unmarshal(path, data, &d) != nil {
		return nil
	}
	return d
}

// pinFirst records the NAR hashes of the trees no record pins before
// anything is detected (nixdriver.PinUnpacked builds those unpacks and
// registers the trees at their pinned paths), and points the manifests
// at the records: the run's detections then read the pinned trees, and
// the next run rebuilds nothing.
//
// Nothing to do when every archive has a record (the usual run: no
// second evaluation, no extra build), and skipped with --cleanup, which
// removes the trees anyway (the records are then made after the run).
func (p *processRun) pinFirst(ctx context.Context, v *nixdriver.Validated) error {
	if p.hashes == nil || p.cleanup || p.allPinned(v) {
		return nil
	}
	trees, err := p.runner.PinUnpacked(ctx, v, openWitnesses(p.e.log), p.e.log)
	if err != nil {
		return err
	}
	if err := p.recordTrees(trees); err != nil {
		return err
	}
	v.Pin(recordOf(p.hashes))
	return nil
}

// recordTrees records the trees' hashes and writes the files that changed.
func (p *processRun) recordTrees(trees []nixdriver.Unpacked) error {
	changed := map[string]bool{}
	for _, u := range trees {
		path := hashesFileOf(u.ManifestPath)
		c, err := p.hashes[path].Record(u.Entry.RelativePath, u.Entry.SHA256, u.NarHash)
		if err != nil {
			return fmt.Errorf("%s: %w", u.ManifestPath, err)
		}
		changed[path] = changed[path] || c
	}
	p.writeChanged(changed)
	return nil
}

// allPinned says whether every archive of the manifests has a record.
func (p *processRun) allPinned(v *nixdriver.Validated) bool {
	for _, m := range v.Good {
		h := p.hashes[hashesFileOf(m.Path)]
		mf, err := manifest.ReadFile(m.Path)
		if err != nil || h == nil {
			return false
		}
		for _, a := range mf.Archives() {
			if h.Lookup(a.SHA256) == "" {
				return false
			}
		}
	}
	return true
}

// pinProblems explains the entries of m whose pinned unpack failed its
// hash in the build (nixdriver.PinMismatches): the archive, both hashes
// and the first differing path.
func (p *processRun) pinProblems(ctx context.Context, out *nixdriver.Outcome, m nixdriver.ManifestOutcome) ([]string, error) {
	if m.Built || len(p.hashes) == 0 {
		return nil, nil
	}
	mismatches, err := out.PinMismatches(ctx, m, p.previousTree)
	if err != nil {
		return nil, err
	}
	problems := make([]string, len(mismatches))
	for i, mm := range mismatches {
		problems[i] = m.Path + ": " + mm.Error()
	}
	return problems, nil
}
