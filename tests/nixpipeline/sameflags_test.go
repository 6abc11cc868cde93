package nixpipeline

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestCLIDetectAndUnpackTakeTheDetectorsFlags: the CLI's detect and
// unpack take the detector's flags, with the same help (they are defined
// once, facts.BindFlags and unpack.BindFlags); the CLI's detect adds only
// the buildRedist rules' --variant and --globstar.
func TestCLIDetectAndUnpackTakeTheDetectorsFlags(t *testing.T) {
	for _, c := range []struct {
		command string
		extra   []string
	}{
		{"detect", []string{"--globstar", "--variant"}},
		{"unpack", nil},
	} {
		detector := flagLines(t, detectorBinary(t), c.command, "Usage of "+c.command+":")
		cli := flagLines(t, programBinary(t), c.command, "Flags:")
		var cliOwn []string
		for _, l := range cli {
			name := strings.Fields(l)[0]
			if name == "-h," || slices.Contains(c.extra, name) {
				continue
			}
			cliOwn = append(cliOwn, l)
		}
		if !slices.Equal(cliOwn, detector) {
			t.Errorf("%s: the CLI's flags\n  %s\nthe detector's\n  %s", c.command, strings.Join(cliOwn, "\n  "), strings.Join(detector, "\n  "))
		}
		if len(detector) < 4 {
			t.Errorf("%s: the detector's help lists %d flags: %q", c.command, len(detector), detector)
		}
	}
}

// flagLines are the flag lines of `bin command --help` after the line
// header and before the next blank line, spaces collapsed.
func flagLines(t *testing.T, bin, command, header string) []string {
	t.Helper()
	out, _ := exec.Command(bin, command, "--help").CombinedOutput()
	_, rest, ok := strings.Cut(string(out), header+"\n")
	if !ok {
		t.Fatalf("%s %s --help has no %q:\n%s", bin, command, header, out)
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.TrimSpace(l) == "" {
			break
		}
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return lines
}
