package main

import (
	"runtime/debug"
	"strings"
)

// version is set at link time (-ldflags "-X main.version=..."); when it is
// not, buildVersion reads the module's build information.
var version = ""

// buildVersion is the program's version: the link-time one, else the main
// module's version with the VCS revision (and "+dirty" for a modified
// tree) when the go command recorded them, else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return versionFromBuildInfo(info)
}

func versionFromBuildInfo(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// Since Go 1.24 a build in a clone gets a pseudo-version holding the
	// revision (and "+dirty"); say the commit only when it does not.
	if rev != "" && !strings.Contains(v, rev) {
		v += " (" + rev
		if modified == "true" {
			v += "+dirty"
		}
		v += ")"
	}
	return v
}
