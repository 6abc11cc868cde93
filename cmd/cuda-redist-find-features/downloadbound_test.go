package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// listingServer serves, on 127.0.0.1 only, an index page of n manifest
// links (versions 0.0.0 to n-1 in base 100) and 404 for every manifest;
// it counts the requests.
func listingServer(t *testing.T, n int) (*httptest.Server, *atomic.Int64) {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<a href='redistrib_%d.%d.%d.json'>x</a>\n", i/10000, i/100%100, i%100)
	}
	page := b.String()
	var requests atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/" {
			fmt.Fprint(w, page)
			return
		}
		http.NotFound(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &requests
}

// TestDownloadBoundedListing: a listing of 5,000 manifests that all
// fail costs 1 + 1,000 requests (the newest --max-manifests, with one
// warning), one error line for the class with its count, and an error
// of one short line. On main: 5,001 requests, 5,000 error lines and an
// error joining all 5,000.
func TestDownloadBoundedListing(t *testing.T) {
	srv, requests := listingServer(t, 5000)
	code, stdout, stderr := runCLI("download-manifests", srv.URL+"/", t.TempDir())
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if n := requests.Load(); n != 1+defaultMaxManifests {
		t.Errorf("%d requests, want %d", n, 1+defaultMaxManifests)
	}
	checkBoundedStderr(t, stderr)
	t.Logf("%d requests, %d bytes of stderr", requests.Load(), len(stderr))
}

// checkBoundedStderr: one warning, one error line for the class, one
// short summary.
func checkBoundedStderr(t *testing.T, stderr string) {
	t.Helper()
	if n := strings.Count(stderr, "level=WARN"); n != 1 || !strings.Contains(stderr, `"left out"=4000`) || !strings.Contains(stderr, `"oldest kept"=0.40.0`) {
		t.Errorf("%d warnings, want one saying 4000 were left out:\n%.2000s", n, stderr)
	}
	if n := strings.Count(stderr, "level=ERROR"); n != 1 || !strings.Contains(stderr, `class="HTTP 404" count=1000 versions="0.40.0, 0.40.1, 0.40.2, 0.40.3, 0.40.4 and 995 more"`) {
		t.Errorf("%d error lines, want one for the class:\n%.2000s", n, stderr)
	}
	if !strings.Contains(stderr, "1000 of 1000 manifests failed: 1000 HTTP 404 (GET ") {
		t.Errorf("no summary error:\n%.2000s", stderr)
	}
	if len(stderr) > 8<<10 {
		t.Errorf("stderr is %d bytes, want at most 8 KiB:\n%.2000s", len(stderr), stderr)
	}
}

// TestDownloadHugeListing: an index page of 1,000,000 links (37 MB) is
// refused as it is read, past MaxIndexBody: one request, a short error.
// On main it was read whole and every link fetched.
func TestDownloadHugeListing(t *testing.T) {
	srv, requests := listingServer(t, 1_000_000)
	code, stdout, stderr := runCLI("download-manifests", srv.URL+"/", t.TempDir())
	if code != 1 || stdout != "" || !strings.Contains(stderr, "body larger than 16777216 bytes") {
		t.Errorf("exit %d, stdout %q, stderr:\n%.2000s", code, stdout, stderr)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if len(stderr) > 2<<10 {
		t.Errorf("stderr is %d bytes, want at most 2 KiB", len(stderr))
	}
}

// TestDownloadJobsBound: --jobs past MaxParallel is a usage error.
func TestDownloadJobsBound(t *testing.T) {
	code, _, stderr := runCLI("download-manifests", "--jobs", "100000", "http://127.0.0.1:1/", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--jobs 100000: want 1 to 32") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
