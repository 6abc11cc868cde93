package nixpipeline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// escape is a package file that tries to read, fetch or run something it
// may not; want is part of the ERROR check-nixpkgs must give it.
type escape struct {
	file, expr, want string
}

// secrets lays out what a package file must never reach: a secret file
// (also as secret.nix, in a tarball and in a git repository), a file whose
// name is secret, the secret in the Nix store, and a secret environment
// variable and NIX_PATH entry. It returns the secret strings, their
// directory and the escapes that try to read them.
func secrets(t *testing.T) ([]string, string, []escape) {
	t.Helper()
	random := func(prefix string) string {
		b := make([]byte, 8)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		return prefix + hex.EncodeToString(b)
	}
	content, name, envValue := random("crff-secret-"), random("crff-secret-name-"), random("crff-secret-env-")
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	secret := write("secret", content)
	secretNix := write("secret.nix", fmt.Sprintf("%q\n", content))
	write(name, "")
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "src/secret", Mode: 0o644, Size: int64(len(content))}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(content))
	tw.Close()
	gz.Close()
	tarball := write("secret.tar.gz", tgz.String())
	repo := filepath.Join(dir, "repo")
	write("repo/secret", content)
	for _, args := range [][]string{{"init", "-q"}, {"add", "secret"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "s"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("nix-store", "--add", secret).Output()
	if err != nil {
		t.Fatalf("nix-store --add: %v", err)
	}
	stored := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("nix-store", "--delete", stored).Run() })
	// A flake beside the secret, and a user configuration that turns
	// flakes on, as a maintainer's may: getFlake is not checked by
	// restricted mode, so it must be refused on its own.
	flake := filepath.Dir(write("flake/flake.nix", "{ outputs = _: { }; }\n"))
	write("flake/secret", content)
	t.Setenv("NIX_USER_CONF_FILES", write("nix.conf", "experimental-features = nix-command flakes fetch-closure\n"))
	t.Setenv("CRFF_TEST_SECRET", envValue)
	t.Setenv("NIX_PATH", "nixpkgs="+dir)
	forbidden := "forbidden in restricted mode"
	return []string{content, name, envValue}, dir, []escape{
		{"read_file.nix", fmt.Sprintf(`builtins.readFile (/. + %q)`, secret), forbidden},
		{"read_file_dotdot.nix", fmt.Sprintf(`builtins.readFile (./. + "/../../../../../../../../..%s")`, secret), forbidden},
		{"import_secret.nix", fmt.Sprintf(`import (/. + %q)`, secretNix), forbidden},
		{"import_etc.nix", `toString (import /etc/passwd)`, forbidden},
		{"get_env.nix", `builtins.getEnv "CRFF_TEST_SECRET"`, "may not read the environment"},
		{"get_env_global.nix", `__getEnv "CRFF_TEST_SECRET"`, "may not read the environment"},
		{"get_env_nested.nix", `builtins.builtins.getEnv "CRFF_TEST_SECRET"`, "may not read the environment"},
		{"get_env_with.nix", `with builtins; getEnv "CRFF_TEST_SECRET"`, "may not read the environment"},
		{"get_env_tryeval.nix", `(builtins.tryEval (builtins.getEnv "CRFF_TEST_SECRET")).value`, "may not read the environment"},
		{"get_env_import.nix", `import ./helper_getenv.nix`, "may not read the environment"},
		{"get_env_scoped.nix", `scopedImport { } ./helper_getenv.nix`, "may not read the environment"},
		{"current_time.nix", `toString builtins.currentTime`, "may not read the time"},
		{"current_system.nix", `builtins.currentSystem`, "may not read the evaluating machine's system"},
		{"fetchurl.nix", fmt.Sprintf(`builtins.readFile (builtins.fetchurl "file://%s")`, secret), "may not fetch"},
		{"fetch_tarball.nix", fmt.Sprintf(`builtins.readFile "${builtins.fetchTarball "file://%s"}/secret"`, tarball), "may not fetch"},
		{"fetch_git.nix", fmt.Sprintf(`builtins.readFile "${builtins.fetchGit %q}/secret"`, repo), "may not fetch"},
		{"get_flake.nix", fmt.Sprintf(`builtins.readFile ((builtins.getFlake "path:%s").outPath + "/secret")`, flake), "may not fetch"},
		{"fetch_closure.nix", fmt.Sprintf(`builtins.readFile (builtins.fetchClosure { fromStore = "file://%s"; fromPath = %q; })`, dir, stored), "may not fetch"},
		{"exec.nix", fmt.Sprintf(`builtins.exec [ "cat" %q ]`, secretNix), "may not run programs"},
		{"ifd.nix", fmt.Sprintf(`import (derivation { name = "ifd"; system = "x86_64-linux"; builder = "/bin/sh"; args = [ "-c" "cp %s $out" ]; })`, secretNix), "is not valid"},
		// Nix 2.26 and 2.34 (not 2.8) list a parent of an allowed path (its
		// entries on the way to one): the stand-in refuses it.
		{"read_dir_root.nix", `builtins.concatStringsSep "," (builtins.attrNames (builtins.readDir /.))`, "may not look outside"},
		{"read_dir_root_global.nix", `builtins.concatStringsSep "," (builtins.attrNames (__readDir /tmp))`, "may not look outside"},
		{"read_dir.nix", fmt.Sprintf(`builtins.concatStringsSep "," (builtins.attrNames (builtins.readDir (/. + %q)))`, dir), "may not look outside"},
		{"path_exists.nix", fmt.Sprintf(`if builtins.pathExists (/. + %q) then "exists" else "absent"`, secret), "may not look outside"},
		{"nixpkgs_lookup.nix", `builtins.readFile <nixpkgs/secret>`, "may not look up <nixpkgs/secret>"},
		{"store_path.nix", fmt.Sprintf(`builtins.readFile (builtins.storePath %q)`, stored), "may not reach into the Nix store"},
		{"builtins_path.nix", fmt.Sprintf(`builtins.readFile (builtins.path { path = /. + %q; })`, secret), forbidden},
		{"symlink.nix", `import ./secret_link.nix`, forbidden},
	}
}

// A package file can read nothing but itself, its neighbours and lib/:
// each try to read a file elsewhere, the environment, the time, the store,
// to fetch, to run a program or to import from a derivation is an ERROR
// naming the file, the secrets appear nowhere in the output, and the
// real-shaped files beside them check exactly as without them.
func TestCheckPackageFilesCannotEscape(t *testing.T) {
	requireNix(t)
	manifests, archives := cudaTree(t)
	dirs := []string{filepath.Join(manifests, "cuda"), filepath.Join(manifests, "cudnn")}
	secretValues, secretDir, escapes := secrets(t)
	if testenv.NixAtLeast(t, 2, 14) {
		escapes = append(escapes, escape{"read_file_type.nix", `builtins.readFileType /tmp`, "may not look outside"})
	}

	files := map[string]string{"helper_getenv.nix": "builtins.getEnv \"CRFF_TEST_SECRET\"\n"}
	for _, e := range escapes {
		// The value, if it evaluates, becomes the file's own error: the
		// check must stop it before.
		files[e.file] = fmt.Sprintf("{ buildRedist }:\nlet\n  v = %s;\nin\nbuildRedist {\n  redistName = \"cuda\";\n  pname = %q;\n  outputs = throw \"escaped: ${v}\";\n}\n",
			e.expr, strings.TrimSuffix(e.file, ".nix"))
	}
	pkgs := packagesDir(t, withFiles(realShapes, files))
	if err := os.Symlink(filepath.Join(secretDir, "secret.nix"), filepath.Join(pkgs, "secret_link.nix")); err != nil {
		t.Fatal(err)
	}

	before := storeEntries(t)
	// The whole check, archives detected: the real-shaped files are
	// clean (TestCheckRealShapesClean), so the escapes' ERRORs are all.
	code, lines, stderr := runCheck(t, archives, append([]string{"--hints=false", pkgs}, dirs...)...)
	for _, s := range secretValues {
		if strings.Contains(strings.Join(lines, "\n")+stderr, s) {
			t.Errorf("the secret %s is in the output:\n%s\nstderr:\n%s", s, strings.Join(lines, "\n"), stderr)
		}
	}
	// Nor was it fetched or copied into the store (other tests running
	// at the same time may add paths; none holds this run's secret).
	for name := range storeEntries(t) {
		if !before[name] {
			checkSecretNotIn(t, filepath.Join("/nix/store", name), secretValues[0])
		}
	}
	// The link itself is named and left unread (symlink.nix, which
	// imports it, is an ERROR).
	linkWarning := "WARN  secret_link.nix: a symbolic link out of the packages directory (to " + filepath.Join(secretDir, "secret.nix") + "); not read, not checked"
	byFile := evalErrorsBesides(t, lines, linkWarning)
	got := checkEscapesStopped(t, escapes, byFile)
	var want []string
	for _, e := range escapes {
		want = append(want, e.file)
	}
	sort.Strings(want)
	if code != 1 || !cmp.Equal(want, got) {
		t.Errorf("exit %d (want 1); files with an ERROR (-want +got):\n%s\nstderr:\n%s", code, cmp.Diff(want, got), stderr)
	}
}

// checkSecretNotIn: no small file under the store path p holds secret;
// a path that does is deleted.
func checkSecretNotIn(t *testing.T, p, secret string) {
	t.Helper()
	filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			// Gone mid-walk (another test's garbage collection):
			// nothing of this run's can be in it.
			return nil
		}
		// The secret is a few bytes; other tests' archives are not read.
		if info, ierr := d.Info(); ierr == nil && d.Type().IsRegular() && info.Size() < 1<<16 {
			if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(secret)) {
				t.Errorf("the secret reached the store: %s", path)
				exec.Command("nix-store", "--delete", p).Run()
			}
		}
		return nil
	})
}

// evalErrorsBesides reads the check's lines: once the warning, and else
// only evaluation errors, by file.
func evalErrorsBesides(t *testing.T, lines []string, warning string) map[string]string {
	t.Helper()
	byFile := map[string]string{}
	warned := false
	for _, l := range lines {
		if l == warning && !warned {
			warned = true
			continue
		}
		file, msg, ok := strings.Cut(strings.TrimPrefix(l, "ERROR "), ": does not evaluate: ")
		if !strings.HasPrefix(l, "ERROR ") || !ok {
			t.Errorf("not an evaluation error: %s", l)
			continue
		}
		byFile[file] = msg
	}
	if !warned {
		t.Errorf("no %q", warning)
	}
	return byFile
}

// checkEscapesStopped: each escape's file has an ERROR saying its want,
// without its value escaped; it returns the files with an ERROR, sorted.
func checkEscapesStopped(t *testing.T, escapes []escape, byFile map[string]string) []string {
	t.Helper()
	for _, e := range escapes {
		msg, ok := byFile[e.file]
		t.Logf("%s: %s", e.file, msg)
		switch {
		case !ok:
			t.Errorf("%s (%s): no ERROR", e.file, e.expr)
		case strings.Contains(msg, "escaped:") || !strings.Contains(msg, e.want):
			t.Errorf("%s (%s): got %q, want an error saying %q", e.file, e.expr, msg, e.want)
		}
	}
	var got []string
	for f := range byFile {
		got = append(got, f)
	}
	sort.Strings(got)
	return got
}

// A file that runs past --eval-timeout or out of --eval-max-memory is an
// ERROR naming it, and the check goes on: the real-shaped file beside
// them is still checked (clean).
func TestCheckRunawayFiles(t *testing.T) {
	requireNix(t)
	manifests, _ := cudaTree(t)
	noArchives := filepath.Join(t.TempDir(), "no-archives")
	pkgs := packagesDir(t, map[string]string{
		"cuda_cudart.nix": realShapes["cuda_cudart.nix"],
		"huge.nix": `{ buildRedist }: buildRedist { redistName = "cuda"; pname = "huge";
  outputs = [ "out" ] ++ builtins.genList (x: "o") 1000000000; }`,
		"loop.nix": `{ buildRedist }: let n = builtins.foldl' (a: i: builtins.foldl' (b: j: b + 1) a (builtins.genList (x: x) 100000)) 0 (builtins.genList (x: x) 100000); in
buildRedist { redistName = "cuda"; pname = "loop"; outputs = [ "out" (toString n) ]; }`,
	})
	// --eval-timeout is the feature tested; the real-shaped file must
	// still evaluate, and huge.nix run out of memory, under it on a loaded
	// machine (each takes well under a second), so it is 10 s.
	code, lines, stderr := runCheck(t, noArchives, "--eval-only", "--hints=false", "--eval-timeout", "10s", "--eval-max-memory", "1GiB",
		pkgs, filepath.Join(manifests, "cuda"))
	want := []string{
		"ERROR huge.nix: does not evaluate: error: out of memory (memory bound 1 GiB)",
		"ERROR loop.nix: does not evaluate: error: evaluation stopped after 10s, its time bound",
	}
	if code != 1 || !cmp.Equal(want, lines) {
		t.Fatalf("exit %d (want 1), (-want +got):\n%s\nstderr:\n%s", code, cmp.Diff(want, lines), stderr)
	}
}

// storeEntries are the names in /nix/store.
func storeEntries(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir("/nix/store")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}
