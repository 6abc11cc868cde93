package xz

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 (and arm64 4K-granule) huge page.
const hugePage = 2 << 20

// allocWindow makes the window's buffer. One of 2 MiB or more starts on a
// huge page boundary and asks for transparent huge pages (the machine's
// setting is often "madvise"): matches reach anywhere in the dictionary,
// 8 MiB for xz -6, and with 4 KiB pages a far match also misses the TLB
// (in a virtual machine, a two-level page walk). On a libcufft archive
// that made decoding about 4 % faster. If the kernel refuses, the buffer
// works all the same with small pages.
func allocWindow(n int) []byte {
	if n < hugePage {
		return make([]byte, n)
	}
	b := make([]byte, n+hugePage)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (hugePage - 1))
	b = b[off : off+n : off+n]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b
}
