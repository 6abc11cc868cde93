package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSpecialFilesRefused: a FIFO (no writer: a blocking read would wait
// for ever), a link to /dev/zero (endless) and a directory are refused
// by name, at once; a link to a regular file is read.
func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, dir} {
		_, err := Read(p, 1<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("Read(%s) = %v, want a refusal naming it", p, err)
		}
	}
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(link, 2); err != nil || string(data) != "{}" {
		t.Errorf("Read(link) = %q, %v", data, err)
	}
}

// TestTooLarge: a file over the bound is refused before it is read.
func TestTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p, 10); err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("Read = %v", err)
	}
	if _, err := Read(p, 11); err != nil {
		t.Errorf("Read at the bound: %v", err)
	}
}
