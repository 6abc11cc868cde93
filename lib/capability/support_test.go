package capability

// What TestOf's table states, for one library and one GPU: the rules of
// RunsSASS and JITs taken together (lib/check/coverage.Of is the CLI's
// form of it, with the targets that give the support).

// Support is how a GPU can run a library's device code.
type Support int

const (
	// None: no SASS runs on the GPU and no PTX can be compiled for it.
	None Support = iota
	// PTX: no SASS runs on the GPU, but the driver can JIT-compile PTX
	// for it (slower first start, possibly slower code).
	PTX
	// SASS: the GPU runs a cubin as is.
	SASS
)

func (s Support) String() string {
	switch s {
	case SASS:
		return "sass"
	case PTX:
		return "ptx"
	}
	return "none"
}

// Of says how a GPU of the given capability ("10.3") runs device code with
// these SASS and PTX targets (a library's sassArchitectures and
// ptxArchitectures): SASS if one of its cubins runs as is, else PTX if one
// of its PTX entries can be compiled for it, else None.
func Of(sass, ptx []string, capability string) (Support, error) {
	c, err := ParseCapability(capability)
	if err != nil {
		return None, err
	}
	best := None
	for _, list := range []struct {
		names []string
		ok    func(Target, Capability) bool
		gives Support
	}{{sass, Target.RunsSASS, SASS}, {ptx, Target.JITs, PTX}} {
		for _, name := range list.names {
			t, err := ParseTarget(name)
			if err != nil {
				return None, err
			}
			if list.ok(t, c) && list.gives > best {
				best = list.gives
			}
		}
	}
	return best, nil
}
