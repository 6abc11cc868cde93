package dlopen

import (
	"bytes"
	"encoding/binary"

	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
)

// Fatbin containers inside the data sections. Some libraries keep device
// code (cubins, PTX) in .data or .ldata rather than in .nv_fatbin:
// libcufft 10.9 holds 22,346 fatbin containers, 216 of the 219 MB of its
// .data. They are the GPU's code, not strings the host passes to dlopen,
// so the search for ".so" skips them, as it skips the fatbin sections
// (docs/runtime-dependencies.md, "Where the detector looks"): a
// container is its magic, a header of at least 16 bytes and a size that
// stays inside the section, found by searching the bytes outside the
// containers before it. What is not a whole container is searched.
var containerMagic = binary.LittleEndian.AppendUint32(nil, fatbin.ContainerMagic)

const containerHeader = 16

// containerEnd is the file offset where the container whose header h
// (16 bytes) starts at file offset at ends, if h is one's and the
// container ends by secEnd.
func containerEnd(h []byte, at, secEnd int) (int, bool) {
	if !bytes.HasPrefix(h, containerMagic) {
		return 0, false
	}
	header := uint64(binary.LittleEndian.Uint16(h[6:]))
	size := binary.LittleEndian.Uint64(h[8:])
	left := uint64(secEnd - at)
	if header < containerHeader || header > left || size > left-header {
		return 0, false
	}
	return at + int(header+size), true
}

// sieve finds where ".so" starts in the data sections of a file, outside
// the fatbin containers, from the file's bytes handed over in order, in
// pieces of any size (the search for /usr/ reads a large file 128 KiB at
// a time, in the CPU's cache: the sieve searches the same pieces there).
// A ".so" or a container header that runs from one piece into the next
// is found at the seam. It calls emit with each ".so"'s file offset, in
// order.
type sieve struct {
	sections []span // the data sections' file offsets, in order and apart
	sec      int    // the section the next bytes belong to
	from     int    // file offset before which nothing more is found
	// carry holds the last bytes fed of sections[sec], from file offset
	// carryAt, in which a ".so" or a container header may start that the
	// next piece ends; carryNew says none of carry was searched for ".so"
	// yet (a container header starts it).
	carry    []byte
	carryAt  int
	carryNew bool
	emit     func(at int)
}

// span is the bytes [start, end).
type span struct{ start, end int }

// feed hands over the file's bytes [at, at+len(piece)), right after
// those of the call before. Every piece but the file's last holds at
// least 16 bytes, so a seam needs no more than two.
func (s *sieve) feed(at int, piece []byte) {
	end := at + len(piece)
	for s.sec < len(s.sections) {
		r := s.sections[s.sec]
		if r.start >= end {
			return
		}
		if lo, hi := max(r.start, at), min(r.end, end); lo < hi {
			s.feedPart(lo, piece[lo-at:hi-at], r.end)
		}
		if r.end > end {
			return // the section goes on in the next piece
		}
		s.sec++
		s.carry = s.carry[:0]
	}
}

// feedPart searches part, the file's bytes from at on, inside a section
// that ends at secEnd.
func (s *sieve) feedPart(at int, part []byte, secEnd int) {
	if len(s.carry) > 0 {
		s.seam(part, secEnd)
	}
	p := max(s.from-at, 0)
	for p < len(part) {
		m := bytes.Index(part[p:], containerMagic)
		if m < 0 {
			s.emitAll(part[p:], at+p)
			break
		}
		m += p
		// The magic holds no '.', 's' or 'o': every ".so" starting
		// before it ends before it.
		s.emitAll(part[p:m], at+p)
		switch {
		case m+containerHeader > len(part): // the header runs into the next piece
			s.from, s.carryAt, s.carryNew = at+m, at+m, true
			s.carry = append(s.carry[:0], part[m:]...)
			return
		default:
			if e, ok := containerEnd(part[m:m+containerHeader], at+m, secEnd); ok {
				p = e - at
			} else {
				p = m + 1
			}
		}
	}
	s.from = at + p
	if p > len(part) {
		return // inside a container that goes on
	}
	c := max(p, len(part)-(containerHeader-1))
	s.carry, s.carryAt, s.carryNew = append(s.carry[:0], part[c:]...), at+c, false
}

// emitAll emits every ".so" of b, which starts at file offset at.
func (s *sieve) emitAll(b []byte, at int) {
	for p := 0; ; {
		i := bytes.Index(b[p:], dotSo)
		if i < 0 {
			return
		}
		s.emit(at + p + i)
		p += i + len(dotSo)
	}
}

// seam finds what starts in carry and ends in part (the next bytes of
// the same section): a ".so", or a container header. A ".so" wholly in
// carry was found before, unless carryNew.
func (s *sieve) seam(part []byte, secEnd int) {
	n := len(s.carry)
	b := append(s.carry, part[:min(len(part), containerHeader-1)]...)
	s.carry = b[:0]
	for q := max(s.from-s.carryAt, 0); q < n; q++ {
		if bytes.HasPrefix(b[q:], containerMagic) && q+containerHeader <= len(b) {
			if e, ok := containerEnd(b[q:q+containerHeader], s.carryAt+q, secEnd); ok {
				s.from = e
				return
			}
		}
		if bytes.HasPrefix(b[q:], dotSo) && (s.carryNew || q+len(dotSo) > n) {
			s.emit(s.carryAt + q)
			s.from = s.carryAt + q + len(dotSo)
			q += len(dotSo) - 1
		}
	}
}
