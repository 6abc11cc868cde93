package main

import (
	"encoding/json"
	"fmt"
	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"os"
)

// writeResult writes data to stdout, or atomically to path: readers never
// see a half-written file, and a failed run leaves the old file in place.
func writeResult(e *env, path string, data []byte) error {
	if path == "" {
		_, err := e.stdout.Write(data)
		return err
	}
	return atomicfile.Write(path, data)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
