package nixexec

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// startShell runs script with Run in the background and returns, once the
// script printed "ready <pid>", that pid and the channel Run's error
// arrives on.
func startShell(t *testing.T, ctx context.Context, script string) (int, <-chan error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := Command("sh", "-c", script)
	cmd.Stdout = w
	errc := make(chan error, 1)
	go func() { errc <- cmd.Run(ctx) }()
	line, err := bufio.NewReader(r).ReadString('\n')
	w.Close()
	if err != nil {
		t.Fatalf("no ready line: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "ready "))
	if err != nil {
		t.Fatalf("ready line %q: %v", line, err)
	}
	return pid, errc
}

// gone waits until pid is no process (or a zombie: reparented to an init
// that does not reap); the process was killed, so this ends.
func gone(pid int) bool {
	for {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(data)); len(f) > 2 && f[2] == "Z" {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunPassesTheSignal: the command gets SIGINT, Nix's interruption,
// whichever signal the program received (its trap runs and writes it
// down), and so does what it started in its group; the error is the
// program's signal.
func TestRunPassesTheSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(interrupt.SignalName(sig), func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			marker := filepath.Join(t.TempDir(), "trapped")
			// The child waits on a sleep it started (same group); its
			// traps record the signal.
			pid, errc := startShell(t, ctx, `trap 'echo INT > `+marker+`; exit 7' INT; trap 'echo TERM > `+marker+`; exit 7' TERM; sleep 1000 & echo "ready $!"; wait`)
			cancel(&interrupt.Error{Signal: sig})
			err := <-errc
			var ie *interrupt.Error
			if !errors.As(err, &ie) || ie.Signal != sig {
				t.Errorf("Run returned %v, want the interruption by %s", err, interrupt.SignalName(sig))
			}
			if data, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(data)) != "INT" {
				t.Errorf("the child's trap did not see INT: %q %v", data, err)
			}
			if !gone(pid) {
				t.Errorf("the grandchild %d outlived the command", pid)
			}
		})
	}
}

// TestRunKillsWhatIgnoresTheSignal: a child that ignores SIGINT is killed
// after Grace, with the grandchild that ignores it too.
func TestRunKillsWhatIgnoresTheSignal(t *testing.T) {
	old := Grace
	Grace = 50 * time.Millisecond
	defer func() { Grace = old }()
	ctx, cancel := context.WithCancel(context.Background())
	pid, errc := startShell(t, ctx, `trap '' INT; sleep 1000 & echo "ready $!"; wait; wait`)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the command", pid)
	}
}

// TestRunKillsAtTheDeadline: a context whose deadline passed (a time
// bound, as check-nixpkgs sets per evaluation) kills the group at once,
// with no SIGINT first: the child's INT trap never runs.
func TestRunKillsAtTheDeadline(t *testing.T) {
	old := Grace
	Grace = 5 * time.Second
	defer func() { Grace = old }()
	ctx, cancel := context.WithCancelCause(context.Background())
	marker := filepath.Join(t.TempDir(), "trapped")
	pid, errc := startShell(t, ctx, `trap 'echo INT > `+marker+`' INT; sleep 1000 & echo "ready $!"; wait; wait`)
	cancel(context.DeadlineExceeded)
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run returned %v, want context.DeadlineExceeded", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the child got SIGINT before SIGKILL")
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the command", pid)
	}
}

// TestRunNotStartedAfterInterrupt: once interrupted, nothing new starts.
func TestRunNotStartedAfterInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupt.Error{Signal: syscall.SIGINT})
	marker := filepath.Join(t.TempDir(), "ran")
	err := Command("touch", marker).Run(ctx)
	if e, ok := err.(*interrupt.Error); !ok || e.ExitCode() != 130 {
		t.Errorf("Run returned %v, want the interruption (exit 130)", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran after the interruption")
	}
}

// TestSecondSignalKillsAtOnce: a child that ignores the signal is killed
// at the second one, not after Grace (an hour here: were the second
// signal not heeded, the test would time out).
func TestSecondSignalKillsAtOnce(t *testing.T) {
	old := Grace
	Grace = time.Hour
	defer func() { Grace = old }()
	ctx, stop := interrupt.Notify(context.Background())
	defer stop()
	pid, errc := startShell(t, ctx, `trap '' INT; sleep 1000 & echo "ready $!"; wait; wait`)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	// Sent once the first was taken: two pending signals would be one.
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if e, ok := err.(*interrupt.Error); !ok || e.Signal != syscall.SIGINT {
		t.Errorf("Run returned %v, want the interruption by SIGINT", err)
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d outlived the command", pid)
	}
}

// TestChildDiesWithTheProgram: a helper process (this test binary, run
// again) starts a command through Run and is then killed with SIGKILL,
// so that none of its code runs; the command dies with it (Pdeathsig).
// The grandchild the command started in the background is not ours to
// bound: Nix kills its own builders when it dies.
func TestChildDiesWithTheProgram(t *testing.T) {
	if os.Getenv("CRFF_NIXEXEC_HELPER") == "1" {
		// The helper: the command writes its pid, then sleeps.
		cmd := Command("sh", "-c", `echo "ready $$"; exec sleep 1000`)
		cmd.Stdout = os.Stdout
		_ = cmd.Run(context.Background())
		os.Exit(0)
	}
	helper, line := testenv.StartHelper(t, "TestChildDiesWithTheProgram", "CRFF_NIXEXEC_HELPER")
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "ready "))
	if err != nil {
		t.Fatalf("ready line %q: %v", line, err)
	}
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	// A hang guard, not a speed bound: the kernel delivers the signal at
	// once; without Pdeathsig the sleep runs its 1000 s.
	deadline := time.Now().Add(30 * time.Second)
	for !exited(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the command %d outlived the program killed with SIGKILL", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exited: pid is no process, or a zombie.
func exited(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

// TestCommandLineBound: a command line over ArgBudget is refused before
// anything runs, with its size; Batches splits one so that each batch,
// with the fixed arguments, fits, and every argument is in one batch in
// order.
func TestCommandLineBound(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	var args []string
	for i := 0; len(args) < 40000; i++ {
		args = append(args, strings.Repeat("x", 90)+strconv.Itoa(i))
	}
	err := Command("sh", append([]string{"-c", "touch " + marker}, args...)...).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "over the bound") {
		t.Errorf("a command line of %d bytes: %v, want a refusal", ArgBytes(args...), err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	fixed := []string{"-c", `echo "$#"`, "sh"}
	batches, err := Batches(fixed, args)
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) < 2 {
		t.Fatalf("%d batches for %d bytes", len(batches), ArgBytes(args...))
	}
	var joined []string
	for _, b := range batches {
		if n := ArgBytes(append(append([]string{}, fixed...), b...)...); n > ArgBudget() {
			t.Errorf("a batch of %d bytes", n)
		}
		out, err := Command("sh", append(fixed, b...)...).Output(context.Background())
		if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(len(b)) {
			t.Errorf("a batch of %d arguments: %q %v", len(b), out, err)
		}
		joined = append(joined, b...)
	}
	if strings.Join(joined, " ") != strings.Join(args, " ") {
		t.Error("the batches are not the arguments in order")
	}
	if _, err := Batches(nil, []string{strings.Repeat("y", ArgBudget())}); err == nil {
		t.Error("an argument over the bound on its own was put in a batch")
	}
}

// TestLimitedBuffer: the first Max bytes are kept, the rest counted and
// said.
func TestLimitedBuffer(t *testing.T) {
	b := &LimitedBuffer{Max: 5}
	b.Write([]byte("abc"))
	b.Write([]byte("defgh"))
	if string(b.Bytes()) != "abcde" || b.Dropped != 3 || b.String() != "abcde… (3 bytes more)" {
		t.Errorf("kept %q, dropped %d, %q", b.Bytes(), b.Dropped, b.String())
	}
}

// TestMemoryBound: the command runs under the address-space bound.
func TestMemoryBound(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		// The bound is set by /bin/sh's ulimit, which the flake's
		// go-unit-tests sandbox does not have.
		testenv.Unavailable(t, "no /bin/sh: "+err.Error())
	}
	cmd := Command("sh", "-c", "ulimit -v")
	cmd.MaxMemory = 1 << 30
	out, err := cmd.Output(context.Background())
	if err != nil || strings.TrimSpace(string(out)) != "1048576" {
		t.Errorf("ulimit -v under a 1 GiB bound: %q %v", out, err)
	}
}

// TestBatchesUnderSmallStack: under a stack limit of 256 KiB (the
// kernel then allows 128 KiB of arguments and environment, not 2 MiB),
// 400 KB of arguments still run, in batches that fit; one argument over
// MaxArgLen is refused by name. The test binary runs itself under `ulimit
// -S -s 256`. Before: batches of up to 1 MiB, and "argument list too
// long".
func TestBatchesUnderSmallStack(t *testing.T) {
	if os.Getenv("CRFF_SMALL_STACK_HELPER") == "1" {
		smallStackHelper()
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		testenv.Unavailable(t, "no sh in PATH to set the stack limit with (ulimit -s)")
	}
	cmd := exec.Command(sh, "-c", `ulimit -S -s 256 && exec "$0" -test.run='^TestBatchesUnderSmallStack$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "CRFF_SMALL_STACK_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all 4000 arguments ran") {
		t.Fatalf("under a 256 KiB stack: %v\n%s", err, out)
	}
}

func smallStackHelper() {
	if b := ArgBudget(); b > 128<<10 {
		fmt.Printf("ArgBudget %d under a 256 KiB stack\n", b)
		os.Exit(1)
	}
	var args []string
	for i := 0; i < 4000; i++ {
		args = append(args, strings.Repeat("x", 90)+strconv.Itoa(i))
	}
	fixed := []string{"-c", `echo "$#"`, "sh"}
	batches, err := Batches(fixed, args)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	ran := 0
	for _, b := range batches {
		out, err := Command("sh", append(append([]string{}, fixed...), b...)...).Output(context.Background())
		if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(len(b)) {
			fmt.Printf("a batch of %d arguments: %q %v\n", len(b), out, err)
			os.Exit(1)
		}
		ran += len(b)
	}
	fmt.Printf("all %d arguments ran in %d batches\n", ran, len(batches))
	long := strings.Repeat("y", MaxArgLen+1)
	if _, err := Batches(nil, []string{long}); err == nil || !strings.Contains(err.Error(), "yyyy") {
		fmt.Printf("an argument of %d bytes: %v, want a refusal naming it\n", len(long), err)
		os.Exit(1)
	}
	if err := Command("sh", "-c", "true", long).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "for one") {
		fmt.Printf("Run with an argument of %d bytes: %v, want a refusal\n", len(long), err)
		os.Exit(1)
	}
}
