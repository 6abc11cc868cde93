package dlopen

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// container is a fatbin container whose payload is payload: the magic,
// version 1, a 16-byte header and the payload's size.
func container(payload string) []byte {
	h := binary.LittleEndian.AppendUint32(nil, 0xBA55ED50)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, containerHeader)
	h = binary.LittleEndian.AppendUint64(h, uint64(len(payload)))
	return append(h, payload...)
}

// withContainers is a data section as libcufft's .data is laid out:
// strings, then fatbin containers back to back with zero padding, PTX
// inside them, then strings again; and a container whose size runs past
// the section, which is no container.
func withContainers() []byte {
	var b bytes.Buffer
	b.WriteString("\x00libcuda.so.1\x00")
	b.Write(container("\x00libhidden.so.1\x00setp.eq.so \x00"))
	b.Write(make([]byte, 12))
	b.Write(container("\x00libhidden2.so.1\x00"))
	b.WriteString("\x00libafter.so.2\x00")
	fake := container("\x00libfake.so.3\x00")
	binary.LittleEndian.PutUint64(fake[8:], 1<<20)
	b.Write(fake)
	b.WriteString("\x00libz.so.1\x00")
	return b.Bytes()
}

// TestContainersSkipped: the strings inside fatbin containers are device
// code's, no load; around them, and inside what only looks like a
// container, every name is found.
func TestContainersSkipped(t *testing.T) {
	var names []string
	for _, l := range scanBytes(withContainers(), "").Loads {
		names = append(names, l.Name)
	}
	want := []string{"libafter.so.2", "libcuda.so.1", "libfake.so.3", "libz.so.1"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// sieveOffsets feeds data to a sieve over sections in pieces of the
// sizes next gives (at least 16 bytes each) and returns what it emits.
func sieveOffsets(data []byte, sections []span, next func() int) []int {
	found := []int{}
	s := sieve{sections: sections, emit: func(at int) { found = append(found, at) }}
	for at := 0; at < len(data); {
		n := min(len(data)-at, next())
		s.feed(at, data[at:at+n])
		at += n
	}
	return found
}

// TestSieveSeams: whatever the pieces (every size from 16 to 80 bytes,
// and random ones), the sieve finds what it finds in one piece: a ".so"
// or a container header split between two pieces included.
func TestSieveSeams(t *testing.T) {
	sec := withContainers()
	data := slices.Concat([]byte("head"), sec, []byte("\x00libout.so.1\x00"), sec, []byte(".so"))
	sections := []span{{4, 4 + len(sec)}, {len(data) - 3 - len(sec), len(data) - 3}}
	whole := sieveOffsets(data, sections, func() int { return len(data) })
	if len(whole) != 8 {
		t.Fatalf("in one piece, %d found: %v", len(whole), whole)
	}
	for n := containerHeader; n <= 80; n++ {
		if got := sieveOffsets(data, sections, func() int { return n }); !slices.Equal(got, whole) {
			t.Errorf("pieces of %d bytes: %v, want %v", n, got, whole)
		}
	}
	rng := rand.New(rand.NewSource(1))
	for range 200 {
		if got := sieveOffsets(data, sections, func() int { return containerHeader + rng.Intn(40) }); !slices.Equal(got, whole) {
			t.Fatalf("random pieces: %v, want %v", got, whole)
		}
	}
}

// FuzzSieveSeams: on any bytes, in any pieces of at least 16 bytes, the
// sieve finds what it finds in one piece, and what it finds is a ".so".
func FuzzSieveSeams(f *testing.F) {
	f.Add(withContainers(), int64(1))
	f.Add(slices.Concat(container(".so.so"), []byte(".so"), container("")), int64(2))
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		sections := []span{{0, len(data)}}
		whole := sieveOffsets(data, sections, func() int { return len(data) })
		rng := rand.New(rand.NewSource(seed))
		got := sieveOffsets(data, sections, func() int { return containerHeader + rng.Intn(64) })
		if !slices.Equal(got, whole) {
			t.Fatalf("in pieces %v, in one %v", got, whole)
		}
		for _, at := range whole {
			if !bytes.HasPrefix(data[at:], dotSo) {
				t.Fatalf("offset %d holds no .so", at)
			}
		}
	})
}
