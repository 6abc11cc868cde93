package nixdriver

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// CheckInput fills what check-nixpkgs checks from a run (BuildDetections,
// or BuildNothing for --eval-only): the manifests with their release
// versions, the manifests the Go parser refused, and every archive of
// nix/cli.nix's entries (the Nix walker's list, the one the pipeline
// builds), with its detection when it built. An archive whose detection
// did not build, or of a platform the check skips, has no Features.
func (o *Outcome) CheckInput(ctx context.Context, in *nixpkgscheck.Input, log *slog.Logger) {
	for _, r := range o.Refused {
		in.Refused = append(in.Refused, nixpkgscheck.Refused{Path: r.Path, Err: r.Err})
	}
	for _, m := range o.Manifests {
		releases := map[string]string{}
		for pkg, r := range m.Parsed.Releases {
			releases[pkg] = r.Version
		}
		in.Manifests = append(in.Manifests, nixpkgscheck.Manifest{Redist: m.RedistName, Version: m.Version, Releases: releases, Dir: filepath.Dir(m.Path), Parsed: m.Parsed})
		built := map[string]bool{}
		for _, e := range m.BuiltEntries {
			built[e.Detect.Out] = true
		}
		for _, e := range m.Entries {
			a := nixpkgscheck.Archive{Redist: e.Redist, Manifest: e.Manifest, DetectedArchive: manifest.DetectedArchive{Archive: e.Archive}}
			if built[e.Detect.Out] && nixpkgscheck.Checked(e.Platform) {
				f, err := o.ReadFeatures(ctx, e)
				if err != nil {
					// Built but unreadable (a remote store that cannot be
					// read, a result the JSON check refuses): the archive
					// is then reported as not detected, and this says why.
					log.Warn("detection built but not readable", "archive", e.ID(), "error", err)
				}
				a.Features = f
			}
			in.Archives = append(in.Archives, a)
		}
	}
}
