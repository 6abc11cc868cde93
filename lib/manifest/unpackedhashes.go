package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// UnpackedHashesFile is the file, beside a directory's manifests, that
// records the NAR hash of each archive's unpacked tree. nix/pipeline.nix
// then unpacks a recorded archive with a fixed-output derivation, whose
// store path depends on the tree alone (docs/nixpkgs.md).
const UnpackedHashesFile = "unpacked-hashes.json"

// UnpackedHashes is the content of an unpacked-hashes.json: the recorded
// tree of each archive, by relative_path.
type UnpackedHashes struct {
	Archives map[string]UnpackedHash `json:"archives"`
}

// UnpackedHash is one archive's record: the archive's sha256 (a record
// holds for that archive only: a replaced one is unpacked as new) and its
// unpacked tree's NAR hash, in SRI form.
type UnpackedHash struct {
	SHA256  string `json:"sha256"`
	NarHash string `json:"narHash"`
}

// NarHashSRI is the one spelling of a NAR hash the file takes: the SRI
// form detect records and Nix's outputHash reads.
var NarHashSRI = regexp.MustCompile(`^sha256-[A-Za-z0-9+/]{43}=$`)

// ReadUnpackedHashes reads an unpacked-hashes.json; a missing file is an
// empty record (a first run).
func ReadUnpackedHashes(path string) (*UnpackedHashes, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &UnpackedHashes{Archives: map[string]UnpackedHash{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := jsoncheck.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Closed, as its schema says: a misspelt key is an error, not a
	// record silently ignored.
	var h UnpackedHashes
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if h.Archives == nil {
		return nil, fmt.Errorf("%s: no archives object", path)
	}
	keys := make([]string, 0, len(h.Archives))
	for k := range h.Archives {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := h.Archives[k]
		switch {
		case !SafeRelativePath.MatchString(k):
			return nil, fmt.Errorf("%s: archive %q: not a safe relative_path", path, k)
		case !sha256Hex.MatchString(r.SHA256):
			return nil, fmt.Errorf("%s: archive %s: sha256 %q is not 64 lowercase hex digits", path, k, r.SHA256)
		case !NarHashSRI.MatchString(r.NarHash):
			return nil, fmt.Errorf("%s: archive %s: narHash %q is not sha256-<base64>", path, k, r.NarHash)
		}
	}
	return &h, nil
}

// Lookup is the recorded NAR hash of the archive at relativePath with
// sha256, or "".
func (h *UnpackedHashes) Lookup(relativePath, sha256 string) string {
	r, ok := h.Archives[relativePath]
	if !ok || r.SHA256 != sha256 {
		return ""
	}
	return r.NarHash
}

// Record sets an archive's record and says whether it changed.
func (h *UnpackedHashes) Record(relativePath, sha256, narHash string) (bool, error) {
	if !NarHashSRI.MatchString(narHash) {
		return false, fmt.Errorf("archive %s: narHash %q is not sha256-<base64>", relativePath, narHash)
	}
	r := UnpackedHash{SHA256: sha256, NarHash: narHash}
	if h.Archives[relativePath] == r {
		return false, nil
	}
	h.Archives[relativePath] = r
	return true, nil
}

// Write writes the record to path (canonical JSON, keys sorted), unless
// the file holds it already.
func (h *UnpackedHashes) Write(path string) error {
	data, err := features.Encode(h)
	if err != nil {
		return err
	}
	_, err = atomicfile.WriteIfChanged(path, data)
	return err
}
