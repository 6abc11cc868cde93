package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/atomicfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// UnpackedHashesFile is the file, beside a directory's manifests, that
// records the NAR hash of each archive's unpacked tree. nix/pipeline.nix
// then unpacks a recorded archive with a fixed-output derivation, whose
// store path depends on the tree and the archive's sha256 alone
// (docs/nixpkgs.md; what a record is trusted for: docs/safety.md).
const UnpackedHashesFile = "unpacked-hashes.json"

// UnpackedHashesFormat is the format this program writes: trees keyed by
// the archive's sha256. Format 1 (no "format" key; "archives" keyed by
// relative_path, each with its sha256) is read and rewritten in it.
const UnpackedHashesFormat = 2

// UnpackedHashes is the content of an unpacked-hashes.json: the recorded
// tree of each archive, by the archive's sha256 (the manifest's).
type UnpackedHashes struct {
	Format int                     `json:"format"`
	Trees  map[string]UnpackedTree `json:"trees"`
	// Migrated: the file was of format 1; Write rewrites it.
	Migrated bool `json:"-"`
}

// UnpackedTree is one archive's record: its unpacked tree's NAR hash, in
// SRI form, and the relative_path it was recorded under, for the people
// who review the file (a record holds for the archive of its sha256,
// whatever its name).
type UnpackedTree struct {
	NarHash      string `json:"narHash"`
	RelativePath string `json:"relativePath"`
}

// NarHashSRI is the one spelling of a NAR hash the file takes: the SRI
// form detect records and Nix's outputHash reads. Its 43rd character
// carries 4 bits of the hash and 2 unused ones, which must be zero: Nix
// reads "...B=" as the same hash as "...A=", while the checks compare
// strings, so a spelling with those bits set would be refused as a
// mismatch that looks like tampering instead of as a misspelling.
var NarHashSRI = regexp.MustCompile(`^sha256-[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$`)

// formatOne is an unpacked-hashes.json of format 1.
type formatOne struct {
	Archives map[string]struct {
		SHA256  string `json:"sha256"`
		NarHash string `json:"narHash"`
	} `json:"archives"`
}

// ReadUnpackedHashes reads an unpacked-hashes.json; a missing file is an
// empty record (a first run). It must be a regular file of at most
// inputfile.MaxRecord bytes. A file of format 1 is converted (Migrated).
func ReadUnpackedHashes(path string) (*UnpackedHashes, error) {
	data, err := inputfile.Read(path, inputfile.MaxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return &UnpackedHashes{Format: UnpackedHashesFormat, Trees: map[string]UnpackedTree{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unpacked-hash record: %w", err)
	}
	if err := jsoncheck.Check(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var probe struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var h *UnpackedHashes
	switch {
	case probe.Format == nil:
		h, err = readFormatOne(path, data)
	case *probe.Format == UnpackedHashesFormat:
		h = &UnpackedHashes{}
		err = decodeClosed(data, h)
	default:
		return nil, fmt.Errorf("%s: format %d; this program reads formats 1 and %d", path, *probe.Format, UnpackedHashesFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if h.Trees == nil {
		return nil, fmt.Errorf("%s: no trees object", path)
	}
	return h, h.check(path)
}

// decodeClosed decodes as the schema says: a misspelt key is an error,
// not a record silently ignored.
func decodeClosed(data []byte, v any) error {
	if err := jsoncheck.Check(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// readFormatOne converts a record of format 1 (by relative_path).
func readFormatOne(path string, data []byte) (*UnpackedHashes, error) {
	var old formatOne
	if err := decodeClosed(data, &old); err != nil {
		return nil, err
	}
	if old.Archives == nil {
		return nil, errors.New("no archives object (format 1) and no format key")
	}
	h := &UnpackedHashes{Format: UnpackedHashesFormat, Trees: map[string]UnpackedTree{}, Migrated: true}
	for _, rel := range sortedKeys(old.Archives) {
		r := old.Archives[rel]
		if !SHA256Hex.MatchString(r.SHA256) {
			return nil, fmt.Errorf("archive %s: sha256 %q is not 64 lowercase hex digits", rel, r.SHA256)
		}
		if prev, ok := h.Trees[r.SHA256]; ok && prev.NarHash != r.NarHash {
			return nil, fmt.Errorf("archives %s and %s: one sha256, two NAR hashes", prev.RelativePath, rel)
		}
		if _, ok := h.Trees[r.SHA256]; !ok {
			h.Trees[r.SHA256] = UnpackedTree{NarHash: r.NarHash, RelativePath: rel}
		}
	}
	return h, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// check validates every record, naming the first bad one.
func (h *UnpackedHashes) check(path string) error {
	for _, sha := range sortedKeys(h.Trees) {
		r := h.Trees[sha]
		switch {
		case !SHA256Hex.MatchString(sha):
			return fmt.Errorf("%s: tree %q: not an archive's sha256 (64 lowercase hex digits)", path, sha)
		case !SafeRelativePath.MatchString(r.RelativePath):
			return fmt.Errorf("%s: tree %s: relativePath %q is not a safe relative_path", path, sha, r.RelativePath)
		case !NarHashSRI.MatchString(r.NarHash):
			return fmt.Errorf("%s: tree %s (%s): narHash %q is not sha256-<base64> as Nix spells it (43 characters, the unused bits of the last zero, then =)", path, sha, r.RelativePath, r.NarHash)
		}
	}
	return nil
}

// Lookup is the recorded NAR hash of the archive of this sha256, or "".
func (h *UnpackedHashes) Lookup(sha256 string) string {
	return h.Trees[sha256].NarHash
}

// Record sets an archive's record and says whether it changed.
func (h *UnpackedHashes) Record(relativePath, sha256, narHash string) (bool, error) {
	if !NarHashSRI.MatchString(narHash) {
		return false, fmt.Errorf("archive %s: narHash %q is not sha256-<base64> as Nix spells it (43 characters, the unused bits of the last zero, then =)", relativePath, narHash)
	}
	if r, ok := h.Trees[sha256]; ok && r.NarHash == narHash {
		return false, nil
	}
	h.Trees[sha256] = UnpackedTree{NarHash: narHash, RelativePath: relativePath}
	return true, nil
}

// Write writes the record to path (canonical JSON, keys sorted), unless
// the file holds it already.
func (h *UnpackedHashes) Write(path string) error {
	h.Format = UnpackedHashesFormat
	data, err := features.Encode(h)
	if err != nil {
		return err
	}
	if _, err = atomicfile.WriteIfChanged(path, data); err != nil {
		return err
	}
	h.Migrated = false
	return nil
}
