package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// resultStream is stdout as the commands write their results to it: it
// remembers the first write that failed, and run turns that into the
// run's failure once the command is done. Every command prints through
// it (env.stdout), so no result line that did not arrive (stdout on a
// full disk, /dev/full, a file system gone read-only) passes in silence,
// whether or not the command looked at the error of each write: the
// list of the files process-manifests and download-manifests wrote, for
// one, is a result. After a failure nothing more is written: what
// follows a hole would read as whole.
type resultStream struct {
	w    io.Writer
	name string
	err  error
	// reported: the failure is the command's own error already.
	reported bool
}

func newResultStream(w io.Writer) *resultStream {
	return &resultStream{w: w, name: streamName(w)}
}

func (r *resultStream) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		r.err = err
	}
	return n, err
}

// failure is the error of the first failed write, saying where stdout
// went and that the output is incomplete; nil when every write arrived.
func (r *resultStream) failure() error {
	if r.err == nil || r.reported {
		return nil
	}
	return fmt.Errorf("writing the results to %s: %w; the printed results are incomplete (the files it wrote, if any, are complete)", r.name, r.err)
}

// streamName names the file behind stdout for the message: "stdout
// (/dev/full)" for the process's stdout (its name is /dev/stdout), the
// file's name for another file.
func streamName(w io.Writer) string {
	f, ok := w.(*os.File)
	if !ok {
		return "stdout"
	}
	if f != os.Stdout {
		return f.Name()
	}
	if target, err := os.Readlink("/proc/self/fd/1"); err == nil {
		return "stdout (" + target + ")"
	}
	return "stdout"
}

// sayWriteFailureOnce turns err, when it is the failed write to stdout
// the command returned, into the error that says it once, with where
// stdout went.
func (r *resultStream) sayWriteFailureOnce(err error) error {
	if err == nil || r.err == nil || !errors.Is(err, r.err) {
		return err
	}
	err = &runError{r.failure()}
	r.reported = true
	return err
}
