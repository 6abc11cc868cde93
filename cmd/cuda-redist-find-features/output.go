package main

import (
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// writeResult writes data to stdout, or atomically to path: readers never
// see a half-written file, and a failed run leaves the old file in place.
func writeResult(e *env, path string, data []byte) error {
	return atomicfile.WriteOrStdout(path, data, e.stdout)
}

// writeTableOrJSON writes v as canonical JSON when asJSON, else the table
// that writeTable draws, to stdout or out.
func writeTableOrJSON(e *env, out string, asJSON bool, v any, writeTable func(*strings.Builder)) error {
	if err := e.interrupted(); err != nil {
		return err
	}
	if asJSON {
		data, err := features.Encode(v)
		if err != nil {
			return err
		}
		if err := writeResult(e, out, data); err != nil {
			return err
		}
		e.jsonWritten()
		return nil
	}
	var b strings.Builder
	writeTable(&b)
	return writeResult(e, out, []byte(b.String()))
}
