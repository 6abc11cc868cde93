package unpack_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/detector/unpack"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testarchive"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

type E = testarchive.Entry

var (
	F = testarchive.F
	X = testarchive.X
	D = testarchive.D
	L = testarchive.L
)

// listTree describes every path below root as one line, so two trees can
// be compared with cmp.Diff.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, fmt.Sprintf("%s -> %s", rel, target))
		case fi.IsDir():
			out = append(out, fmt.Sprintf("%s/ %o", rel, fi.Mode().Perm()))
		default:
			body, _ := os.ReadFile(p)
			out = append(out, fmt.Sprintf("%s %o %q", rel, fi.Mode().Perm(), body))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func writeArchive(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A typical NVIDIA layout: one top-level directory.
var redistEntries = []E{
	D("libfoo-linux-x86_64-1.0-archive/"),
	D("libfoo-linux-x86_64-1.0-archive/bin/"),
	X("libfoo-linux-x86_64-1.0-archive/bin/foo", "#!/bin/sh\n"),
	F("libfoo-linux-x86_64-1.0-archive/include/foo.h", "int foo(void);\n"),
	F("libfoo-linux-x86_64-1.0-archive/lib/libfoo.so.1.0", "ELF"),
	L("libfoo-linux-x86_64-1.0-archive/lib/libfoo.so.1", "libfoo.so.1.0"),
	L("libfoo-linux-x86_64-1.0-archive/lib/libfoo.so", "libfoo.so.1"),
	{Name: "libfoo-linux-x86_64-1.0-archive/lib/libfoo_hard.so.1.0", Kind: testarchive.Hardlink, Link: "libfoo-linux-x86_64-1.0-archive/lib/libfoo.so.1.0"},
	{Name: "libfoo-linux-x86_64-1.0-archive/LICENSE", Kind: testarchive.File, Body: []byte("EULA"), Mode: 0o4600},
}

var redistTree = []string{
	`LICENSE 644 "EULA"`,
	`bin/ 755`,
	`bin/foo 755 "#!/bin/sh\n"`,
	`include/ 755`,
	`include/foo.h 644 "int foo(void);\n"`,
	`lib/ 755`,
	`lib/libfoo.so -> libfoo.so.1`,
	`lib/libfoo.so.1 -> libfoo.so.1.0`,
	`lib/libfoo.so.1.0 644 "ELF"`,
	`lib/libfoo_hard.so.1.0 644 "ELF"`,
}

func TestUnpackFormats(t *testing.T) {
	bz2, bzErr := testarchive.TarBz2(redistEntries)
	// TensorRT 11's archives are .tar.zst; the zstd tool's frames (level
	// 19, a long window, a checksum) besides the Go encoder's.
	zstTool, zstErr := testarchive.TarZstTool(redistEntries, "-19", "--long=27", "--check")
	zipEntries := []E{}
	for _, e := range redistEntries {
		if e.Kind != testarchive.Hardlink { // zip has no hard links
			zipEntries = append(zipEntries, e)
		}
	}
	zipTree := []string{}
	for _, l := range redistTree {
		if !strings.HasPrefix(l, "lib/libfoo_hard") {
			zipTree = append(zipTree, l)
		}
	}
	tests := []struct {
		name   string
		file   string // deliberately misleading names: content decides
		data   []byte
		format unpack.Format
		want   []string
	}{
		{"tar.xz", "a.tar.xz", testarchive.TarXz(redistEntries), unpack.FormatTarXz, redistTree},
		{"tar.gz named .tar.xz", "b.tar.xz", testarchive.TarGz(redistEntries), unpack.FormatTarGz, redistTree},
		{"plain tar", "c.bin", testarchive.Tar(redistEntries), unpack.FormatTar, redistTree},
		{"zip", "d.tar.gz", testarchive.Zip(zipEntries), unpack.FormatZip, zipTree},
		{"tar.bz2", "e.tbz", bz2, unpack.FormatTarBz2, redistTree},
		{"tar.zst named .tar.xz", "f.tar.xz", testarchive.TarZst(redistEntries), unpack.FormatTarZst, redistTree},
		{"tar.zst by the zstd tool", "g.tar.zst", zstTool, unpack.FormatTarZst, redistTree},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.format == unpack.FormatTarBz2 && bzErr != nil {
				testenv.Unavailable(t, fmt.Sprintf("no bzip2 to build the fixture (apt-get install bzip2): %v", bzErr))
			}
			if tc.data == nil && zstErr != nil {
				testenv.Unavailable(t, fmt.Sprintf("no zstd to build the fixture (apt-get install zstd): %v", zstErr))
			}
			src := writeArchive(t, tc.file, tc.data)
			out := filepath.Join(t.TempDir(), "out")
			st, err := unpack.Unpack(src, out, unpack.Options{})
			if err != nil {
				t.Fatalf("Unpack: %v", err)
			}
			if st.Format != tc.format {
				t.Errorf("format = %v, want %v", st.Format, tc.format)
			}
			if st.StrippedTopLevel != "libfoo-linux-x86_64-1.0-archive" {
				t.Errorf("StrippedTopLevel = %q", st.StrippedTopLevel)
			}
			if diff := cmp.Diff(tc.want, listTree(t, out)); diff != "" {
				t.Errorf("tree mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnpackTopLevel(t *testing.T) {
	tests := []struct {
		name    string
		entries []E
		want    []string
	}{
		{
			name:    "two top-level entries keep the archive as root",
			entries: []E{F("a/x", "1"), F("b", "2")},
			want:    []string{`a/ 755`, `a/x 644 "1"`, `b 644 "2"`},
		},
		{
			name:    "a single top-level file is not stripped",
			entries: []E{F("only", "1")},
			want:    []string{`only 644 "1"`},
		},
		{
			name:    "child named like its parent",
			entries: []E{F("pkg/pkg/x", "1"), F("pkg/y", "2")},
			want:    []string{`pkg/ 755`, `pkg/x 644 "1"`, `y 644 "2"`},
		},
		{
			name:    "implicit top-level directory, ./ prefixes",
			entries: []E{D("./"), F("./top/a", "1"), X("./top/b", "2")},
			want:    []string{`a 644 "1"`, `b 755 "2"`},
		},
		{
			name:    "identical duplicate entries are accepted",
			entries: []E{F("t/a", "same"), D("t/d/"), F("t/a", "same"), D("t/d"), L("t/l", "a"), L("t/l", "a")},
			want:    []string{`a 644 "same"`, `d/ 755`, `l -> a`},
		},
		{
			name:    "dangling symlink inside the tree",
			entries: []E{L("t/lib/libgone.so", "libgone.so.1"), F("t/x", "")},
			want:    []string{`lib/ 755`, `lib/libgone.so -> libgone.so.1`, `x 644 ""`},
		},
		{
			name:    "symlink to a directory and through it",
			entries: []E{F("t/lib/real/a", "1"), L("t/lib/alias", "real"), L("t/lib64", "lib/alias/a")},
			want:    []string{`lib/ 755`, `lib/alias -> real`, `lib/real/ 755`, `lib/real/a 644 "1"`, `lib64 -> lib/alias/a`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := writeArchive(t, "a.tar", testarchive.Tar(tc.entries))
			out := filepath.Join(t.TempDir(), "out")
			if _, err := unpack.Unpack(src, out, unpack.Options{}); err != nil {
				t.Fatalf("Unpack: %v", err)
			}
			if diff := cmp.Diff(tc.want, listTree(t, out)); diff != "" {
				t.Errorf("tree mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnpackRefuses checks every refusal: the error names the entry and
// the reason, and nothing is created beside the output directory.
func TestUnpackRefuses(t *testing.T) {
	big := strings.Repeat("A", 4096)
	tests := []struct {
		name    string
		data    []byte
		opts    unpack.Options
		wantErr string
	}{
		{"absolute path", testarchive.Tar([]E{F("/etc/evil", "x")}), unpack.Options{}, `entry "/etc/evil": absolute path`},
		{"dot-dot escape", testarchive.Tar([]E{F("t/../../evil", "x")}), unpack.Options{}, `entry "t/../../evil": path escapes`},
		{"dot-dot inside", testarchive.Tar([]E{F("a/../b", "x")}), unpack.Options{}, `entry "a/../b": path escapes`},
		{"zip dot-dot", testarchive.Zip([]E{F("../evil", "x")}), unpack.Options{}, `entry "../evil": path escapes`},
		{"absolute symlink", testarchive.Tar([]E{L("t/etc", "/etc"), F("t/x", "")}), unpack.Options{}, `entry "t/etc": symlink to absolute path "/etc"`},
		{"relative symlink escape", testarchive.Tar([]E{L("t/up", "../../.."), F("t/x", "")}), unpack.Options{}, `entry "t/up": symlink to "../../.." points outside`},
		{"zip symlink escape", testarchive.Zip([]E{L("t/up", "../../x"), F("t/x", "")}), unpack.Options{}, `entry "t/up": symlink to "../../x" points outside`},
		{
			"escape after stripping the top level",
			testarchive.Tar([]E{D("t/"), L("t/lib/x", "../../t/include")}), unpack.Options{},
			`entry "t/lib/x": symlink to "../../t/include" resolves outside`,
		},
		{
			"escape through another symlink",
			testarchive.Tar([]E{L("a/b/up", "../.."), L("a/b/c/x", "../up/.."), F("z", "")}), unpack.Options{},
			`entry "a/b/c/x": symlink to "../up/.." resolves outside`,
		},
		{
			"chain escape",
			testarchive.Tar([]E{L("a/up", ".."), L("a/x", "up/a/up/.."), F("z", "")}), unpack.Options{},
			`entry "a/x": symlink to "up/a/up/.." resolves outside`,
		},
		{"write through symlink", testarchive.Tar([]E{L("t/lib", "."), F("t/lib/evil", "x")}), unpack.Options{}, `entry "t/lib/evil": parent "t/lib" is a symlink`},
		{
			"hard link to outside",
			testarchive.Tar([]E{{Name: "t/h", Kind: testarchive.Hardlink, Link: "/etc/passwd"}}), unpack.Options{},
			`entry "t/h": hard link to "/etc/passwd": absolute path`,
		},
		{
			"hard link escaping with ..",
			testarchive.Tar([]E{{Name: "t/h", Kind: testarchive.Hardlink, Link: "../x"}}), unpack.Options{},
			`entry "t/h": hard link to "../x": path escapes`,
		},
		{
			"hard link to something not in the archive",
			testarchive.Tar([]E{{Name: "t/h", Kind: testarchive.Hardlink, Link: "t/missing"}}), unpack.Options{},
			`entry "t/h": hard link to "t/missing": no regular file`,
		},
		{"fifo", testarchive.Tar([]E{{Name: "t/fifo", Kind: testarchive.Fifo, Mode: 0o644}}), unpack.Options{}, `entry "t/fifo": fifos are not allowed`},
		{"device node", testarchive.Tar([]E{{Name: "t/dev", Kind: testarchive.CharDev, Mode: 0o644}}), unpack.Options{}, `entry "t/dev": device nodes are not allowed`},
		{"duplicate file, other content", testarchive.Tar([]E{F("t/a", "one"), F("t/a", "two")}), unpack.Options{}, `entry "t/a": duplicate entry with different content`},
		{"duplicate file, longer first", testarchive.Tar([]E{F("t/a", "one!"), F("t/a", "one")}), unpack.Options{}, `entry "t/a": duplicate entry with different content`},
		{"duplicate file, other mode", testarchive.Tar([]E{F("t/a", "one"), X("t/a", "one")}), unpack.Options{}, `entry "t/a": duplicate entry with different content or mode`},
		{"file over directory", testarchive.Tar([]E{D("t/a/"), F("t/a", "x")}), unpack.Options{}, `entry "t/a": duplicate entry: a file where a directory was`},
		{"symlink retargeted", testarchive.Tar([]E{L("t/l", "a"), L("t/l", "b")}), unpack.Options{}, `entry "t/l": duplicate entry: a symlink to "b"`},
		{"file below a file", testarchive.Tar([]E{F("t/a", "x"), F("t/a/b", "y")}), unpack.Options{}, `entry "t/a/b": parent "t/a" is a file`},
		{"inflates past the limit", testarchive.TarXz([]E{F("t/a", big), F("t/b", big)}), unpack.Options{MaxBytes: 5000}, `entry "t/b": limit exceeded: archive inflates past the size limit of 5000 bytes`},
		{"zip inflates past the limit", testarchive.Zip([]E{F("t/a", big)}), unpack.Options{MaxBytes: 100}, `entry "t/a": limit exceeded: archive inflates past the size limit of 100 bytes`},
		{"too many entries", testarchive.Tar([]E{F("a", ""), F("b", ""), F("c", "")}), unpack.Options{MaxEntries: 2}, `entry "c": limit exceeded: archive has more than 2 entries`},
		{"not an archive", []byte("hello, this is not an archive"), unpack.Options{}, `unrecognised leading bytes 68 65 6c`},
		{"truncated xz", testarchive.TarXz([]E{F("t/a", big)})[:60], unpack.Options{}, `xz`},
		{"corrupt gzip", corrupt(testarchive.TarGz([]E{F("t/a", big)})), unpack.Options{}, `gzip`},
		{"truncated zip", testarchive.Zip([]E{F("t/a", big)})[:40], unpack.Options{}, `zip`},
		{"zst inflates past the limit", testarchive.TarZst([]E{F("t/a", big), F("t/b", big)}), unpack.Options{MaxBytes: 5000}, `entry "t/b": limit exceeded: archive inflates past the size limit of 5000 bytes`},
		{"truncated zst", testarchive.TarZst([]E{F("t/a", big)})[:20], unpack.Options{}, `tar.zst`},
		{"corrupt zst", corrupt(testarchive.TarZst([]E{F("t/a", big)})), unpack.Options{}, `zstd`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			src := writeArchive(t, "in", tc.data)
			out := filepath.Join(parent, "out")
			_, err := unpack.Unpack(src, out, tc.opts)
			if err == nil {
				t.Fatalf("Unpack succeeded, want error containing %q; tree: %v", tc.wantErr, listTree(t, out))
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %q, want it to contain %q", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), src) {
				t.Errorf("error = %q does not name the archive %s", err, src)
			}
			names, _ := os.ReadDir(parent)
			if len(names) > 1 || (len(names) == 1 && names[0].Name() != "out") {
				t.Errorf("entries beside the output: %v", names)
			}
		})
	}
}

// corrupt flips a byte in the middle of the compressed data.
func corrupt(b []byte) []byte {
	c := bytes.Clone(b)
	c[len(c)/2] ^= 0xFF
	return c
}

func TestUnpackOutputMustBeEmpty(t *testing.T) {
	src := writeArchive(t, "a.tar", testarchive.Tar([]E{F("a", "1")}))
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := unpack.Unpack(src, out, unpack.Options{})
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("err = %v, want 'is not empty'", err)
	}
	if _, err := unpack.Unpack(filepath.Join(out, "missing.tar"), filepath.Join(out, "x"), unpack.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing archive: err = %v, want ErrNotExist", err)
	}
}
