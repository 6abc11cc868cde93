package nixpkgscheck

import (
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// Manifest is one manifest given to the check. Its archives are not
// here: the check takes them (Input.Archives) from the Nix walker, as
// the pipeline builds them.
type Manifest struct {
	Redist  string // the manifest directory's name: "cuda", "cudnn", ... (or --redist's)
	Version string
	// Releases maps each package of the manifest to its version: what the
	// stand-in's manifests attribute gives a package file.
	Releases map[string]string
	Dir      string // the manifest directory, for messages
	// Parsed is the manifest as read (names, licences: the lineage and
	// licence hints); nil leaves it out of them.
	Parsed *manifest.Manifest
}

// Archive is one archive of the manifests, as the pipeline (nix/cli.nix's
// entries) lists it.
type Archive struct {
	Redist   string
	Manifest string // the manifest's version
	// DetectedArchive is the archive and its detection; Features is nil
	// when it could not be fetched, unpacked or detected (or nothing was
	// fetched: EvalOnly).
	manifest.DetectedArchive
	// Failure is, when Features is nil because a build failed, what
	// failed and why ("fetch failed: error: unable to download …"), as
	// Nix's log said; "" when unknown.
	Failure string
}

// Refused is a manifest the parser refused, and why.
type Refused struct {
	Path string
	Err  error
}

// Input is everything a check starts from.
type Input struct {
	Manifests []Manifest
	// Refused are the manifests that could not be read: each is one
	// failure of the report, and the others are checked all the same.
	Refused  []Refused
	Archives []Archive
	// CudaVersion is --cuda-version: "" for the default rule (CudaVersion).
	CudaVersion string
	// EvalOnly: no archive was fetched, only the package files are
	// evaluated; missing detections are then no failure.
	EvalOnly bool
	// Globstar is bash's globstar for buildRedist's patterns.
	Globstar bool
	// PackagesDir names the packages directory in messages.
	PackagesDir string
	// Vendored, when set, adds a hint for each vendored library a
	// package file keeps.
	Vendored *VendoredCheck
	// ReadFile reads a package file (relative to the packages
	// directory) for the licence hints; nil leaves them out.
	ReadFile func(file string) ([]byte, error)
}

// Plan is a check's evaluation cases and the archives to check, each
// with the case its package file is evaluated for.
type Plan struct {
	in Input
	// Cases are what the package files are evaluated for (pkgeval), in
	// the order of the archives that first need them.
	Cases []pkgeval.Case
	// CaseNames name the cases in messages.
	CaseNames []string
	targets   []target
}

// target is one archive to check and its case.
type target struct {
	Archive
	cudaVersion string
	caseIndex   int
}

// caseKey identifies an evaluation case: a platform and CUDA version for
// one manifest.
type caseKey struct{ platform, cudaVersion, redist, version string }

// NewPlan works out the cases of the input's archives (all but Windows
// ones). A case is made even for an archive whose detection failed, so a
// file's evaluation errors show without any archive.
func NewPlan(in Input) *Plan {
	releases := map[[2]string]map[string]string{}
	for _, m := range in.Manifests {
		releases[[2]string{m.Redist, m.Version}] = m.Releases
	}
	p := &Plan{in: in}
	index := map[caseKey]int{}
	for _, a := range in.Archives {
		if !Checked(a.Platform) {
			continue
		}
		tg := target{Archive: a, cudaVersion: CudaVersion(in.CudaVersion, a.Redist, a.Manifest, a.Variant)}
		key := caseKey{EvalPlatform(a.Platform), tg.cudaVersion, a.Redist, a.Manifest}
		i, ok := index[key]
		if !ok {
			i = len(p.Cases)
			index[key] = i
			p.Cases = append(p.Cases, pkgeval.Case{Platform: key.platform, CudaVersion: key.cudaVersion, RedistName: key.redist,
				Releases: releases[[2]string{key.redist, key.version}]})
			p.CaseNames = append(p.CaseNames, fmt.Sprintf("%s %s on %s with CUDA %s", key.redist, key.version, key.platform, key.cudaVersion))
		}
		tg.caseIndex = i
		if !in.EvalOnly {
			p.targets = append(p.targets, tg)
		}
	}
	return p
}
