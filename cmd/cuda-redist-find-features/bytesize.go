package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written as a whole number
// with an optional binary unit: 4GiB, 512MiB, 1048576 (K, M, G and their
// KB, MB, GB spellings mean the same binary units, as in ulimit and Nix).
type byteSize int64

var byteUnits = []struct {
	suffixes []string
	size     int64
}{
	{[]string{"GiB", "GB", "G"}, 1 << 30},
	{[]string{"MiB", "MB", "M"}, 1 << 20},
	{[]string{"KiB", "KB", "K"}, 1 << 10},
	{[]string{"B", ""}, 1},
}

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	for _, u := range byteUnits {
		for _, suffix := range u.suffixes {
			num, ok := strings.CutSuffix(t, suffix)
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
			if err != nil || n <= 0 || n > (1<<62)/u.size {
				return fmt.Errorf("%q: want a positive whole number of bytes, with an optional unit KiB, MiB or GiB", s)
			}
			*b = byteSize(n * u.size)
			return nil
		}
	}
	return fmt.Errorf("%q: want a positive whole number of bytes, with an optional unit KiB, MiB or GiB", s)
}

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range byteUnits[:3] {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffixes[0]
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Type() string { return "size" }
