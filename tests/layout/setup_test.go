package layout_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// TestSetupInstallsWhatTheCommandNeeds: scripts/sample.sh installs the
// sample profile, which is Nix alone (no server, no browser); the test
// profile holds the rest, and the script leaves the ssh service
// disabled. install-deps.sh PROFILE --list prints a profile's packages
// without installing anything.
func TestSetupInstallsWhatTheCommandNeeds(t *testing.T) {
	root := testenv.RepoRoot()
	if _, err := exec.LookPath("bash"); err != nil {
		// The flake's go-unit-tests build has no bash.
		testenv.Unavailable(t, "no bash to run scripts/install-deps.sh (apt-get install bash)")
	}
	list := func(profile string) []string {
		out, err := exec.Command("bash", filepath.Join(root, "scripts", "install-deps.sh"), profile, "--list").Output()
		if err != nil {
			t.Fatalf("install-deps.sh %s --list: %v", profile, err)
		}
		return strings.Fields(string(out))
	}
	if got := list("sample"); !slices.Equal(got, []string{"nix-bin"}) {
		t.Errorf("sample profile: %v, want [nix-bin]", got)
	}
	test := list("test")
	for _, p := range []string{"nix-bin", "openssh-server", "chromium", "patchelf"} {
		if !slices.Contains(test, p) {
			t.Errorf("test profile lacks %s: %v", p, test)
		}
	}
	sample, err := os.ReadFile(filepath.Join(root, "scripts", "sample.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sample), "scripts/install-deps.sh sample\n") {
		t.Errorf("scripts/sample.sh does not install the sample profile")
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "install-deps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "deb-systemd-helper disable ssh.service") {
		t.Errorf("install-deps.sh leaves the ssh service enabled")
	}
}

// TestBuildByHandLeavesNoUntrackedFile: README's `go build -o crff` in the
// checkout writes a file git ignores.
func TestBuildByHandLeavesNoUntrackedFile(t *testing.T) {
	cmd := exec.Command("git", "check-ignore", "-q", "crff")
	cmd.Dir = testenv.RepoRoot()
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			testenv.Unavailable(t, "git: "+err.Error())
		}
		t.Errorf("crff (README's go build -o crff) is not ignored: an untracked file after the build")
	}
}
