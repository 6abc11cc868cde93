package dlopen

import (
	"debug/elf"
	"sort"
)

// MaxPrescanned bounds the ".so" a Prescan keeps (real libraries hold at
// most a few dozen outside their fatbin containers: libcufft 10.9 one,
// cuDNN 9's libcudnn_graph 21); past it, Scan searches the sections
// again itself.
const MaxPrescanned = 1 << 14

// Prescan is Scan's search for ".so", done while the detector reads a
// large file in order to hash it: each piece is searched while it is in
// the CPU's cache, and Scan then reads only the pages around what was
// found, not the data sections' hundreds of megabytes again
// (docs/performance.md, "Where detect's time goes").
type Prescan struct {
	s        sieve
	found    []int
	overflow bool
	fed      int
}

// NewPrescan prepares the search of a file of size bytes whose headers f
// has read, or returns nil when Scan must search itself: data sections
// that overlap or run past the file.
func NewPrescan(f *elf.File, size int) *Prescan {
	var secs []span
	for _, sec := range f.Sections {
		if !stringSection(sec) || sec.Flags&elf.SHF_COMPRESSED != 0 || sec.FileSize == 0 {
			continue
		}
		if sec.Offset > uint64(size) || sec.FileSize > uint64(size)-sec.Offset {
			return nil
		}
		secs = append(secs, span{int(sec.Offset), int(sec.Offset + sec.FileSize)})
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i].start < secs[j].start })
	for i := 1; i < len(secs); i++ {
		if secs[i].start < secs[i-1].end {
			return nil
		}
	}
	p := &Prescan{}
	p.s = sieve{sections: secs, emit: p.add}
	return p
}

func (p *Prescan) add(at int) {
	if len(p.found) == MaxPrescanned {
		p.overflow, p.found = true, nil
	}
	if !p.overflow {
		p.found = append(p.found, at)
	}
}

// Feed hands over the file's next bytes, in order from its start; every
// piece but the last holds at least 16 bytes.
func (p *Prescan) Feed(piece []byte) {
	p.s.feed(p.fed, piece)
	p.fed += len(piece)
}
