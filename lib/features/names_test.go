package features

import (
	"testing"
	"unicode/utf8"
)

func TestEscapeName(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"lib/libcudart.so.12", "lib/libcudart.so.12"},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
		{"a\xff", `a\xff`},
		{"a\xfe", `a\xfe`},
		{`a\xff`, `a\\xff`},
		{"\xc3", `\xc3`},
		{"x/\xe2\x82/y", `x/\xe2\x82/y`},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		got := EscapeName(tc.raw)
		if got != tc.want {
			t.Errorf("EscapeName(%q) = %q, want %q", tc.raw, got, tc.want)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%q and %q both escape to %q", other, tc.raw, got)
		}
		seen[got] = tc.raw
	}
}

func FuzzEscapeName(f *testing.F) {
	f.Add("a\xff\\b")
	f.Fuzz(func(t *testing.T, raw string) {
		esc := EscapeName(raw)
		if !utf8.ValidString(esc) {
			t.Fatalf("EscapeName(%q) = %q is not UTF-8", raw, esc)
		}
		back, err := UnescapeName(esc)
		if err != nil || back != raw {
			t.Fatalf("UnescapeName(EscapeName(%q)) = %q, %v", raw, back, err)
		}
	})
}
