package download

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestManifestsStopWhenInterrupted: once the run's context is cancelled
// (SIGTERM), no download starts: of 100,000 versions, at most the ones
// in flight are requested after it, and the error is one bounded line
// counting the rest as not started. On main every version was still
// tried, each failing on its own (one error each, all joined).
func TestManifestsStopWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const cancelAt, parallel = 10, 4
	var requests atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == cancelAt {
			cancel()
		}
		http.NotFound(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	versions := make([]string, 100_000)
	for i := range versions {
		versions[i] = fmt.Sprintf("%d.%d.%d", i/10000, i/100%100, i%100)
	}
	var done atomic.Int64
	written, err := Manifests(ctx, srv.Client(), srv.URL, t.TempDir(), versions, Options{Parallel: parallel, Done: func(string, error) { done.Add(1) }})
	if len(written) != 0 {
		t.Errorf("written %v", written)
	}
	if n := requests.Load(); n > cancelAt+parallel {
		t.Errorf("%d requests, want at most %d", n, cancelAt+parallel)
	}
	if n := done.Load(); n > cancelAt+parallel {
		t.Errorf("%d downloads reported, want at most %d", n, cancelAt+parallel)
	}
	checkBoundedNotStarted(t, err, len(versions), len(versions)-cancelAt-parallel)
	t.Logf("%d requests; %s", requests.Load(), err)
}

// checkBoundedNotStarted: err is one bounded line counting all n
// versions failed, its classes bounded, at least notStarted of them in
// the class of downloads not started.
func checkBoundedNotStarted(t *testing.T, err error, n, notStarted int) {
	t.Helper()
	var fails *Failures
	if !errors.As(err, &fails) {
		t.Fatalf("error %v, want *Failures", err)
	}
	if fails.Failed() != n || len(err.Error()) > 1000 || !strings.Contains(err.Error(), fmt.Sprintf("%d of %d manifests failed", n, n)) {
		t.Errorf("error (%d bytes): %.500s", len(err.Error()), err)
	}
	var ns *Class
	for _, c := range fails.Classes {
		if c.Name == ClassNotStarted {
			ns = c
		}
		if len(c.Versions) > MaxExamples || len(c.Example) > maxExampleError+40 {
			t.Errorf("class %s is not bounded: %d versions, example of %d bytes", c.Name, len(c.Versions), len(c.Example))
		}
	}
	if ns == nil || ns.Count < notStarted {
		t.Errorf("classes %+v, want most versions not started", fails.Classes)
	}
}

// TestFailuresClassByCode: a server whose status text differs for every
// request still makes one class per status code.
func TestFailuresClassByCode(t *testing.T) {
	f := &Failures{Total: 3}
	for i := range 3 {
		f.add(classify(context.Background(), &statusError{url: "u", status: fmt.Sprintf("404 text %d %s", i, strings.Repeat("x", 1000)), code: 404}), []string{fmt.Sprint(i)}, errors.New(strings.Repeat("e", 10_000)))
	}
	if len(f.Classes) != 1 || f.Classes[0].Count != 3 || len(f.Classes[0].Example) > maxExampleError+40 {
		t.Errorf("classes: %+v", f.Classes)
	}
}

// TestListingStopsWhenInterrupted: the links of a page are searched in
// chunks, the context looked at between them: a page of 16 MiB is not
// searched to its end once SIGTERM arrives (the search is cut at a '<',
// so no link is lost between chunks: TestVersionsOfAHugeListing).
func TestListingStopsWhenInterrupted(t *testing.T) {
	page := []byte(indexPage(400_000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := listedVersionsCtx(ctx, page); !errors.Is(err, context.Canceled) || v != nil {
		t.Errorf("got %d versions, %v; want the context's error", len(v), err)
	}
	// A link cut by a chunk boundary is still found: links with no '<'
	// between them for longer than a chunk.
	long := strings.Repeat(`href='redistrib_1.2.3.json' `, chunkSize/20) + `href='redistrib_9.9.9.json'`
	if v := listedVersions([]byte(long)); len(v) != 2 {
		t.Errorf("versions %v, want 1.2.3 and 9.9.9", v)
	}
}

// TestClassifyInterruptedByCause: a download cut by the run's context
// cancelled with a cause (SIGTERM) is interrupted, not a network failure.
func TestClassifyInterruptedByCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("interrupted by SIGTERM")
	cancel(cause)
	err := fmt.Errorf("GET u: %w", &net.OpError{Op: "dial", Err: cause})
	if got := classify(ctx, err); got != ClassInterrupted {
		t.Errorf("classify = %q, want %q", got, ClassInterrupted)
	}
}
