package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/nixdriver"
)

// pinUnpacks (unless !pin, --pin-unpacked=false) points each manifest at the unpacked-hashes.json beside it,
// validated here so that a bad file is named with its key, not as a Nix
// evaluation error. A missing file pins nothing and is written after the
// run (recordUnpackedHashes).
func pinUnpacks(pin bool, ms []nixdriver.Manifest) (map[string]*manifest.UnpackedHashes, error) {
	if !pin {
		return nil, nil
	}
	files := map[string]*manifest.UnpackedHashes{}
	for i := range ms {
		path := hashesFileOf(ms[i].Path)
		h, ok := files[path]
		if !ok {
			var err error
			if h, err = manifest.ReadUnpackedHashes(path); err != nil {
				return nil, err
			}
			files[path] = h
		}
		if len(h.Archives) > 0 {
			ms[i].UnpackedHashes = path
		}
	}
	return files, nil
}

// recordUnpackedHashes records the NAR hash of every tree this run
// unpacked without a pin, from its detection (which holds it), in the
// unpacked-hashes.json beside its manifest: the next run unpacks those
// archives with fixed-output derivations.
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
	return p.writeChanged(changed)
}

// writeChanged writes each unpacked-hashes.json whose records changed
// (changed[path]) and says so.
func (p *processRun) writeChanged(changed map[string]bool) error {
	for path, c := range changed {
		if !c {
			continue
		}
		if err := p.hashes[path].Write(path); err != nil {
			return err
		}
		p.e.log.Info("recorded unpacked NAR hashes: these archives are unpacked as fixed-output derivations from now on", "file", path)
	}
	return nil
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

// pinProblems explains the entries of m whose pinned unpack failed its
// hash (nixdriver.PinMismatches): the archive, both hashes and the first
// differing path, against the listing in the detection of the previous
// run (the aggregate_<version> link's detail.json).
func (p *processRun) pinProblems(ctx context.Context, out *nixdriver.Outcome, m nixdriver.ManifestOutcome) ([]string, error) {
	if m.Built || len(p.hashes) == 0 {
		return nil, nil
	}
	detail := previousDetail(aggregateLink(p.linkDir, m.Path, m.Version))
	before := func(e nixdriver.Entry) *features.Tree {
		d, ok := detail[e.Package][e.Platform][e.Variant.String()]
		if !ok || d.Features == nil || d.SHA256 != e.SHA256 || d.Features.NarHash != e.PinnedNarHash {
			return nil
		}
		return &d.Features.Tree
	}
	mismatches, err := out.PinMismatches(ctx, m, before)
	if err != nil {
		return nil, err
	}
	problems := make([]string, len(mismatches))
	for i, mm := range mismatches {
		problems[i] = m.Path + ": " + mm.Error()
	}
	return problems, nil
}

// previousDetail is the detail.json of an earlier run's aggregate, or
// nil when there is none to read.
func previousDetail(link string) features.Detail {
	path := filepath.Join(link, "detail.json")
	data, err := os.ReadFile(path)
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
	trees, err := p.runner.PinUnpacked(ctx, v, p.e.log)
	if err != nil {
		return err
	}
	if err := p.recordTrees(trees); err != nil {
		return err
	}
	for i := range v.Good {
		path := hashesFileOf(v.Good[i].Path)
		if h := p.hashes[path]; h != nil && len(h.Archives) > 0 {
			v.Good[i].UnpackedHashes = path
		}
	}
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
	return p.writeChanged(changed)
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
			if h.Lookup(a.RelativePath, a.SHA256) == "" {
				return false
			}
		}
	}
	return true
}
