package nixlog

import (
	"path"
	"regexp"
	"strings"
)

// Stage is the pipeline stage a derivation belongs to. The driver knows
// it (nix/cli.nix lists every derivation of a run under its stage) and
// hands it to the Tracker as Roles; nothing here reads a stage from a
// derivation's name.
type Stage int

const (
	Fetch     Stage = iota // the fixed-output fetch of an archive
	Unpack                 // the archive's unpacked tree
	Detect                 // the archive's detection
	Aggregate              // a manifest's aggregate, the merged index
	Other                  // a derivation the driver did not name
	numStages
)

// Role is what the driver says a derivation of the run is: its stage, and
// the subject the progress names it by (an archive's name for its fetch,
// unpack and detect, so the three read alike; an aggregate's own name).
type Role struct {
	Stage   Stage
	Subject string
}

// Roles are the roles of a run's derivations, by .drv path.
type Roles map[string]Role

// Of is drv's role: the one the driver gave, else Other, named by the
// derivation's name.
func (r Roles) Of(drv string) Role {
	if role, ok := r[drv]; ok {
		return role
	}
	return Role{Stage: Other, Subject: DrvName(drv)}
}

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

// Nix's messages that a derivation failed, once its colours are taken
// away (ansi.Strip: Nix colours its messages even in its JSON log):
//   - failedBuilder: Nix 2.8 to 2.26, "builder for '/nix/store/….drv'
//     failed with exit code 1";
//   - cannotBuild: Nix 2.34, "Cannot build '/nix/store/….drv'." on the
//     first line, "Reason: builder failed with exit code 1." or
//     "Reason: 1 dependency failed." on the second;
//   - dependenciesFailed: Nix 2.8 to 2.26, "1 dependencies of derivation
//     '/nix/store/….drv' failed to build" (it was never started).
//   - buildOf: nix-store --realise's last word, "build of '….drv', …
//     failed", naming every target (about 5 KB for a large run).
var (
	failedBuilder      = regexp.MustCompile(`^error: builder for '([^']+\.drv)' failed`)
	cannotBuild        = regexp.MustCompile(`^error: Cannot build '([^']+\.drv)'\.`)
	dependencyReason   = regexp.MustCompile(`(?m)^\s*Reason: \d+ dependenc(y|ies) failed`)
	dependenciesFailed = regexp.MustCompile(`^error: \d+ dependencies of derivation '([^']+\.drv)' failed to build`)
	buildOf            = regexp.MustCompile(`^error: build of '[^']+\.drv'(, '[^']+\.drv')* failed$`)
)

// failure is what a message of Nix's says failed: the derivation, and
// whether it failed for want of another (it never started).
func failure(text string) (drv string, dependency bool, ok bool) {
	if m := failedBuilder.FindStringSubmatch(text); m != nil {
		return m[1], false, true
	}
	if m := dependenciesFailed.FindStringSubmatch(text); m != nil {
		return m[1], true, true
	}
	if m := cannotBuild.FindStringSubmatch(text); m != nil {
		return m[1], dependencyReason.MatchString(text), true
	}
	return "", false, false
}
