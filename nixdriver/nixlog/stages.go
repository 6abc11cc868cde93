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

// failedBuilder is Nix 2.8's error for a derivation whose builder failed.
var failedBuilder = regexp.MustCompile(`builder for '([^']+\.drv)' failed`)
