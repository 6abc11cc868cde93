package nixlog

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/ansi"
)

// TestFailuresOfEveryVersion follows the structured log that each Nix
// version writes of failures.nix (testdata/build-VERSION.log, written by
// testdata/capture.sh with that version, four builds at once): every
// failed build is Finished failed with its builder's own last error line,
// the derivation whose input failed is DependencyFailed, the two that
// succeed meanwhile are Finished and not failed, and Nix's own failure messages (2.8's "builder for
// '….drv' failed" in colour, 2.34's "Cannot build …", nix-store's "build
// of … failed") are not passed on as messages.
func TestFailuresOfEveryVersion(t *testing.T) {
	causes := map[string]*regexp.Regexp{
		"closed-port":   regexp.MustCompile(`^error: unable to download 'http://127\.0\.0\.1:9/archive\.tar\.xz': Could(n't| not) connect to server \(7\)`),
		"unresolvable":  regexp.MustCompile(`^error: unable to download 'http://no-such-host\.invalid/archive\.tar\.xz': Could(n't resolve host name| not resolve hostname) \(6\)`),
		"wrong-scheme":  regexp.MustCompile(`^error: unable to download 'htps://127\.0\.0\.1/archive\.tar\.xz': Unsupported protocol \(1\)`),
		"unpack-broken": regexp.MustCompile(`^error: unpack archive\.tar\.xz: corrupt or truncated archive: unexpected EOF$`),
	}
	stages := map[string]Stage{"closed-port": Fetch, "unresolvable": Fetch, "wrong-scheme": Fetch, "unpack-broken": Unpack, "detect-dependent": Detect,
		"ok-a": Detect, "ok-b": Detect}
	for _, version := range []string{"2.8", "2.26", "2.34"} {
		t.Run(version, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "build-"+version+".log"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			tr := NewTracker()
			tr.SetRoles(rolesOf(t, lines, version, stages))
			o := follow(t, tr, lines)
			checkCauses(t, o.failed, causes)
			sort.Strings(o.built)
			if len(o.built) != 2 || o.built[0] != "ok-a" || o.built[1] != "ok-b" {
				t.Errorf("built %v, want [ok-a ok-b]", o.built)
			}
			if len(o.dependency) != 1 || o.dependency[0] != "detect-dependent" {
				t.Errorf("dependency failures %v, want [detect-dependent]", o.dependency)
			}
			if tr.Failed(Fetch) != 3 || tr.Failed(Unpack) != 1 || tr.DependencyFailed(Detect) != 1 || tr.Done(Fetch) != 3 {
				t.Errorf("counts: failed fetch %d unpack %d, dependency detect %d, fetches done %d",
					tr.Failed(Fetch), tr.Failed(Unpack), tr.DependencyFailed(Detect), tr.Done(Fetch))
			}
		})
	}
}

// outcomes are the builds a log's updates end: failed ones with their
// causes, those whose input failed, and those built.
type outcomes struct {
	failed            map[string]string
	dependency, built []string
}

// follow hands the log's lines to tr and gathers the builds' outcomes;
// a message other than a retry notice fails t.
func follow(t *testing.T, tr *Tracker, lines []string) outcomes {
	t.Helper()
	o := outcomes{failed: map[string]string{}}
	for _, line := range lines {
		ev, ok := Parse(line)
		if !ok {
			continue
		}
		u := tr.Handle(ev)
		switch u.Kind {
		case Finished, LateFailure:
			if u.Build.Failed {
				o.failed[u.Build.Subject] = u.Build.Cause
			} else {
				o.built = append(o.built, u.Build.Subject)
			}
		case DependencyFailed:
			o.dependency = append(o.dependency, u.Build.Subject)
		case Message:
			if !IsRetryNotice(ansi.Strip(u.Message)) {
				t.Errorf("message passed on: %q", u.Message)
			}
		}
	}
	return o
}

// checkCauses: exactly the builds of causes failed, each with a cause
// its pattern matches.
func checkCauses(t *testing.T, failed map[string]string, causes map[string]*regexp.Regexp) {
	t.Helper()
	for name, want := range causes {
		cause, ok := failed[name]
		if !ok {
			t.Errorf("%s: not reported failed", name)
		} else if !want.MatchString(cause) {
			t.Errorf("%s: cause %q, want %s", name, cause, want)
		}
	}
	if len(failed) != len(causes) {
		t.Errorf("failed %v, want %d", failed, len(causes))
	}
}

// rolesOf gives the derivations the log lists the stages failures.nix
// names them for ("closed-port-VERSION.drv" a fetch, ...).
func rolesOf(t *testing.T, lines []string, version string, stages map[string]Stage) Roles {
	t.Helper()
	r := Roles{}
	for _, line := range lines {
		ev, ok := Parse(line)
		if !ok || ev.Action != "msg" || !strings.HasSuffix(ev.Msg, ".drv") {
			continue
		}
		drvPath := strings.TrimSpace(ev.Msg)
		name := strings.TrimSuffix(DrvName(drvPath), "-"+version)
		if s, ok := stages[name]; ok {
			r[drvPath] = Role{Stage: s, Subject: name}
		}
	}
	if len(r) != len(stages) {
		t.Fatalf("the log lists %v, want the %d of failures.nix", r, len(stages))
	}
	return r
}
