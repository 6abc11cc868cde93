package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// The classes of failure: what one line of the summary stands for.
const (
	ClassInterrupted = "interrupted"
	ClassNotStarted  = "not started (interrupted)"
	ClassTimeout     = "timed out"
	ClassNetwork     = "connection failed"
	ClassTooLarge    = "too large"
	ClassNotManifest = "not a manifest"
	ClassTruncated   = "body cut short"
	ClassWrite       = "not written"
	ClassOther       = "failed"
)

// maxClasses bounds the classes (HTTP status codes are many): the
// failures past it are counted as ClassOther.
const maxClasses = 16

// MaxExamples bounds the versions a Class names: the others are counted.
const MaxExamples = 5

// maxExampleError bounds the example error a Class keeps, in bytes.
const maxExampleError = 500

// Class is one kind of failure: how many versions, the oldest few of
// them, and the error of the oldest (shortened).
type Class struct {
	Name     string
	Count    int
	Versions []string // at most MaxExamples, oldest first
	Example  string
}

// Failures are the failed downloads of a run, by class: its size (and
// its Error's) is bounded by the number of classes, not of failures.
type Failures struct {
	Total   int // the versions the run was asked for
	Classes []*Class
}

func (f *Failures) add(class string, versions []string, err error) {
	var c *Class
	for _, k := range f.Classes {
		if k.Name == class {
			c = k
		}
	}
	if c == nil && len(f.Classes) >= maxClasses-1 && class != ClassOther {
		f.add(ClassOther, versions, err)
		return
	}
	if c == nil {
		c = &Class{Name: class}
		f.Classes = append(f.Classes, c)
	}
	c.Count += len(versions)
	// The oldest MaxExamples, whatever order the downloads end in.
	oldest := ""
	if len(c.Versions) > 0 {
		oldest = c.Versions[0]
	}
	c.Versions = append(c.Versions, versions[:min(len(versions), MaxExamples)]...)
	manifest.SortVersions(c.Versions)
	c.Versions = c.Versions[:min(len(c.Versions), MaxExamples)]
	if c.Versions[0] != oldest {
		c.Example = shorten(err.Error(), maxExampleError)
	}
}

func (f *Failures) sort() {
	sort.Slice(f.Classes, func(i, j int) bool { return f.Classes[i].Name < f.Classes[j].Name })
}

// Failed is how many versions failed, all classes.
func (f *Failures) Failed() int {
	n := 0
	for _, c := range f.Classes {
		n += c.Count
	}
	return n
}

// Error is one line: the count per class, with the error of its oldest
// version (at most maxClasses × maxExampleError bytes of them).
func (f *Failures) Error() string {
	parts := make([]string, len(f.Classes))
	for i, c := range f.Classes {
		parts[i] = fmt.Sprintf("%d %s (%s)", c.Count, c.Name, c.Example)
	}
	return fmt.Sprintf("%d of %d manifests failed: %s", f.Failed(), f.Total, strings.Join(parts, ", "))
}

// Named lists a class's example versions, saying how many more there are.
func (c *Class) Named() string {
	s := strings.Join(c.Versions, ", ")
	if more := c.Count - len(c.Versions); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// classify names the class of a download's error; ctx is the run's.
func classify(ctx context.Context, err error) string {
	var status *statusError
	var large *tooLargeError
	var notManifest *notManifestError
	var write *writeError
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		// The run was interrupted (its cause, SIGTERM say, is what the
		// client's error wraps, not context.Canceled).
		return ClassInterrupted
	case errors.As(err, &status):
		// By code: the status text is the server's, and could differ
		// for every request.
		return fmt.Sprintf("HTTP %d", status.code)
	case errors.As(err, &large):
		return ClassTooLarge
	case errors.As(err, &notManifest):
		return ClassNotManifest
	case errors.As(err, &write):
		return ClassWrite
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ClassTruncated
	case errors.As(err, &netErr) && netErr.Timeout():
		return ClassTimeout
	case errors.As(err, &netErr):
		return ClassNetwork
	}
	return ClassOther
}

// shorten cuts s to at most n bytes (on a UTF-8 boundary), saying so.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + fmt.Sprintf("… (%d bytes)", len(s))
}
