package unpack

// Work is what an extraction did (Stats' hidden counters), for the
// tests' bounds on work: a test bounds the cost of an archive by these,
// never by the clock.
type Work struct {
	// Decoded is the bytes the decompressor handed over: the tar stream
	// read, or the content of the zip's entries read.
	Decoded int64
	// DirLookups are the lookups in the cache of directories written:
	// one per entry, and one per implicit parent directory created.
	DirLookups int
	// SymlinkSteps are the components stepped through resolving the
	// symlinks once the tree is complete.
	SymlinkSteps int
}

// WorkOf returns the counters of st.
func WorkOf(st Stats) Work {
	return Work{Decoded: st.work.decoded, DirLookups: st.work.dirLookups, SymlinkSteps: st.work.symlinkSteps}
}
