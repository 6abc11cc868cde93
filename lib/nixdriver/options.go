package nixdriver

import "strconv"

// BuildOptions are the build's scheduling choices.
type BuildOptions struct {
	// MaxJobs is Nix's --max-jobs: builds run locally at once; 0 sends
	// every build to the remote builders; negative leaves Nix's default.
	MaxJobs int
	// KeepGoing builds what it can when some derivations fail.
	KeepGoing bool
	// Builders is Nix's --builders ("" for none).
	Builders string
}

// SetBuildOptions adds the options to the build's arguments.
func (r *Runner) SetBuildOptions(o BuildOptions) {
	if o.MaxJobs >= 0 {
		r.BuildArgs = append(r.BuildArgs, "--max-jobs", strconv.Itoa(o.MaxJobs))
	}
	if o.KeepGoing {
		r.BuildArgs = append(r.BuildArgs, "--keep-going")
	}
	if o.Builders != "" {
		r.BuildArgs = append(r.BuildArgs, "--builders", o.Builders)
	}
}
