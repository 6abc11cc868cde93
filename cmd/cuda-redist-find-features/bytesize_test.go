package main

import "testing"

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "4G": 4 << 30, "512MiB": 512 << 20, "512 MB": 512 << 20,
		"64K": 64 << 10, "1048576": 1 << 20, "100B": 100} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, int64(b), err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "0", "1.5GiB", "4TiB", "4 gigs", "99999999999GiB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, int64(b))
		}
	}
	b := byteSize(4 << 30)
	if b.String() != "4GiB" {
		t.Errorf("String() = %s, want 4GiB", b.String())
	}
}

// Any text is accepted or refused without a panic; what is accepted is a
// positive size that String writes back as the same size.
func FuzzByteSize(f *testing.F) {
	for _, s := range []string{"4GiB", "512 MB", "1", "0", "-1K", "9223372036854775807", "4294967296GiB", " 7 KiB "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b byteSize
		if err := b.Set(s); err != nil {
			return
		}
		if b <= 0 {
			t.Fatalf("Set(%q) = %d", s, int64(b))
		}
		var again byteSize
		if err := again.Set(b.String()); err != nil || again != b {
			t.Fatalf("Set(%q) = %d, String %q, read back %d, %v", s, int64(b), b.String(), int64(again), err)
		}
	})
}
