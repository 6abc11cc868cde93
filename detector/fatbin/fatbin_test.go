package fatbin_test

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/fatbin"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testfatbin"
)

type img = testfatbin.Image

func TestParseArchs(t *testing.T) {
	tests := []struct {
		name      string
		section   []byte
		want      []string // cuobjdump's arch = lines
		sass, ptx []string
		entries   int
	}{
		{
			name:    "one cubin",
			section: testfatbin.Container(img{SM: 80}),
			want:    []string{"sm_80"}, sass: []string{"sm_80"}, ptx: []string{}, entries: 1,
		},
		{
			name: "cubins and PTX, PTX a subset, duplicates collapse",
			section: testfatbin.Container(img{SM: 52}, img{SM: 90}, img{SM: 60},
				img{SM: 90, PTX: true}, img{SM: 60}),
			want: []string{"sm_52", "sm_60", "sm_90"}, sass: []string{"sm_52", "sm_60", "sm_90"}, ptx: []string{"sm_90"}, entries: 5,
		},
		{
			name:    "PTX only for an architecture without SASS",
			section: testfatbin.Container(img{SM: 80}, img{SM: 90, PTX: true}),
			want:    []string{"sm_80", "sm_90"}, sass: []string{"sm_80"}, ptx: []string{"sm_90"}, entries: 2,
		},
		{
			name: "several containers back to back",
			section: testfatbin.Section(
				testfatbin.Container(img{SM: 50}, img{SM: 61}),
				testfatbin.Container(img{SM: 70}),
				testfatbin.Container(img{SM: 86, PTX: true}),
			),
			want: []string{"sm_50", "sm_61", "sm_70", "sm_86"}, sass: []string{"sm_50", "sm_61", "sm_70"}, ptx: []string{"sm_86"}, entries: 4,
		},
		{
			name: "compression mixed within one container",
			section: testfatbin.Container(img{SM: 75, Compress: true}, img{SM: 80},
				img{SM: 89, PTX: true, Compress: true}),
			want: []string{"sm_75", "sm_80", "sm_89"}, sass: []string{"sm_75", "sm_80"}, ptx: []string{"sm_89"}, entries: 3,
		},
		{
			name:    "sm_90a from the header flag, beside sm_90",
			section: testfatbin.Container(img{SM: 90}, img{SM: 90, Specific: true}),
			want:    []string{"sm_90", "sm_90a"}, sass: []string{"sm_90", "sm_90a"}, ptx: []string{}, entries: 2,
		},
		{
			name: "sm_100f from the header flag, beside sm_100 and sm_100a, PTX compute_120f",
			section: testfatbin.Container(img{SM: 100, Family: true, HeaderSize: 112}, img{SM: 100, Specific: true}, img{SM: 100},
				img{SM: 120, PTX: true, Family: true, HeaderSize: 80, ZSTD: true}),
			want: []string{"sm_100", "sm_100f", "sm_100a", "sm_120f"}, sass: []string{"sm_100", "sm_100f", "sm_100a"}, ptx: []string{"sm_120f"}, entries: 4,
		},
		{
			name: "concatenated entries (nvcc --concat): the inner cubins count, the outer entry does not",
			section: testfatbin.Section(
				testfatbin.Container(img{ZSTD: true, Inner: []img{{SM: 75}, {SM: 90, Specific: true}}}),
				testfatbin.Container(img{SM: 120, PTX: true, Family: true, HeaderSize: 80},
					img{ZSTD: true, Inner: []img{{SM: 100, Family: true, HeaderSize: 96}, {SM: 110, Family: true, HeaderSize: 120}, {SM: 121, Specific: true, HeaderSize: 112}}}),
			),
			want: []string{"sm_75", "sm_90a", "sm_100f", "sm_110f", "sm_120f", "sm_121a"}, sass: []string{"sm_75", "sm_90a", "sm_100f", "sm_110f", "sm_121a"}, ptx: []string{"sm_120f"}, entries: 8,
		},
		{
			name:    "sm_90a on a compressed cubin and compressed PTX",
			section: testfatbin.Container(img{SM: 90, Specific: true, Compress: true}, img{SM: 90, PTX: true, Specific: true, Compress: true}),
			want:    []string{"sm_90a"}, sass: []string{"sm_90a"}, ptx: []string{"sm_90a"}, entries: 2,
		},
		{
			// libcublas 12.5: e_flags 0x800 on sm_50/60/61 cubins whose
			// headers lack the flag; cuobjdump lists sm_50, sm_60, sm_61.
			name:    "the cubin's e_flags alone do not make an a target",
			section: testfatbin.Container(img{SM: 50, ELFAccel: true}, img{SM: 61, ELFAccel: true, Compress: true}),
			want:    []string{"sm_50", "sm_61"}, sass: []string{"sm_50", "sm_61"}, ptx: []string{}, entries: 2,
		},
		{
			name:    "relocatable PTX with a 112-byte header",
			section: testfatbin.Container(img{SM: 70, PTX: true, HeaderSize: 112}, img{SM: 70}),
			want:    []string{"sm_70"}, sass: []string{"sm_70"}, ptx: []string{"sm_70"}, entries: 2,
		},
		{
			name: "CUDA 13: ZSTD payloads, 80/104/112-byte headers, sm_120a",
			section: testfatbin.Container(
				img{SM: 75, ZSTD: true, ABI8: true},
				img{SM: 100, ZSTD: true, ABI8: true, HeaderSize: 112, Specific: true},
				img{SM: 120, ZSTD: true, ABI8: true, HeaderSize: 104, Specific: true, ExtraFlags: 0x1000000},
				img{SM: 121, ZSTD: true, ABI8: true, HeaderSize: 104, Specific: true, ExtraFlags: 0x1000000},
				img{SM: 120, PTX: true, ZSTD: true, HeaderSize: 80},
			),
			want: []string{"sm_75", "sm_100a", "sm_120", "sm_120a", "sm_121a"}, sass: []string{"sm_75", "sm_100a", "sm_120a", "sm_121a"}, ptx: []string{"sm_120"}, entries: 5,
		},
		{
			// cuobjdump lists kind 0x10 (as <unknown kind> in 12.5), not 0x40.
			name: "CUDA 13: kind 0x10 listed but neither SASS nor PTX, 0x40 not listed",
			section: testfatbin.Container(
				img{SM: 90, ZSTD: true},
				img{Kind: 0x10, SM: 103, ZSTD: true, HeaderSize: 112},
				img{Kind: 0x40, SM: 110, HeaderSize: 80},
				img{SM: 100, ZSTD: true, HeaderSize: 112, Specific: true},
			),
			want: []string{"sm_90", "sm_100a", "sm_103"}, sass: []string{"sm_90", "sm_100a"}, ptx: []string{}, entries: 4,
		},
		{
			name:    "zero padding after the last container",
			section: append(testfatbin.Container(img{SM: 35}), make([]byte, 16)...),
			want:    []string{"sm_35"}, sass: []string{"sm_35"}, ptx: []string{}, entries: 1,
		},
		{
			name:    "empty section",
			section: nil,
			want:    []string{}, sass: []string{}, ptx: []string{}, entries: 0,
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
			if diff := cmp.Diff(tc.want, fatbin.Archs(entries)); diff != "" {
				t.Errorf("Archs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.sass, fatbin.ArchsOfKind(entries, fatbin.KindCubin)); diff != "" {
				t.Errorf("ArchsOfKind(cubin) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ptx, fatbin.ArchsOfKind(entries, fatbin.KindPTX)); diff != "" {
				t.Errorf("ArchsOfKind(ptx) (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseHeaders checks every header field the parser reports against
// the values the generator wrote, for each shape it can write.
func TestParseHeaders(t *testing.T) {
	images := []img{
		{SM: 75, Compress: true},
		{SM: 80},
		{SM: 90, Specific: true},
		{SM: 86, PTX: true},
		{SM: 61, PTX: true, HeaderSize: 96},
		{SM: 100, ZSTD: true, ABI8: true, HeaderSize: 112, Specific: true},
		{SM: 120, ZSTD: true, ABI8: true, HeaderSize: 104, ExtraFlags: 0x1000000},
		{SM: 120, PTX: true, ZSTD: true, HeaderSize: 80, Specific: true},
		{Kind: 0x10, SM: 100, ZSTD: true, HeaderSize: 112},
		{Kind: 0x40, HeaderSize: 80},
	}
	entries, err := fatbin.Parse(testfatbin.Container(images...))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(images) {
		t.Fatalf("%d entries, want %d", len(entries), len(images))
	}
	for i, im := range images {
		e := entries[i]
		want := fatbin.Entry{Kind: fatbin.Kind(testfatbin.KindOf(im)), HeaderSize: testfatbin.HeaderSize(im), SM: im.SM, Flags: testfatbin.Flags(im), Offset: e.Offset}
		if e != want {
			t.Errorf("entry %d: got %+v, want %+v", i, e, want)
		}
		compression := ""
		if im.ZSTD {
			compression = "zstd"
		} else if im.Compress {
			compression = "lz4"
		}
		if e.Compression() != compression {
			t.Errorf("entry %d: Compression() = %q, want %q", i, e.Compression(), compression)
		}
		if e.Specific() != im.Specific {
			t.Errorf("entry %d: Specific() = %v, want %v", i, e.Specific(), im.Specific)
		}
	}
	if got, want := unknownKinds(entries), []fatbin.Kind{0x10, 0x40}; !cmp.Equal(got, want) {
		t.Errorf("unknown kinds = %v, want %v", got, want)
	}
	if entries[0].Offset != 16 {
		t.Errorf("first entry at %#x, want 0x10", entries[0].Offset)
	}
}

func TestParseErrors(t *testing.T) {
	good := testfatbin.Container(img{SM: 80}, img{SM: 86})
	concat := testfatbin.Container(img{Inner: []img{{SM: 100, Family: true, HeaderSize: 120}, {SM: 90}}})
	le := binary.LittleEndian
	mutate2 := func(section []byte, f func(b []byte)) []byte {
		b := bytes.Clone(section)
		f(b)
		return b
	}
	mutate := func(f func(b []byte)) []byte { return mutate2(good, f) }
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
		{"entry header size past container", mutate(func(b []byte) { le.PutUint32(b[16+4:], 1<<20) }), "header size 1048576 out of range"},
		{"architecture zero", mutate(func(b []byte) { le.PutUint32(b[16+0x1C:], 0) }), "implausible architecture"},
		{"garbage after the last container", append(bytes.Clone(good), 1, 2, 3), "truncated header"},
		// The concatenated entry's header starts at 16; its table at 16+0x48.
		{"concatenated: table past the header", mutate2(concat, func(b []byte) { le.PutUint32(b[16+0x44:], 1<<20) }), "table of 1048576 bytes does not fit"},
		{"concatenated: more inner headers than the table holds", mutate2(concat, func(b []byte) { le.PutUint32(b[16+0x40:], 3) }), "inner header 3 of 3"},
		{"concatenated: fewer inner headers than the table holds", mutate2(concat, func(b []byte) { le.PutUint32(b[16+0x40:], 1) }), "1 inner headers fill 120 of the table's 184 bytes"},
		{"concatenated: attribute block past the table", mutate2(concat, func(b []byte) { le.PutUint32(b[16+0x48+0x44:], 1000) }), "attribute block runs past the table"},
		{"concatenated: inner architecture zero", mutate2(concat, func(b []byte) { le.PutUint32(b[16+0x48+0x1C:], 0) }), "implausible architecture sm_0"},
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

// TestConcatenated checks the entries read from a concatenated entry:
// the outer one first, then each inner header, marked Nested, at its
// place in the table, with the size its attribute block gives.
func TestConcatenated(t *testing.T) {
	section := testfatbin.Container(img{ZSTD: true, Inner: []img{{SM: 100, Family: true, HeaderSize: 120}, {SM: 90}, {SM: 121, Specific: true, HeaderSize: 96}}})
	entries, err := fatbin.Parse(section)
	if err != nil {
		t.Fatal(err)
	}
	table := 16 + 0x48
	want := []fatbin.Entry{
		{Kind: fatbin.KindConcatenated, HeaderSize: 0x48 + 120 + 64 + 96, Flags: 0x8011, Offset: 16},
		{Kind: fatbin.KindCubin, HeaderSize: 120, SM: 100, Flags: 0x1200011, Offset: table, Nested: true},
		{Kind: fatbin.KindCubin, HeaderSize: 64, SM: 90, Flags: 0x11, Offset: table + 120, Nested: true},
		{Kind: fatbin.KindCubin, HeaderSize: 96, SM: 121, Flags: 0x1100011, Offset: table + 184, Nested: true},
	}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if a := fatbin.Anomalies(entries); a != nil {
		t.Errorf("Anomalies = %q, want none", a)
	}
}

// TestAnomalies: what the package does not understand is named, counted,
// and the entries are still read.
func TestAnomalies(t *testing.T) {
	tests := []struct {
		name   string
		images []img
		archs  []string
		want   []string
	}{
		{"all understood", []img{{SM: 75}, {SM: 100, Family: true, HeaderSize: 104, ZSTD: true}, {SM: 120, PTX: true, HeaderSize: 96}, {SM: 90, Specific: true, Compress: true}},
			[]string{"sm_75", "sm_90a", "sm_100f", "sm_120"}, nil},
		{"unknown kinds", []img{{Kind: 0x10, SM: 100}, {Kind: 0x40}, {Kind: 0x40}, {SM: 80}},
			[]string{"sm_80", "sm_100"}, []string{
				"entry kind 0x10 not understood (its architecture counted in cudaArchitectures only, as cuobjdump 12.5 lists it): 1 entry",
				"entry kind 0x40 not understood (not counted): 2 entries",
			}},
		{"unknown flag bits", []img{{SM: 90, ExtraFlags: 0x4}, {SM: 90, ExtraFlags: 0x4}, {SM: 86, ExtraFlags: 0x40000000}},
			[]string{"sm_86", "sm_90"}, []string{
				"flag bits 0x4 not understood (elf sm_90): 2 entries",
				"flag bits 0x40000000 not understood (elf sm_86): 1 entry",
			}},
		{"both suffix flags", []img{{SM: 100, Specific: true, Family: true}},
			[]string{"sm_100a"}, []string{"flags 0x100000 (a) and 0x200000 (f) both set (elf sm_100): named sm_100a: 1 entry"}},
		{"cubin header longer than its attribute block", []img{{SM: 90, HeaderSize: 64, ExtraFlags: 0x1000000}, {SM: 86, PTX: true, HeaderSize: 64}},
			[]string{"sm_86", "sm_90"}, []string{
				"header size 64 not understood (elf, flags 0x1000011): 1 entry",
				"header size 64 not understood (ptx, flags 0x11): 1 entry",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := fatbin.Parse(testfatbin.Container(tc.images...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.archs, fatbin.Archs(entries)); diff != "" {
				t.Errorf("Archs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, fatbin.Anomalies(entries)); diff != "" {
				t.Errorf("Anomalies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnomaliesBounded: entries that each carry other unknown flag bits
// give at most MaxAnomalies lines and a count of the rest.
func TestAnomaliesBounded(t *testing.T) {
	var images []img
	for i := 0; i < 100; i++ {
		images = append(images, img{SM: 80, ExtraFlags: uint64(i+1) << 32})
	}
	entries, err := fatbin.Parse(testfatbin.Container(images...))
	if err != nil {
		t.Fatal(err)
	}
	got := fatbin.Anomalies(entries)
	if len(got) != fatbin.MaxAnomalies+1 || got[len(got)-1] != "and 68 more findings" {
		t.Errorf("%d lines, last %q", len(got), got[len(got)-1])
	}
}

// An unknown kind is not an error, and what follows it is still read.
func TestUnknownKindNotFatal(t *testing.T) {
	section := testfatbin.Container(img{Kind: 7, SM: 0}, img{Kind: 0x40, SM: 1 << 30}, img{SM: 86})
	entries, err := fatbin.Parse(section)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if diff := cmp.Diff([]string{"sm_86"}, fatbin.Archs(entries)); diff != "" {
		t.Errorf("Archs (-want +got):\n%s", diff)
	}
}

func TestSortArchs(t *testing.T) {
	got := []string{"sm_100", "sm_90a", "sm_100a", "sm_52", "sm_100f", "sm_90", "sm_103f", "sm_120", "sm_100x", "sm_121a"}
	fatbin.SortArchs(got)
	want := []string{"sm_52", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_100a", "sm_103f", "sm_120", "sm_121a", "sm_100x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SortArchs (-want +got):\n%s", diff)
	}
}

// fuzzSeeds are the shapes the generator writes: CUDA 11/12 and CUDA 13.
func fuzzSeeds() [][]byte {
	return [][]byte{
		testfatbin.Container(img{SM: 80}, img{SM: 90, PTX: true, Compress: true}),
		testfatbin.Section(testfatbin.Container(img{SM: 90, Specific: true, Compress: true}), testfatbin.Container(img{SM: 61, PTX: true, HeaderSize: 112})),
		testfatbin.Container(
			img{SM: 75, ZSTD: true, ABI8: true},
			img{SM: 100, ZSTD: true, ABI8: true, HeaderSize: 112, Specific: true},
			img{SM: 120, ZSTD: true, ABI8: true, HeaderSize: 104, Specific: true, ExtraFlags: 0x1000000},
			img{SM: 120, PTX: true, ZSTD: true, HeaderSize: 80},
		),
		testfatbin.Container(img{ZSTD: true, Inner: []img{{SM: 75}, {SM: 100, Family: true, HeaderSize: 104}}}, img{SM: 120, PTX: true, Family: true, HeaderSize: 96}),
		testfatbin.Section(
			testfatbin.Container(img{Kind: 0x10, SM: 100, ZSTD: true, HeaderSize: 112}, img{Kind: 0x40, HeaderSize: 80}),
			testfatbin.Container(img{SM: 121, ZSTD: true, ABI8: true, HeaderSize: 104, Specific: true}),
		),
		{},
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := fatbin.Parse(data)
		end, outer := 0, fatbin.Entry{}
		for _, e := range entries {
			// An inner entry lies within its concatenated entry's header,
			// after the previous inner one.
			lo, hi := end, len(data)
			if e.Nested {
				hi = outer.Offset + outer.HeaderSize
			}
			if e.Offset < lo || e.HeaderSize < 64 || e.Offset+e.HeaderSize > hi {
				t.Fatalf("implausible entry %+v after offset %d, bound %d, from %d bytes (err %v)", e, lo, hi, len(data), err)
			}
			if e.Kind.Listed() && (e.SM <= 0 || e.SM > 10000) {
				t.Fatalf("counted entry with architecture %d (err %v)", e.SM, err)
			}
			end = e.Offset + e.HeaderSize
			if e.Kind == fatbin.KindConcatenated {
				outer, end = e, e.Offset+0x48
			}
		}
		_ = fatbin.Anomalies(entries)
		all := fatbin.Archs(entries)
		sass := fatbin.ArchsOfKind(entries, fatbin.KindCubin)
		ptx := fatbin.ArchsOfKind(entries, fatbin.KindPTX)
		listed16 := fatbin.ArchsOfKind(entries, fatbin.KindListed16)
		union := append(append(append([]string{}, sass...), ptx...), listed16...)
		fatbin.SortArchs(union)
		union = dedup(union)
		if !cmp.Equal(all, union) {
			t.Fatalf("Archs %v is not the union of SASS %v, PTX %v and kind 0x10 %v", all, sass, ptx, listed16)
		}
	})
}

func dedup(s []string) []string {
	out := []string{}
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// unknownKinds returns the distinct kinds that are neither PTX nor cubin,
// in ascending order, or nil.
func unknownKinds(entries []fatbin.Entry) []fatbin.Kind {
	var out []fatbin.Kind
	seen := map[fatbin.Kind]bool{}
	for _, e := range entries {
		if !e.Kind.Known() && !seen[e.Kind] {
			seen[e.Kind] = true
			out = append(out, e.Kind)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
