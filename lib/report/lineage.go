package report

import "github.com/nix-cuda/cuda-redist-find-features/lib/report/lineage"

// LineageOf follows the packages of aggregate old into aggregate new
// (lib/report/lineage): the manifest fields of both indexes, and the
// trees and sonames of the archives their detail.json holds.
func LineageOf(old, new *Aggregate) *lineage.Lineage {
	return lineage.Compare(lineage.FromAggregate(old.Redist, old.Version, old.Index, old.Detail),
		lineage.FromAggregate(new.Redist, new.Version, new.Index, new.Detail), nil)
}
