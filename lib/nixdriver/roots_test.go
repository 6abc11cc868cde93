package nixdriver

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveStaleRoots: the root directory of a run killed with SIGKILL
// (a helper process: this test binary, run again) and one an earlier
// version left (no lock file) are removed by the next run, which says
// so once; a live run's directory (this process's) is left alone.
func TestRemoveStaleRoots(t *testing.T) {
	if os.Getenv("CRFF_ROOTS_HELPER") == "1" {
		d, err := newRootDir()
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(d.path + "\n")
		select {} // killed here
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	helper := exec.Command(os.Args[0], "-test.run=^TestRemoveStaleRoots$")
	helper.Env = append(os.Environ(), "CRFF_ROOTS_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no directory from the helper: %v", err)
	}
	dead := strings.TrimSpace(line)
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	old := filepath.Join(tmp, rootDirPrefix+"old")
	if err := os.Mkdir(old, 0o700); err != nil {
		t.Fatal(err)
	}
	live, err := newRootDir()
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	var log bytes.Buffer
	if n := RemoveStaleRoots(slog.New(slog.NewTextHandler(&log, nil))); n != 2 {
		t.Errorf("removed %d directories, want 2 (the killed run's, the old one)", n)
	}
	for _, d := range []string{dead, old} {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s is left", d)
		}
	}
	if _, err := os.Lstat(filepath.Join(live.path, ownerLock)); err != nil {
		t.Errorf("the live run's directory was removed: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(log.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "removed the GC roots of runs that died") || !strings.Contains(lines[0], "directories=2") {
		t.Errorf("log: %q", log.String())
	}
	if _, err := os.ReadDir(tmp); err != nil {
		t.Fatal(err)
	}
}
