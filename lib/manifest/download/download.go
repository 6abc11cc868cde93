package download

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// maxBody bounds what is read of one manifest: they are tens of KB.
const maxBody = 64 << 20

// MaxIndexBody bounds what is read of the index page: NVIDIA's list a few
// hundred manifests in a few hundred KB. It bounds the links a page can
// hold (about 600,000 of the shortest), so the memory of the listing.
const MaxIndexBody = 16 << 20

// MaxParallel bounds the requests in flight at once.
const MaxParallel = 32

var manifestLink = regexp.MustCompile(`href=["'](?:\./)?redistrib_(\d+\.\d+\.\d+(?:\.\d+)?)\.json["']`)

// Versions returns the manifest versions the index page lists, sorted.
func Versions(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	body, err := get(ctx, client, baseURL, MaxIndexBody)
	if err != nil {
		return nil, err
	}
	return listedVersionsCtx(ctx, body)
}

// chunkSize is how much of a page is searched for links between two
// looks at the context: a SIGTERM stops a 16 MiB page within one chunk.
const chunkSize = 256 << 10

// listedVersions are the versions of the manifest links in an index page,
// each once, sorted.
func listedVersions(body []byte) []string {
	v, _ := listedVersionsCtx(context.Background(), body)
	return v
}

// listedVersionsCtx is listedVersions, stopping when ctx is done. The
// page is searched in chunks cut before a '<', which no link holds.
func listedVersionsCtx(ctx context.Context, body []byte) ([]string, error) {
	seen := map[string]bool{}
	var versions []string
	for len(body) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := len(body)
		if n > chunkSize {
			if cut := bytes.LastIndexByte(body[:chunkSize], '<'); cut > 0 {
				n = cut
			} else {
				n = chunkSize + bytes.IndexByte(body[chunkSize:], '<')
				if n < chunkSize {
					n = len(body)
				}
			}
		}
		for _, m := range manifestLink.FindAllSubmatch(body[:n], -1) {
			if v := string(m[1]); !seen[v] {
				seen[v] = true
				versions = append(versions, v)
			}
		}
		body = body[n:]
	}
	manifest.SortVersions(versions)
	return versions, nil
}

// statusError is a response other than 200 OK.
type statusError struct {
	url, status string
	code        int
}

func (e *statusError) Error() string { return "GET " + e.url + ": " + e.status }

// tooLargeError is a body over its bound.
type tooLargeError struct {
	url   string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("GET %s: body larger than %d bytes", e.url, e.limit)
}

func get(ctx context.Context, client *http.Client, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{url: url, status: resp.Status, code: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		// net/http reports a body shorter than its Content-Length here.
		return nil, fmt.Errorf("GET %s: body: %w", url, err)
	}
	if int64(len(body)) > limit {
		return nil, &tooLargeError{url: url, limit: limit}
	}
	return body, nil
}

// Options tune Manifests.
type Options struct {
	// Parallel is how many downloads run at once (1 = one after another;
	// at most MaxParallel).
	Parallel int
	// Done, when set, is called after each manifest, successful or not.
	Done func(version string, err error)
}

// Manifests downloads redistrib_<version>.json for each version from
// baseURL into dir, at most opts.Parallel at once. Each file is checked
// to parse as a manifest before it replaces anything. It returns the
// versions written and, when some failed, a *Failures: the failures by
// class, bounded in size whatever their number. Once ctx is done no
// download starts; the versions left are counted as interrupted.
func Manifests(ctx context.Context, client *http.Client, baseURL, dir string, versions []string, opts Options) ([]string, error) {
	opts.Parallel = min(max(opts.Parallel, 1), MaxParallel)
	var (
		mu      sync.Mutex
		written []string
		fails   = &Failures{Total: len(versions)}
		wg      sync.WaitGroup
		slots   = make(chan struct{}, opts.Parallel)
	)
	for i, v := range versions {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			// Not started: one count, not one error each.
			mu.Lock()
			fails.add(ClassNotStarted, versions[i:], ctx.Err())
			mu.Unlock()
			break
		}
		wg.Add(1)
		go func(v string) {
			defer wg.Done()
			defer func() { <-slots }()
			err := one(ctx, client, baseURL, dir, v)
			mu.Lock()
			if err != nil {
				fails.add(classify(ctx, err), []string{v}, err)
			} else {
				written = append(written, v)
			}
			mu.Unlock()
			if opts.Done != nil {
				opts.Done(v, err)
			}
		}(v)
	}
	wg.Wait()
	manifest.SortVersions(written)
	if len(fails.Classes) > 0 {
		fails.sort()
		return written, fails
	}
	return written, nil
}

// Newest keeps the newest n of versions (sorted oldest first) and says
// how many it left out.
func Newest(versions []string, n int) ([]string, int) {
	if n <= 0 || len(versions) <= n {
		return versions, 0
	}
	return versions[len(versions)-n:], len(versions) - n
}

func one(ctx context.Context, client *http.Client, baseURL, dir, version string) error {
	name := "redistrib_" + version + ".json"
	url := strings.TrimSuffix(baseURL, "/") + "/" + name
	body, err := get(ctx, client, url, maxBody)
	if err != nil {
		return err
	}
	if _, err := manifest.Parse(url, body); err != nil {
		return &notManifestError{fmt.Errorf("%s: not written: %w", name, err)}
	}
	if err := atomicfile.Write(filepath.Join(dir, name), body); err != nil {
		return &writeError{err}
	}
	return nil
}

// notManifestError: the server's file is not a manifest.
type notManifestError struct{ error }

func (e *notManifestError) Unwrap() error { return e.error }

// writeError: the manifest could not be written.
type writeError struct{ error }

func (e *writeError) Unwrap() error { return e.error }
