package facts

import "github.com/nix-cuda/cuda-redist-find-features/lib/features"

// Work is what Detect did on a tree, for the tests' bounds on work: a
// test bounds the cost of a tree by these, never by the clock.
type Work struct {
	// Nodes are the files, directories and symlinks walked, the root
	// included.
	Nodes int
	// TargetComponents are the components of all symlink targets.
	TargetComponents int
	// SymlinkSteps are the components all lookups stepped through.
	SymlinkSteps int
	// UsrScanned are the bytes of .pc files the /usr/ search looked at.
	UsrScanned int
}

// DetectWork is Detect, giving the work it did.
func DetectWork(root string) (*features.Features, Work, error) {
	f, t, err := detectTree(root, Options{})
	if t == nil {
		return f, Work{}, err
	}
	w := Work{Nodes: len(t.nodes), SymlinkSteps: t.fs.Steps(), UsrScanned: t.usrScanned}
	for _, n := range t.nodes {
		if n.kind == kindSymlink {
			w.TargetComponents += countComponents(n.target)
		}
	}
	return f, w, err
}

func countComponents(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			n++
		}
	}
	return n
}
