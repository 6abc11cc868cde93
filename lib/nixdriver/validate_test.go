package nixdriver

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manifestOf writes a manifest of n packages, each with one archive.
func manifestOf(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"release_date": "2025-01-01"`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `, "p%d": {"name": "p", "license": "l", "version": "1.0", "linux-x86_64": {"relative_path": "p/p%d.tar.xz", "sha256": "%064x", "md5": "00", "size": "1"}}`, i, i, i)
	}
	b.WriteString("}")
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestValidateBoundsArchives: a manifest that lists more archives than
// the bound is refused alone, by name, saying how many and which bound;
// one at the bound and, with no bound, one past it are read.
func TestValidateBoundsArchives(t *testing.T) {
	dir := t.TempDir()
	at := manifestOf(t, dir, "redistrib_1.0.0.json", 3)
	past := manifestOf(t, dir, "redistrib_2.0.0.json", 4)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := Validate([]Manifest{{Path: at}, {Path: past}}, 3, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Good) != 1 || v.Good[0].Path != at {
		t.Errorf("read %v, want only %s", v.Good, at)
	}
	if len(v.Refused) != 1 || v.Refused[0].Path != past ||
		!strings.Contains(v.Refused[0].Err.Error(), past+": lists 4 archives, more than --max-archives 3") {
		t.Errorf("refused %v, want %s for its 4 archives", v.Refused, past)
	}
	if v, err := Validate([]Manifest{{Path: past}}, 0, log); err != nil || len(v.Good) != 1 {
		t.Errorf("with no bound: %v, %v", v, err)
	}
}
