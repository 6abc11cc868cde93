package nixexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/lib/interrupt"
)

// Grace is how long an interrupted command has to stop before its
// process group is killed. Nix stops its builds and removes their
// directories in well under it; an evaluation that does not check for
// interruption (Nix 2.8 in a long foldl', at SIGINT as at SIGTERM) is
// killed. The whole run thus ends within about a second of the user's
// signal.
var Grace = 500 * time.Millisecond

// MaxArgBudget bounds the bytes of one command line (its arguments, each
// with its terminating NUL and pointer, as the kernel counts them): no
// more than 1 MiB, whatever the kernel allows.
const MaxArgBudget = 1 << 20

// MaxArgLen is the kernel's limit on one argument (Linux's
// MAX_ARG_STRLEN, 128 KiB with its NUL): a longer one cannot be passed
// at all, however few others there are.
const MaxArgLen = 128<<10 - 1

// argSlack is kept of the kernel's limit for what exec adds beyond the
// arguments and environment (the program's path) and for the shell that
// sets Cmd.MaxMemory (its script and arguments).
const argSlack = 8 << 10

// ArgBudget is how many bytes one command line may take now: the
// kernel's limit for this process (see kernelArgLimit: it follows the
// stack's soft limit) less the environment the command inherits and some
// slack, and at most MaxArgBudget. Batches fills command lines up to it.
func ArgBudget() int {
	return min(MaxArgBudget, kernelArgLimit()-ArgBytes(os.Environ()...)-argSlack)
}

// MaxOutput bounds the standard output Output keeps in memory. The
// largest Nix output this program reads (nix/cli.nix's plan of every
// manifest of CUDA: 7,452 archives) is about 5 MB.
const MaxOutput = 256 << 20

// ErrNoMemoryBound: the shell could not set Cmd.MaxMemory; the command
// was not run without it.
var ErrNoMemoryBound = errors.New("cannot bound the command's memory (/bin/sh's ulimit -v failed)")

// Cmd is one Nix command.
type Cmd struct {
	// Name is the program (nix, nix-store, nix-instantiate), looked up
	// in PATH; Args its arguments.
	Name string
	Args []string
	// Env, when not nil, is the command's whole environment.
	Env []string
	// Stdin, Stdout and Stderr are as exec.Cmd's (nil: /dev/null).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// MaxMemory, when > 0, bounds the command's address space (bytes,
	// RLIMIT_AS) from before it starts.
	MaxMemory int64
}

// Command is the command name with args.
func Command(name string, args ...string) *Cmd {
	return &Cmd{Name: name, Args: args}
}

// ArgBytes is what a command line of args takes of the kernel's limit.
func ArgBytes(args ...string) int {
	n := 0
	for _, a := range args {
		n += len(a) + 1 + 8
	}
	return n
}

// boundScript sets the memory bound and replaces itself with the
// command (same process: the bound and the process group hold for it).
// Go cannot set a child's rlimit before exec; the shell can.
const boundScript = `ulimit -v "$1" 2>/dev/null || { echo "crff-bound: ulimit -v $1 failed" >&2; exit 125; }; shift; exec "$@"`

// Run runs the command, in a process group of its own that dies with
// this program, until it exits or ctx ends (see the package comment).
// It does not start the command when ctx is already done, nor when its
// command line is over ArgBudget. The error of an interrupted command is
// ctx's cause (an *interrupt.Error for a signal); a failed one is an
// *exec.ExitError.
func (c *Cmd) Run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if err := c.checkArgs(); err != nil {
		return err
	}
	path, err := exec.LookPath(c.Name)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, c.Args...)
	var sniff *prefixWriter
	if c.MaxMemory > 0 {
		kib := strconv.FormatInt((c.MaxMemory+1023)/1024, 10)
		cmd = exec.Command("/bin/sh", append([]string{"-c", boundScript, "crff-" + c.Name, kib, path}, c.Args...)...)
	}
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Env, c.Stdin, c.Stdout, c.Stderr
	if c.MaxMemory > 0 {
		sniff = &prefixWriter{w: c.Stderr}
		cmd.Stderr = sniff
	}
	cmd.SysProcAttr = sysProcAttr()
	// A member of the group that keeps the output pipes open after the
	// command exited (killed below) does not hold up Wait.
	cmd.WaitDelay = Grace
	err = run(ctx, cmd)
	var exit *exec.ExitError
	if sniff != nil && errors.As(err, &exit) && exit.ExitCode() == 125 && bytes.HasPrefix(sniff.head, []byte("crff-bound:")) {
		return ErrNoMemoryBound
	}
	return err
}

// checkArgs refuses a command line the kernel would refuse ("argument
// list too long"), with its size: over ArgBudget with this process's
// environment, or over the kernel's limit with the command's own
// (Cmd.Env), or with one argument over MaxArgLen.
func (c *Cmd) checkArgs() error {
	for _, a := range c.Args {
		if len(a) > MaxArgLen {
			return fmt.Errorf("%s: an argument of %d bytes, over the kernel's bound of %d for one: %.100s…", c.Name, len(a), MaxArgLen, a)
		}
	}
	n, budget := ArgBytes(c.Args...), ArgBudget()
	if c.Env != nil {
		budget = min(MaxArgBudget, kernelArgLimit()-ArgBytes(c.Env...)-argSlack)
	}
	if n > budget {
		return fmt.Errorf("%s: a command line of %d bytes, over the bound of %d (a bug: paths go in batches)", c.Name, n, budget)
	}
	return nil
}

// Output runs the command like Run and returns its standard output; more
// than MaxOutput bytes of it is an error.
func (c *Cmd) Output(ctx context.Context) ([]byte, error) {
	out := &LimitedBuffer{Max: MaxOutput}
	c.Stdout = out
	err := c.Run(ctx)
	if err == nil && out.Dropped > 0 {
		err = fmt.Errorf("%s: more than %d bytes of output", c.Name, MaxOutput)
	}
	return out.Bytes(), err
}

func run(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	group := cmd.Process.Pid
	exited := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-exited:
			return
		case <-ctx.Done():
		}
		_ = syscall.Kill(-group, signalFor(ctx))
		select {
		case <-exited:
		case <-time.After(Grace):
		case <-interrupt.Hurry(ctx):
		}
		// The command itself, if it is still running, and what it
		// started in its group and left behind.
		_ = syscall.Kill(-group, syscall.SIGKILL)
	}()
	err := cmd.Wait()
	close(exited)
	<-stopped
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// signalFor is what the group gets when ctx is done: SIGKILL when ctx's
// deadline passed (a time bound was reached: nothing is left to ask the
// command); else SIGINT, whatever ended ctx: Nix's own interruption, the
// one its evaluator checks for (the user's Ctrl-C); Nix stops a build the
// same way for both.
func signalFor(ctx context.Context) syscall.Signal {
	if _, ok := interrupt.Cause(ctx); !ok && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return syscall.SIGKILL
	}
	return syscall.SIGINT
}

// LimitedBuffer keeps the first Max bytes written to it and counts the
// rest (Dropped): the captured output of a command, bounded.
type LimitedBuffer struct {
	Max     int
	Dropped int64
	buf     bytes.Buffer
}

func (b *LimitedBuffer) Write(p []byte) (int, error) {
	room := b.Max - b.buf.Len()
	if room < len(p) {
		b.Dropped += int64(len(p) - max(room, 0))
		p2 := p[:max(room, 0)]
		b.buf.Write(p2)
		return len(p), nil
	}
	b.buf.Write(p)
	return len(p), nil
}

// Bytes are the bytes kept.
func (b *LimitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// String is the bytes kept, and how many were dropped.
func (b *LimitedBuffer) String() string {
	if b.Dropped > 0 {
		return fmt.Sprintf("%s… (%d bytes more)", b.buf.String(), b.Dropped)
	}
	return b.buf.String()
}

// prefixWriter passes writes on to w (if any) and keeps their first bytes.
type prefixWriter struct {
	w    io.Writer
	head []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if n := 64 - len(p.head); n > 0 {
		p.head = append(p.head, b[:min(n, len(b))]...)
	}
	if p.w == nil {
		return len(b), nil
	}
	return p.w.Write(b)
}

// Batches splits args into runs whose command lines, with fixed (the
// arguments every command of the batch also carries), stay within
// ArgBudget. An argument too long for a command line of its own, or over
// the kernel's bound for one argument (MaxArgLen), is an error naming
// it; so is an environment that leaves no room for the fixed arguments.
func Batches(fixed []string, args []string) ([][]string, error) {
	budget := ArgBudget()
	room := budget - ArgBytes(fixed...)
	if room <= 0 {
		return nil, fmt.Errorf("no room for arguments: the kernel allows %d bytes of arguments and environment, the environment takes %d (a small stack limit, ulimit -s, lowers the first; ARG_MAX is a quarter of it)", kernelArgLimit(), ArgBytes(os.Environ()...))
	}
	var out [][]string
	start, used := 0, 0
	for i, a := range args {
		n := ArgBytes(a)
		if n > room || len(a) > MaxArgLen {
			return nil, fmt.Errorf("argument of %d bytes is over the command-line bound of %d (%d for one argument): %.100s…", len(a), budget, MaxArgLen, a)
		}
		if used+n > room {
			out = append(out, args[start:i])
			start, used = i, 0
		}
		used += n
	}
	if start < len(args) {
		out = append(out, args[start:])
	}
	return out, nil
}

// ExitError is a command that ran and failed (exit status, or a signal
// not sent by Run), as os/exec reports it.
type ExitError = exec.ExitError
