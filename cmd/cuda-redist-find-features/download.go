package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest/download"
	"github.com/nix-cuda/cuda-redist-find-features/lib/safetext"
)

// describeListed says how many manifest versions an index page lists,
// and their range.
func describeListed(listed []string) string {
	switch len(listed) {
	case 0:
		return "0 manifests (no redistrib_<version>.json link)"
	case 1:
		return "1 manifest (" + listed[0] + ")"
	}
	return fmt.Sprintf("%d manifests (%s to %s)", len(listed), listed[0], listed[len(listed)-1])
}

func downloadCommand() command {
	return command{
		name:    "download-manifests",
		args:    "URL MANIFEST_DIR",
		summary: "Download the redistrib_<version>.json manifests listed at URL into MANIFEST_DIR.",
		setup: func(fs *flag.FlagSet, e *env) func([]string) error {
			df := &downloadFlags{ff: addFilterFlags(fs)}
			df.timeout = fs.Duration("timeout", 2*time.Minute, "timeout of each HTTP request")
			df.jobs = fs.Int("jobs", 8, fmt.Sprintf("downloads at once when parallel (at most %d)", download.MaxParallel))
			df.maxManifests = fs.Int("max-manifests", defaultMaxManifests, "download at most the newest N of the selected manifests (0 for no bound)")
			return func(args []string) error { return df.run(e, args) }
		},
	}
}

// downloadFlags are download-manifests' flags.
type downloadFlags struct {
	ff           *filterFlags
	timeout      *time.Duration
	jobs         *int
	maxManifests *int
}

// defaultMaxManifests bounds the manifests one run downloads: NVIDIA's
// largest listing (cuda) has about 50, all redists together a few
// hundred; a page listing more is not NVIDIA's, or is taken newest first.
const defaultMaxManifests = 1000

func (df *downloadFlags) run(e *env, args []string) error {
	if err := wantArgs("download-manifests", args, 2, "URL and MANIFEST_DIR"); err != nil {
		return err
	}
	flt, err := df.filter()
	if err != nil {
		return err
	}
	url, dir := args[0], args[1]
	if !strings.Contains(url, "://") {
		return usageErrorf("URL %q has no scheme: give the index page's https:// address", url)
	}
	listed, err := download.Versions(e.context(), &http.Client{Timeout: *df.timeout}, url)
	if err != nil {
		return err
	}
	versions, incomparable := selectVersions(e, flt, url, listed)
	// Reported after the others are downloaded, as an error.
	incomparableErr := func() error {
		if len(incomparable) == 0 {
			return nil
		}
		return fmt.Errorf("%d listed versions cannot be compared with the version filters (a number overflows): %s",
			len(incomparable), strings.Join(incomparable, ", "))
	}
	e.log.Info("manifests listed", "url", url, "listed", len(listed), "selected", len(versions))
	if len(versions) == 0 {
		if err := incomparableErr(); err != nil {
			return err
		}
		return fmt.Errorf("none of the %s listed at %s matches %s", describeListed(listed), url, df.ff.describe())
	}
	versions = df.newest(e, url, versions)
	written, err := df.download(e, url, dir, versions)
	for _, v := range written {
		safetext.Fprintf(e.stdout, "%s/redistrib_%s.json\n", dir, v)
	}
	return errors.Join(err, incomparableErr())
}

// filter is the version filter, once --jobs and --max-manifests are
// checked.
func (df *downloadFlags) filter() (manifest.Filter, error) {
	if *df.jobs < 1 || *df.jobs > download.MaxParallel {
		return manifest.Filter{}, usageErrorf("--jobs %d: want 1 to %d", *df.jobs, download.MaxParallel)
	}
	if *df.maxManifests < 0 {
		return manifest.Filter{}, usageErrorf("--max-manifests %d: want 0 (no bound) or more", *df.maxManifests)
	}
	return df.ff.filter()
}

// newest keeps the newest --max-manifests of the selected versions,
// warning once about the others.
func (df *downloadFlags) newest(e *env, url string, versions []string) []string {
	kept, dropped := download.Newest(versions, *df.maxManifests)
	if dropped > 0 {
		e.log.Warn("more manifests selected than --max-manifests; downloading the newest only (raise --max-manifests or narrow the version filters)",
			"url", url, "selected", len(versions), "max", *df.maxManifests, "left out", dropped, "oldest kept", kept[0])
	}
	return kept
}

// download runs the downloads with a progress display; a failure is
// not logged one by one but once per class, with its count.
func (df *downloadFlags) download(e *env, url, dir string, versions []string) ([]string, error) {
	parallel := *df.jobs
	if df.ff.serial() {
		parallel = 1
	}
	prog := newProgress(e, "download", len(versions))
	written, err := download.Manifests(e.context(), &http.Client{Timeout: *df.timeout}, url, dir, versions, download.Options{
		Parallel: parallel,
		Done: func(v string, err error) {
			prog.done("redistrib_"+v+".json", err)
		},
	})
	prog.finish()
	var fails *download.Failures
	if errors.As(err, &fails) {
		for _, c := range fails.Classes {
			e.log.Error("manifests failed", "class", c.Name, "count", c.Count, "versions", c.Named())
		}
	}
	return written, err
}

// selectVersions are the listed versions the filter accepts, and those it
// cannot compare (logged as they are found).
func selectVersions(e *env, flt manifest.Filter, url string, listed []string) (versions, incomparable []string) {
	for _, v := range listed {
		ok, err := flt.Match(v)
		if err != nil {
			e.log.Error("listed version cannot be compared with the filter", "url", url, "version", v, "err", err)
			incomparable = append(incomparable, v)
		}
		if ok {
			versions = append(versions, v)
		}
	}
	return versions, incomparable
}
