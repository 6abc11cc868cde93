// Command gensample regenerates the bundled sample (manifests and
// archives) in the directory given as its argument, by default sample/.
package main

import (
	"fmt"
	"os"

	"github.com/nix-cuda/cuda-redist-find-features/internal/sample"
)

func main() {
	dir := "sample"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	files, err := sample.Write(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensample:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(f)
	}
}
