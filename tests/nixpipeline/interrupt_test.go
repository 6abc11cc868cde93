package nixpipeline

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markerDir makes the directory the blocker writes its pid into, removed
// when t ends: outside t.TempDir, which is not open to the build users the
// builder runs as, and writable by all of them.
func markerDir(t *testing.T) string {
	t.Helper()
	markers, err := os.MkdirTemp("", "crff-markers-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(markers) })
	if err := os.Chmod(markers, 0o777); err != nil {
		t.Fatal(err)
	}
	return markers
}

// blockerBinary builds testdata/blocker, writing its pid into markerDir
// when Nix runs it as a builder.
func blockerBinary(t *testing.T, markerDir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crff-interrupt-blocker")
	if err := goBuild("./tests/nixpipeline/testdata/blocker", bin, "-ldflags=-X main.markerDir="+markerDir); err != nil {
		t.Fatalf("build the blocker: %v", err)
	}
	return bin
}

// interruptCase is one interruption: of which command, by which signal
// to the run's process group (as a terminal's Ctrl-C) or to the run
// alone (as kill).
type interruptCase struct {
	command string
	sig     syscall.Signal
	group   bool
	sandbox bool
	code    int
}

// TestProcessManifestsInterrupted: SIGINT (to the run's process group;
// the build sandboxed) and SIGTERM (to the run alone; no sandbox) while a
// build is running: exit 130 or 143 with a message that says interrupted;
// afterwards no process the run started is left (the builder included),
// its TMPDIR is empty (no GC roots, no Nix build directory), no GC root
// points into it, and no feature or index file, whole or half, was
// written. check-nixpkgs, interrupted alike, prints no finding.
func TestProcessManifestsInterrupted(t *testing.T) {
	requireNix(t)
	for _, tc := range []interruptCase{
		{"process-manifests", syscall.SIGINT, true, true, 130},
		{"process-manifests", syscall.SIGTERM, false, false, 143},
		{"check-nixpkgs", syscall.SIGINT, false, true, 130},
		{"check-nixpkgs", syscall.SIGTERM, false, true, 143},
	} {
		t.Run(tc.command+"/"+sigName(tc.sig), func(t *testing.T) { interrupted(t, tc) })
	}
}

func interrupted(t *testing.T, tc interruptCase) {
	markers := markerDir(t)
	blocker := blockerBinary(t, markers)
	dir := copySample(t)
	before := listDir(t, dir)
	index := filepath.Join(t.TempDir(), "index.json")
	tmp := t.TempDir()
	token := randomToken(t)
	// Sandboxed, the builder sees the marker directory through
	// extra-sandbox-paths (and its pid is the sandbox's own).
	args := []string{tc.command, "--nix-option", "substituters=", "--nix-option", "extra-sandbox-paths=" + markers, "--detector-program", blocker, "--aggregate-program", blocker, "--version", "1.0.0"}
	if tc.command == "process-manifests" {
		args = append(args, "--sandbox="+strconv.FormatBool(tc.sandbox), "--redist-name", "sample", "-j", "1", "--index", index, "file://"+dir, dir)
		if !tc.sandbox {
			// --sandbox=false leaves Nix's own setting, which is on in
			// Debian 13's and unstable's nix-bin (off in 12's).
			args = append([]string{tc.command, "--nix-option", "sandbox=false"}, args[1:]...)
		}
	} else {
		args = append(args, "--url", "file://"+dir, packagesDir(t, goodPackages), dir)
	}
	cmd := exec.Command(programBinary(t), args...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CRFF_INTERRUPT_TEST="+token)
	// A job of its own, as a shell starts it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	builders := waitForBuilder(t, markers, exited, &stderr)
	if tc.sandbox {
		builders = nil // pids in the sandbox's namespace: found by name
	}
	target := cmd.Process.Pid
	if tc.group {
		target = -target
	}
	if err := syscall.Kill(target, tc.sig); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	err := <-exited
	t.Logf("the run ended %v after the signal; its stderr:\n%s", time.Since(signalled).Round(time.Millisecond), stderr.String())
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != tc.code {
		t.Errorf("exit %d (%v), want %d\n%s", code, err, tc.code, stderr.String())
	}
	checkInterruptMessage(t, stderr.String(), tc.command, sigName(tc.sig))
	checkNothingRunning(t, token, builders)
	if left := listDir(t, tmp); len(left) > 0 {
		t.Errorf("TMPDIR keeps %v", left)
	}
	checkNoRootsInto(t, tmp)
	if after := listDir(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("the manifest directory changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(index); err == nil {
		t.Error("the index was written")
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout names results: %q", stdout.String())
	}
}

func randomToken(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// waitForBuilder waits until a builder wrote its pid to markers (the run
// is then inside the Nix build) and returns the pids written.
func waitForBuilder(t *testing.T, markers string, exited <-chan error, stderr *bytes.Buffer) []int {
	t.Helper()
	for {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before a build started:\n%s", err, stderr.String())
		default:
		}
		if pids := markerPids(markers); len(pids) > 0 {
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func markerPids(dir string) []int {
	entries, _ := os.ReadDir(dir)
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkInterruptMessage: the run's last words say interrupted by the
// signal, nothing says it failed, and no build is said to be done.
func checkInterruptMessage(t *testing.T, stderr, command, sig string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, command+": interrupted by "+sig) {
		t.Errorf("last line %q does not say interrupted by %s:\n%s", last, sig, stderr)
	}
	if strings.Contains(strings.ToLower(stderr), "fail") {
		t.Errorf("stderr speaks of failure:\n%s", stderr)
	}
	// Every unpack runs the blocker: none can have been done.
	for _, l := range lines {
		if strings.HasPrefix(l, "unpacked ") || strings.HasPrefix(l, "detected ") {
			t.Errorf("a build stopped by the signal is reported done: %s", l)
		}
	}
}

// checkNothingRunning walks /proc: no live process carries the run's
// token in its environment (the run's children and theirs: Nix keeps
// it) or is one of the builders (Nix gives them an environment of their
// own, and a session: they are found by pid and name).
func checkNothingRunning(t *testing.T, token string, builders []int) {
	t.Helper()
	isBuilder := map[int]bool{}
	for _, pid := range builders {
		isBuilder[pid] = true
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || !alive(pid) {
			continue
		}
		environ, _ := os.ReadFile("/proc/" + p.Name() + "/environ")
		cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		if isBuilder[pid] || bytes.Contains(environ, []byte("CRFF_INTERRUPT_TEST="+token)) || bytes.Contains(cmdline, []byte("crff-interrupt-blocker")) {
			t.Errorf("process %d is still running: %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

// alive: the process exists and is not a zombie (one whose parent is gone
// and whose new parent does not reap it).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	rest := string(data[bytes.LastIndexByte(data, ')')+1:])
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// checkNoRootsInto: no GC root Nix knows of lives in dir.
func checkNoRootsInto(t *testing.T, dir string) {
	t.Helper()
	for _, root := range rootsInto(t, dir) {
		t.Errorf("GC root left: %s", root)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

func sigName(s syscall.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}
