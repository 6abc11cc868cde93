package nixlog

import (
	"path"
	"regexp"
	"strings"
)

// The rules in this file mirror the derivation names nix/pipeline.nix
// gives (fetch: the archive's file name; unpack: its stem; detect:
// <stem>-features.json; the aggregate <redist>-<version>-features, its
// buildRedist.json and the merged <name>-index). Renaming a derivation
// there means changing StageOf here, or the progress shows it as an
// unpack.

// Stage is the pipeline stage a derivation belongs to.
type Stage int

const (
	Fetch  Stage = iota // the fixed-output fetch of an archive
	Unpack              // the archive's unpacked tree
	Detect              // the archive's <stem>-features.json
	Other               // the aggregates: features, buildRedist.json, the index
	numStages
)

// archiveSuffix is what nix/pipeline.nix's stemOf strips from an archive's
// file name.
var archiveSuffix = regexp.MustCompile(`\.(tar\.xz|tar\.gz|tgz|tar\.bz2|tbz2|tar\.zst|tzst|tar|zip)$`)

// DrvName is a derivation's name: its store path's base name without the
// hash and ".drv".
func DrvName(drvPath string) string {
	name := strings.TrimSuffix(path.Base(drvPath), ".drv")
	// A store hash is 32 characters with no '-' among them.
	if i := strings.IndexByte(name, '-'); i == 32 {
		name = name[i+1:]
	}
	return name
}

// StageOf classifies a derivation by its store path (or its name).
func StageOf(drvPath string) Stage {
	name := DrvName(drvPath)
	switch {
	case archiveSuffix.MatchString(name):
		return Fetch
	case strings.HasSuffix(name, "-features.json"):
		return Detect
	case strings.HasSuffix(name, "-features") || strings.HasSuffix(name, "-index") || strings.HasSuffix(name, "buildRedist.json"):
		return Other
	}
	return Unpack
}

// Subject names what a derivation is about: an archive's stem for the
// fetch, unpack and detect of that archive (so the three read alike), an
// aggregate's own name otherwise.
func Subject(drvPath string) string {
	return strings.TrimSuffix(archiveSuffix.ReplaceAllString(DrvName(drvPath), ""), "-features.json")
}

// failedBuilder is Nix 2.8's error for a derivation whose builder failed.
var failedBuilder = regexp.MustCompile(`builder for '([^']+\.drv)' failed`)
