// Command blocker stands in for the builders in the interruption tests
// (static, so process-manifests --detector-program and
// --aggregate-program take it): as the builder of
// the first derivation Nix starts it writes its process id into the
// directory set at link time (-X main.markerDir=DIR), the event the test
// waits for, then waits for ever, a build that is surely running when the
// test signals the run.
package main

import (
	"os"
	"path/filepath"
	"strconv"
	"time"
)

var markerDir string

func main() {
	pid := strconv.Itoa(os.Getpid())
	if err := os.WriteFile(filepath.Join(markerDir, pid), []byte(pid), 0o666); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	for {
		time.Sleep(time.Hour)
	}
}
