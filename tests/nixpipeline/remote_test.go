package nixpipeline

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// sshBuilder is an sshd on 127.0.0.1 with its own configuration, host key
// and client key under a temporary directory, whose logins run a Nix
// builder with a store of its own (local?root=DIR).
type sshBuilder struct {
	dir, port, clientKey, hostKeyPub, wrapper, storeRoot string
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func startSSHBuilder(t *testing.T) *sshBuilder {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		testenv.Unavailable(t, "no "+sshd+" (scripts/install-deps.sh installs openssh-server)", "CRFF_REQUIRE_NIX")
	}
	if os.Getuid() != 0 {
		testenv.Unavailable(t, "not root: the builder logs in as root (Nix is single-user as root here)", "CRFF_REQUIRE_NIX")
	}
	// OpenSSH refuses to start without its privilege separation directory,
	// an empty runtime directory Debian's service creates at each start;
	// nothing of the machine's ssh configuration or keys is used.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	b := &sshBuilder{dir: t.TempDir(), port: freePort(t)}
	b.clientKey = filepath.Join(b.dir, "client_key")
	// Not under /tmp: Nix 2.34 refuses a store whose path has a
	// world-writable ancestor ("Path "/tmp" is world-writable").
	storeParent, err := os.MkdirTemp("/var/lib", "crff-test-builder-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(storeParent) })
	b.storeRoot = filepath.Join(storeParent, "builder-store")
	b.wrapper = filepath.Join(b.dir, "builder")
	hostKey := filepath.Join(b.dir, "host_key")
	for _, k := range []string{hostKey, b.clientKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	b.hostKeyPub = base64.StdEncoding.EncodeToString(pub)
	clientPub, err := os.ReadFile(b.clientKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(b.dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("authorized_keys", string(clientPub), 0o600)
	// Nix 2.8 passes no client options to an ssh-ng builder: the builder's
	// settings are its own, here in the program the login runs.
	write("builder", "#!/bin/sh\nexec /usr/bin/nix-daemon \"$@\" --option sandbox true --option substituters ''\n", 0o755)
	config := write("sshd_config", strings.Join([]string{
		"ListenAddress 127.0.0.1",
		"Port " + b.port,
		"HostKey " + hostKey,
		"AuthorizedKeysFile " + filepath.Join(b.dir, "authorized_keys"),
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		"PidFile " + filepath.Join(b.dir, "sshd.pid"),
	}, "\n")+"\n", 0o600)
	var log bytes.Buffer
	cmd := exec.Command(sshd, "-D", "-e", "-f", config)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Wait for the port. A hang guard, not a speed bound: sshd starts in
	// milliseconds, and one that has not listened after 60 s never will.
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+b.port)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd hung: not listening after 60 s (a hang guard): %v\n%s", err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return b
}

func (b *sshBuilder) uri() string {
	return "ssh-ng://root@127.0.0.1?remote-store=local?root=" + b.storeRoot + "&remote-program=" + b.wrapper
}

// storeURI is the builder as a store (--store): the key and host key,
// which a --builders line gives in its own fields, as settings.
func (b *sshBuilder) storeURI() string {
	return b.uri() + "&ssh-key=" + b.clientKey + "&base64-ssh-public-host-key=" + b.hostKeyPub
}

// builders is the --builders line: URI, system, key, jobs, speed,
// features, mandatory features, and the host's public key.
func (b *sshBuilder) builders(system string) string {
	return strings.Join([]string{b.uri(), system, b.clientKey, "2", "1", "-", "-", b.hostKeyPub}, " ")
}

// TestRemoteBuilder: with -j 0 (nothing local) the CLI builds the whole
// sample on an ssh-ng builder with a store of its own; every derivation
// (unpack, detect, aggregate, index) is built there, the fetches are the
// archives the CLI added to the store, and the results are the golden files.
func TestRemoteBuilder(t *testing.T) {
	requireNix(t)
	b := startSSHBuilder(t)
	// A detector no other test used (trailing bytes after the ELF image),
	// so that every derivation is new to both stores.
	det := newDetector(t)
	system := strings.Trim(mustNix(t, "nix-instantiate", "--eval", "-E", "builtins.currentSystem"), `"`)
	dir := copySample(t)
	index := filepath.Join(t.TempDir(), "index.json")
	cmd := exec.Command(programBinary(t), "process-manifests", "--detector-program", det, "--aggregate-program", aggregateBinary(t), "--nix-lib", filepath.Join(repoRoot(), "nix"),
		"--nix-option", "substituters=", "--redist-name", "sample", "--index", index,
		// Unpinned: a pinned unpack's path depends on its tree alone, and
		// the sample's trees are in the local store from other tests.
		"--pin-unpacked=false",
		"--remote-only", "--builders", b.builders(system), "file://"+dir, dir)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NIX_SSHOPTS=-p "+b.port+" -F /dev/null -o IdentitiesOnly=yes")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("process-manifests on the builder: %v\n%s", err, stderr.String())
	}
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
	}
	diffPaths(t, filepath.Join(golden, "index.json"), index)

	// Where was each derivation built? The CLI's event lines (stderr is
	// not a terminal) end with " on URI" for a remote build; no line
	// without it may name a build (the fetches are the archives the CLI
	// added to the store: never built).
	remote := 0
	for _, line := range builtDerivations(stderr.String()) {
		if i := strings.LastIndex(line, " on "); i >= 0 && sameStoreURI(line[i+len(" on "):], b.uri()) {
			remote++
			t.Log(line) // Nix's word (its build activity's machine) on where it built
		} else {
			t.Errorf("built locally: %s", line)
		}
	}
	// Every derivation that runs this run's detector or builds on what it
	// built (unpacks, detections, aggregates, the index: the referrers of
	// the detector's store path, unique to this test) was built there, once, and its output is in the
	// builder's store.
	detPath := strings.TrimSpace(mustNix(t, "nix-store", "--add", det))
	want, pinned := 0, 0
	for _, drv := range strings.Fields(mustNix(t, "nix-store", "-q", "--referrers-closure", detPath)) {
		if !strings.HasSuffix(drv, ".drv") {
			continue
		}
		want++
		if fixedOutput(t, drv) {
			pinned++
		}
		for _, out := range strings.Fields(mustNix(t, "nix-store", "-q", "--outputs", drv)) {
			if _, err := os.Stat(filepath.Join(b.storeRoot, out)); err != nil {
				t.Errorf("%s: output %s is not in the builder's store", drv, out)
			}
		}
	}
	// A pinned unpack (fixed-output: its path is its NAR hash's, whatever
	// the program) that another run already made is valid here, and not
	// built again: all the others were built there.
	if want < 20 || remote > want || remote < want-pinned {
		t.Errorf("%d derivations built on the builder, want the %d that run the program (of which %d pinned unpacks may be valid already)", remote, want, pinned)
	}
}

// TestRemoteStore: process-manifests --store ssh-ng://… builds the sample
// in the builder's store (evaluation local) and writes the golden files;
// the local store afterwards holds none of the run's archives, unpacked
// trees, detections or aggregates: only the derivations were written
// locally, and the result files were read back.
func TestRemoteStore(t *testing.T) {
	requireNix(t)
	b := startSSHBuilder(t)
	// A detector and archives no other test used, so that nothing of the
	// run can be in the local store from elsewhere.
	det := newDetector(t)
	dir := copySample(t)
	// The sample's archives are in the local store from other tests; this
	// one (demo_src's source, the only entry of its package) is new, and
	// must reach the builder's store without passing through the local one.
	sum := useNewSourceArchive(t, dir, "remote-store", false)
	index := filepath.Join(t.TempDir(), "index.json")
	cmd := exec.Command(programBinary(t), "process-manifests", "--detector-program", det, "--aggregate-program", aggregateBinary(t), "--nix-lib", filepath.Join(repoRoot(), "nix"),
		"--nix-option", "substituters=", "--redist-name", "sample", "--index", index,
		"--store", b.storeURI(), "file://"+dir, dir)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NIX_SSHOPTS=-p "+b.port+" -F /dev/null -o IdentitiesOnly=yes")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("process-manifests --store: %v\n%s", err, stderr.String())
	}
	t.Logf("stderr:\n%s", stderr.String())
	checkResultsReadBack(t, dir, index, sum, stdout.String())
	// The derivations that run this detector or build on what it built
	// (unpacks, detections, aggregates, index) and the fetches they need: every output is in the
	// builder's store and none in the local one.
	outputs := checkOutputsOnlyRemote(t, b.storeRoot, detectorDerivations(t, det))
	// 10 archives: 10 fetches, unpacks and detections, 2 aggregates, 1 index.
	if outputs < 33 {
		t.Errorf("%d outputs checked, want at least 33 (the sample's)", outputs)
	}
}

// checkResultsReadBack: the remote run wrote the golden feature files
// and the index with the new archive's sha256 (sum), and printed the
// aggregate directories, copies read by the other commands.
func checkResultsReadBack(t *testing.T, dir, index, sum, stdout string) {
	t.Helper()
	// The features do not depend on demo_src's contents (a source archive
	// is left out of the legacy file); the index carries its sha256.
	golden := filepath.Join(repoRoot(), "tests", "golden", "sample")
	for _, v := range []string{"1.0.0", "2.0.0"} {
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(dir, "feature_"+v+".json"))
	}
	if got, err := os.ReadFile(index); err != nil || !bytes.Contains(got, []byte(sum)) {
		t.Errorf("index %s lacks the new archive's sha256 (%v)", index, err)
	}
	// The aggregate directories come back as copies (the local store gets
	// none of the run's outputs), printed and read by the other commands.
	for _, v := range []string{"1.0.0", "2.0.0"} {
		agg := filepath.Join(dir, "aggregate_"+v)
		if fi, err := os.Lstat(agg); err != nil || !fi.IsDir() || !strings.Contains(stdout, agg+"\n") {
			t.Errorf("%s: not a directory, or not printed (%v); stdout:\n%s", agg, err, stdout)
			continue
		}
		diffPaths(t, filepath.Join(golden, v, "feature_"+v+".json"), filepath.Join(agg, "feature_"+v+".json"))
	}
	// 1.0.0 has none of the new archive.
	diffPaths(t, filepath.Join(golden, "1.0.0", "detail.json"), filepath.Join(dir, "aggregate_1.0.0", "detail.json"))
	if code, _, stderr := runProgram(t, "print-buildredist", dir); code != 0 {
		t.Errorf("print-buildredist %s: exit %d\n%s", dir, code, stderr)
	}
}

// detectorDerivations are the derivations that run the detector det or
// build on what it built, and every derivation they need.
func detectorDerivations(t *testing.T, det string) map[string]bool {
	t.Helper()
	detPath := strings.TrimSpace(mustNix(t, "nix-store", "--add", det))
	drvs := map[string]bool{}
	for _, drv := range strings.Fields(mustNix(t, "nix-store", "-q", "--referrers-closure", detPath)) {
		if !strings.HasSuffix(drv, ".drv") {
			continue
		}
		drvs[drv] = true
		for _, d := range strings.Fields(mustNix(t, "nix-store", "-qR", drv)) {
			if strings.HasSuffix(d, ".drv") {
				drvs[d] = true
			}
		}
	}
	return drvs
}

// checkOutputsOnlyRemote: every output of drvs is in the builder's store
// (under storeRoot) and, but a fixed-output one another run may have
// made, not in the local one; it returns how many outputs it checked.
func checkOutputsOnlyRemote(t *testing.T, storeRoot string, drvs map[string]bool) int {
	t.Helper()
	outputs := 0
	for drv := range drvs {
		for _, out := range strings.Fields(mustNix(t, "nix-store", "-q", "--outputs", drv)) {
			outputs++
			if _, err := os.Lstat(filepath.Join(storeRoot, out)); err != nil {
				t.Errorf("%s: output %s is not in the builder's store", drv, out)
			}
			_, err := os.Lstat(out)
			// A fetch's or a pinned unpack's output (fixed-output: the
			// same path whoever makes it) may be there from another run,
			// but not this run's own archive's.
			if err == nil && (!isFetch(drv) && !fixedOutput(t, drv) || strings.Contains(drv, "-remote-store")) {
				t.Errorf("%s: output %s is in the local store", drv, out)
			}
		}
	}
	return outputs
}

// isFetch tells an archive's fetch derivation by its name.
// fixedOutput tells a fixed-output derivation (a fetch, a pinned
// unpack) by its outputHash.
func fixedOutput(t *testing.T, drv string) bool {
	t.Helper()
	out, err := exec.Command("nix-store", "-q", "--binding", "outputHash", drv).Output()
	return err == nil && strings.TrimSpace(string(out)) != ""
}

func isFetch(drv string) bool {
	for _, ext := range []string{".tar.xz.drv", ".tar.gz.drv", ".zip.drv"} {
		if strings.HasSuffix(drv, ext) {
			return true
		}
	}
	return false
}

// sameStoreURI compares two store URIs as Nix means them: scheme, user,
// host and path, and the settings of the query, in any order and escaped
// or not (Nix 2.26 and later print a machine's URI with its settings
// sorted and escaped: remote-store=local?root%3D...).
func sameStoreURI(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return false
	}
	qa, errA := url.ParseQuery(ua.RawQuery)
	qb, errB := url.ParseQuery(ub.RawQuery)
	if errA != nil || errB != nil {
		return false
	}
	ua.RawQuery, ub.RawQuery = "", ""
	return ua.String() == ub.String() && maps.EqualFunc(qa, qb, func(x, y []string) bool {
		return strings.Join(x, "\x00") == strings.Join(y, "\x00")
	})
}

func TestSameStoreURI(t *testing.T) {
	const uri = "ssh-ng://root@127.0.0.1?remote-store=local?root=/tmp/b/store&remote-program=/tmp/b/builder"
	for _, same := range []string{
		uri,
		"ssh-ng://root@127.0.0.1?remote-program=/tmp/b/builder&remote-store=local?root%3D/tmp/b/store",
	} {
		if !sameStoreURI(same, uri) {
			t.Errorf("%s: not the same as %s", same, uri)
		}
	}
	for _, other := range []string{
		"ssh-ng://root@127.0.0.2?remote-program=/tmp/b/builder&remote-store=local?root%3D/tmp/b/store",
		"ssh://root@127.0.0.1?remote-program=/tmp/b/builder&remote-store=local?root%3D/tmp/b/store",
		"ssh-ng://root@127.0.0.1?remote-program=/tmp/b/builder&remote-store=local?root%3D/tmp/c/store",
		"ssh-ng://root@127.0.0.1?remote-program=/tmp/b/builder",
		"ssh-ng://root@127.0.0.1?remote-program=/tmp/b/builder&remote-store=local?root%3D/tmp/b/store&x=1",
	} {
		if sameStoreURI(other, uri) {
			t.Errorf("%s: the same as %s", other, uri)
		}
	}
}
