package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteIfChanged: equal contents leave the file, its inode and
// modification time alone; other contents, a missing file and a file of
// another size are written.
func TestWriteIfChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "f.json")
	if wrote, err := WriteIfChanged(path, []byte("one\n")); err != nil || !wrote {
		t.Fatalf("new file: wrote %v, %v", wrote, err)
	}
	// An old time no write of this run could give the file.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if wrote, err := WriteIfChanged(path, []byte("one\n")); err != nil || wrote {
		t.Fatalf("same data: wrote %v, %v", wrote, err)
	}
	after, _ := os.Stat(path)
	if !after.ModTime().Equal(old) || !os.SameFile(before, after) {
		t.Errorf("same data: the file was replaced (mtime %v)", after.ModTime())
	}
	for _, data := range []string{"two\n", "longer data\n", ""} {
		if wrote, err := WriteIfChanged(path, []byte(data)); err != nil || !wrote {
			t.Fatalf("%q: wrote %v, %v", data, wrote, err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("%q: file holds %q", data, got)
		}
	}
}
