package aggregate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/builderattrs"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// The commands below are those of cuda-redist-aggregate and their
// namesakes of the CLI (which builds the same derivations when the
// aggregate builder is not installed beside it): one code for both, so
// the two programs build the same outputs.

// BuildFromAttrs is the aggregate command: Build with the structured
// attributes of attrsFile ("": $NIX_BUILD_TOP/.attrs.json).
func BuildFromAttrs(attrsFile string, log *slog.Logger) error {
	var a Attrs
	if _, err := builderattrs.Load(attrsFile, &a); err != nil {
		return err
	}
	return Build(a, log)
}

// MergeIndex is the merge-index command: it merges the index files paths
// and writes the result to out (atomically), or to stdout when out is "".
// Without paths it is the merged-index derivation's builder: the files
// and the output are those of the structured attributes of attrsFile
// ("": $NIX_BUILD_TOP/.attrs.json).
func MergeIndex(attrsFile string, paths []string, out string, stdout io.Writer) error {
	if len(paths) == 0 {
		var a MergeAttrs
		if _, err := builderattrs.Load(attrsFile, &a); err != nil {
			return err
		}
		o, err := a.Out()
		if err != nil {
			return err
		}
		paths, out = a.Indexes, o
	}
	data, err := MergeIndexFiles(paths)
	if err != nil {
		return err
	}
	return atomicfile.WriteOrStdout(out, data, stdout)
}

// BuildRedistFile is the buildRedist.json arg names: arg itself, or the
// one in it when arg is a directory (an aggregate's output).
func BuildRedistFile(arg string) string {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return filepath.Join(arg, "buildRedist.json")
	}
	return arg
}

// ReadDecls reads a buildRedist.json: package → its declarations. A key
// no declaration has is an error, as is anything but one JSON object.
func ReadDecls(path string) (map[string]features.BuildRedistDecl, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := jsoncheck.Check(data); err != nil {
		return nil, jsoncheck.Place(path, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var decls map[string]features.BuildRedistDecl
	if err := dec.Decode(&decls); err != nil {
		return nil, fmt.Errorf("%w (want a buildRedist.json)", jsoncheck.Place(path, data, err))
	}
	if decls == nil {
		return nil, fmt.Errorf("%s: null, want a buildRedist.json (an object)", path)
	}
	return decls, nil
}

// WriteDecls writes decls as buildRedist.json is written (canonical JSON)
// to out (atomically), or to stdout when out is "": what
// print-buildredist --json prints, and the buildRedist derivation holds.
func WriteDecls(decls map[string]features.BuildRedistDecl, out string, stdout io.Writer) error {
	data, err := features.Encode(decls)
	if err != nil {
		return err
	}
	return atomicfile.WriteOrStdout(out, data, stdout)
}
