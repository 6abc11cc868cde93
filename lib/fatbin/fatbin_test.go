package fatbin_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/internal/testfatbin"
	"github.com/nix-cuda/cuda-redist-find-features/lib/fatbin"
)

type img = testfatbin.Image

func TestParseArchs(t *testing.T) {
	tests := []struct {
		name    string
		section []byte
		want    []string
		entries int
	}{
		{
			name:    "one cubin",
			section: testfatbin.Container(img{SM: 80}),
			want:    []string{"sm_80"}, entries: 1,
		},
		{
			name: "cubins and PTX, PTX a subset, duplicates collapse",
			section: testfatbin.Container(img{SM: 52}, img{SM: 90}, img{SM: 60},
				img{SM: 90, PTX: true}, img{SM: 60}),
			want: []string{"sm_52", "sm_60", "sm_90"}, entries: 5,
		},
		{
			name: "several containers back to back",
			section: testfatbin.Section(
				testfatbin.Container(img{SM: 50}, img{SM: 61}),
				testfatbin.Container(img{SM: 70}),
				testfatbin.Container(img{SM: 86, PTX: true}),
			),
			want: []string{"sm_50", "sm_61", "sm_70", "sm_86"}, entries: 4,
		},
		{
			name: "compression mixed within one container",
			section: testfatbin.Container(img{SM: 75, Compress: true}, img{SM: 80},
				img{SM: 89, PTX: true, Compress: true}),
			want: []string{"sm_75", "sm_80", "sm_89"}, entries: 3,
		},
		{
			name:    "sm_90a from a cubin's e_flags (ABI 7)",
			section: testfatbin.Container(img{SM: 90}, img{SM: 90, Specific: true}),
			want:    []string{"sm_90", "sm_90a"}, entries: 2,
		},
		{
			name:    "sm_90a from a compressed cubin",
			section: testfatbin.Container(img{SM: 90, Specific: true, Compress: true}),
			want:    []string{"sm_90a"}, entries: 1,
		},
		{
			name:    "sm_100a from a CUDA 13 cubin (ABI 8)",
			section: testfatbin.Container(img{SM: 100, Specific: true, ABI8: true}, img{SM: 120, ABI8: true}),
			want:    []string{"sm_100a", "sm_120"}, entries: 2,
		},
		{
			name:    "sm_90a from PTX .target, compressed",
			section: testfatbin.Container(img{SM: 90, PTX: true, Specific: true, Compress: true}),
			want:    []string{"sm_90a"}, entries: 1,
		},
		{
			name:    "relocatable PTX with a 112-byte header",
			section: testfatbin.Container(img{SM: 70, PTX: true, HeaderSize: 112}, img{SM: 70}),
			want:    []string{"sm_70"}, entries: 2,
		},
		{
			name:    "zero padding after the last container",
			section: append(testfatbin.Container(img{SM: 35}), make([]byte, 16)...),
			want:    []string{"sm_35"}, entries: 1,
		},
		{
			name:    "empty section",
			section: nil,
			want:    []string{}, entries: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := fatbin.Parse(tc.section)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(entries) != tc.entries {
				t.Errorf("Parse returned %d entries, want %d", len(entries), tc.entries)
			}
			got := fatbin.Archs(entries)
			if got == nil {
				got = []string{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Archs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCompressedFlag(t *testing.T) {
	entries, err := fatbin.Parse(testfatbin.Container(img{SM: 75, Compress: true}, img{SM: 80}))
	if err != nil {
		t.Fatal(err)
	}
	if !entries[0].Compressed || entries[1].Compressed {
		t.Errorf("Compressed = %v, %v; want true, false", entries[0].Compressed, entries[1].Compressed)
	}
	if entries[0].Kind != fatbin.KindCubin {
		t.Errorf("Kind = %v, want elf", entries[0].Kind)
	}
}

func TestParseErrors(t *testing.T) {
	good := testfatbin.Container(img{SM: 80}, img{SM: 86})
	le := binary.LittleEndian
	mutate := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	tests := []struct {
		name    string
		section []byte
		wantErr string
	}{
		{"bad magic", mutate(func(b []byte) { b[0] = 0 }), "container at offset 0x0: bad magic"},
		{"truncated container header", good[:10], "container at offset 0x0: truncated header"},
		{"container size past section", good[:len(good)-8], "runs past the section"},
		{"entry payload past container", mutate(func(b []byte) { le.PutUint64(b[16+8:], 1<<40) }), "entry at offset 0x10: payload of"},
		{"entry header size too small", mutate(func(b []byte) { le.PutUint32(b[16+4:], 8) }), "header size 8 out of range"},
		{"unknown entry kind", mutate(func(b []byte) { le.PutUint16(b[16:], 7) }), "unknown kind 7"},
		{"architecture zero", mutate(func(b []byte) { le.PutUint32(b[16+0x1C:], 0) }), "implausible architecture"},
		{"garbage after the last container", append(bytes.Clone(good), 1, 2, 3), "truncated header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fatbin.Parse(tc.section)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestSortArchs(t *testing.T) {
	got := []string{"sm_100", "sm_90a", "sm_52", "sm_90", "sm_100a", "sm_120"}
	fatbin.SortArchs(got)
	want := []string{"sm_52", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SortArchs (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(testfatbin.Container(img{SM: 80}, img{SM: 90, PTX: true, Compress: true}))
	f.Add(testfatbin.Section(testfatbin.Container(img{SM: 90, Specific: true, Compress: true}), testfatbin.Container(img{SM: 100, ABI8: true})))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := fatbin.Parse(data)
		for _, e := range entries {
			if e.SM <= 0 || e.Offset < 0 || e.Offset >= len(data) {
				t.Fatalf("implausible entry %+v from %d bytes (err %v)", e, len(data), err)
			}
		}
		_ = fatbin.Archs(entries)
	})
}
