package facts

import (
	"fmt"
)

// Bounds on the output (docs/detection.md, "Bounds"). Whatever a tree
// holds, what Detect writes grows no faster than the tree's content.
const (
	// MaxFatbinGroups bounds the fatbinEntries groups of one library
	// record (real CUDA 11.8 and 12.5 libraries have at most 25); the
	// entries of the groups past it are counted in fatbinEntriesOmitted.
	MaxFatbinGroups = 256
	// DetailBase is the part of the detail budget any tree has. The
	// budget bounds the bytes the library records and the lib/ groups
	// repeat from file content (sonames, needed libraries, architectures,
	// fatbin groups, errors): DetailBase plus the tree's content (names,
	// symlink targets, file sizes, a hard-linked file once). Many hard
	// links to one library, or many symlinked lib/ subdirectories, each
	// repeat its record; past the budget Detect refuses the tree.
	DetailBase = 8 << 20
	// fatbinGroupBytes is what one fatbinEntries group costs in the JSON.
	fatbinGroupBytes = 100
)

// detailBudget counts the bytes charged against the detail budget.
type detailBudget struct {
	used, limit int
	err         error
}

// charge adds n bytes spent at where; false once the budget is spent
// (the error then names where and stays the first one).
func (b *detailBudget) charge(n int, where string) bool {
	if b.err != nil {
		return false
	}
	b.used += n
	if b.used > b.limit {
		b.err = fmt.Errorf("refused: the library records and lib/ groups repeat more than %d bytes of sonames, needed libraries, architectures and fatbin groups (%d bytes plus the tree's %d bytes of content), first passed at %s: hard links or symlinked lib/ subdirectories repeating one library?",
			b.limit, DetailBase, b.limit-DetailBase, where)
		return false
	}
	return true
}

func stringsBytes(s []string) int {
	n := 0
	for _, v := range s {
		n += len(v) + 4 // quotes, comma, space
	}
	return n
}
