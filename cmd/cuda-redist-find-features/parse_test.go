package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestOptionsAfterArguments: the failing examples, options after
// the positional arguments.
func TestOptionsAfterArguments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "features.json")
	code, stdout, stderr := runCLI("detect", filepath.Join("..", "..", "lib"), "--out", out)
	if code != exitOK || stdout != "" {
		t.Fatalf("detect DIR --out F: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), `"narHash"`) {
		t.Errorf("detect DIR --out F wrote %q (%v)", data, err)
	}

	srv := newRedistServer(t)
	dir := t.TempDir()
	code, stdout, stderr = runCLI("download-manifests", srv.URL+"/redist/", dir, "--max-version", "1.1.0")
	if code != exitOK {
		t.Fatalf("download-manifests URL DIR --max-version: exit %d: %s", code, stderr)
	}
	if got := strings.Fields(stdout); len(got) != 2 {
		t.Errorf("--max-version 1.1.0 after the arguments downloaded %q, want 1.0.0 and 1.1.0", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "redistrib_2.0.0.1.json")); err == nil {
		t.Errorf("--max-version after the arguments was ignored: 2.0.0.1 downloaded")
	}
}

// TestVersionFlags: the top level's --version prints the program's
// version; a manifest command's --version V is its filter.
func TestVersionFlags(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"--log-level", "INFO", "--version"}} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || !strings.HasPrefix(stdout, prog+" ") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	srv := newRedistServer(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI("download-manifests", srv.URL+"/redist/", dir, "--version", "1.1.0")
	if code != exitOK || strings.TrimSpace(stdout) != filepath.Join(dir, "redistrib_1.1.0.json") {
		t.Errorf("download-manifests --version 1.1.0: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	// Without its value, the subcommand's --version is a usage error, not
	// the program's version.
	code, stdout, stderr = runCLI("download-manifests", srv.URL+"/redist/", dir, "--version")
	if code != exitUsage || strings.HasPrefix(stdout, prog) || !strings.Contains(stderr, "flag needs an argument: --version") {
		t.Errorf("download-manifests --version (no value): exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestUsageErrorMessages: unknown flags, removed flags and wrong argument
// counts are usage errors (exit 2) that say what was expected.
func TestUsageErrorMessages(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"detect"}, "detect takes one DIR; none given"},
		{[]string{"detect", "a", "b", "--out", "f"}, `detect takes one DIR; given 2: "a" "b"`},
		{[]string{"unpack", "one"}, `unpack takes ARCHIVE and OUTDIR; given one: "one"`},
		{[]string{"download-manifests", "u"}, `download-manifests takes URL and MANIFEST_DIR; given one: "u"`},
		{[]string{"process-manifests", "u", "d", "e"}, `process-manifests takes URL and MANIFEST_DIR; given 3`},
		{[]string{"detect", ".", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"download-manifests", "--parallel", "u", "d"}, "unknown flag: --parallel"},
		{[]string{"process-manifests", "-j", "many", "u", "d"}, `invalid argument "many" for "-j, --max-jobs"`},
		{[]string{"unpack", "a", "b", "--max-depth"}, "flag needs an argument: --max-depth"},
		{[]string{"--log-level", "LOUD", "detect", "."}, `unknown log level "LOUD"`},
		{[]string{"detect", ".", "--log-level", "LOUD"}, `unknown log level "LOUD"`},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.wantErr) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, exitUsage, tc.wantErr)
		}
		if strings.Contains(stderr, "arguments,") || strings.Contains(stderr, "1 arguments") {
			t.Errorf("%v: %q", tc.args, stderr)
		}
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	tests := []struct {
		main     string
		settings map[string]string
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3"},
		{"(devel)", nil, "dev"},
		{"(devel)", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "false"}, "dev (0123456789ab)"},
		{"v1.2.3", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "true"}, "v1.2.3 (0123456789ab+dirty)"},
		{"v0.0.0-20261123105822-0123456789ab+dirty", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "true"}, "v0.0.0-20261123105822-0123456789ab+dirty"},
	}
	for _, tc := range tests {
		info := &debug.BuildInfo{Main: debug.Module{Version: tc.main}}
		for k, v := range tc.settings {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := versionFromBuildInfo(info); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.main, tc.settings, got, tc.want)
		}
	}
	// The link-time version wins.
	old := version
	version = "9.9.9"
	defer func() { version = old }()
	if code, stdout, _ := runCLI("--version"); code != exitOK || stdout != prog+" 9.9.9\n" {
		t.Errorf("-X main.version=9.9.9: %q", stdout)
	}
}
