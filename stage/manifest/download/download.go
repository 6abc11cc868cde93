package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/stage/manifest"
)

// maxBody bounds what is read of one response: manifests are tens of KB,
// index pages a few hundred.
const maxBody = 64 << 20

var manifestLink = regexp.MustCompile(`href=["'](?:\./)?redistrib_(\d+\.\d+\.\d+(?:\.\d+)?)\.json["']`)

// Versions returns the manifest versions the index page lists, sorted.
func Versions(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	body, err := get(ctx, client, baseURL)
	if err != nil {
		return nil, err
	}
	return listedVersions(body), nil
}

// listedVersions are the versions of the manifest links in an index page,
// each once, sorted.
func listedVersions(body []byte) []string {
	seen := map[string]bool{}
	var versions []string
	for _, m := range manifestLink.FindAllSubmatch(body, -1) {
		if v := string(m[1]); !seen[v] {
			seen[v] = true
			versions = append(versions, v)
		}
	}
	manifest.SortVersions(versions)
	return versions
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
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
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		// net/http reports a body shorter than its Content-Length here.
		return nil, fmt.Errorf("GET %s: body: %w", url, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("GET %s: body larger than %d bytes", url, maxBody)
	}
	return body, nil
}

// Options tune Manifests.
type Options struct {
	// Parallel is how many downloads run at once (1 = one after another).
	Parallel int
	// Done, when set, is called after each manifest, successful or not.
	Done func(version string, err error)
}

// Manifests downloads redistrib_<version>.json for each version from
// baseURL into dir. Each file is checked to parse as a manifest before it
// replaces anything. It returns the versions written and an error that
// names every version that failed.
func Manifests(ctx context.Context, client *http.Client, baseURL, dir string, versions []string, opts Options) ([]string, error) {
	if opts.Parallel < 1 {
		opts.Parallel = 1
	}
	var (
		mu      sync.Mutex
		written []string
		failed  []string
		errs    []error
		wg      sync.WaitGroup
		slots   = make(chan struct{}, opts.Parallel)
	)
	for _, v := range versions {
		wg.Add(1)
		slots <- struct{}{}
		go func(v string) {
			defer wg.Done()
			defer func() { <-slots }()
			err := one(ctx, client, baseURL, dir, v)
			mu.Lock()
			if err != nil {
				failed = append(failed, v)
				errs = append(errs, err)
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
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		manifest.SortVersions(failed)
		return written, fmt.Errorf("%d of %d manifests failed (%s): %w", len(failed), len(versions), strings.Join(failed, ", "), errors.Join(errs...))
	}
	return written, nil
}

func one(ctx context.Context, client *http.Client, baseURL, dir, version string) error {
	name := "redistrib_" + version + ".json"
	url := strings.TrimSuffix(baseURL, "/") + "/" + name
	body, err := get(ctx, client, url)
	if err != nil {
		return err
	}
	if _, err := manifest.Parse(url, body); err != nil {
		return fmt.Errorf("%s: not written: %w", name, err)
	}
	return atomicfile.Write(filepath.Join(dir, name), body)
}
