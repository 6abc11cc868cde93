package builderattrs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nix-community/go-nix/pkg/nixhash"

	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// AttrsPath finds the structured-attributes file. Nix 2.8 sets
// NIX_ATTRS_JSON_FILE to the path outside the sandbox, so inside it the
// file is looked up in NIX_BUILD_TOP first.
func AttrsPath() (string, error) {
	if top := os.Getenv("NIX_BUILD_TOP"); top != "" {
		p := filepath.Join(top, ".attrs.json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p := os.Getenv("NIX_ATTRS_JSON_FILE"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no structured attributes: not run by Nix with __structuredAttrs (pass --attrs FILE)")
}

// Load decodes the attributes file at path (or the one AttrsPath finds
// when path is "") into v.
func Load(path string, v any) (string, error) {
	if path == "" {
		var err error
		if path, err = AttrsPath(); err != nil {
			return "", err
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return path, fmt.Errorf("structured attributes: %w", err)
	}
	if err := jsoncheck.Unmarshal("structured attributes "+path, data, v); err != nil {
		return path, err
	}
	return path, nil
}

// Outputs is the part of the attributes that names the output paths.
type Outputs struct {
	Outputs map[string]string `json:"outputs"`
}

// Out returns the path of the "out" output.
func (o Outputs) Out() (string, error) {
	p := o.Outputs["out"]
	if p == "" {
		return "", errors.New("structured attributes name no \"out\" output")
	}
	return p, nil
}

// sha256Algo is the only algorithm of a NAR hash Nix records.
var sha256Algo = nixhash.SHA256

// NarHashOf returns the NAR hash Nix recorded for storePath, from the
// attributes file at attrsPath (or the one AttrsPath finds when it is "").
// Nix puts it there for a derivation that lists storePath in
// exportReferencesGraph: it hashed the path when it registered it, so a
// builder need not read hundreds of megabytes again to learn it.
func NarHashOf(attrsPath, storePath string) (string, error) {
	var attrs map[string]json.RawMessage
	attrsPath, err := Load(attrsPath, &attrs)
	if err != nil {
		return "", err
	}
	var graphs map[string]json.RawMessage
	if raw, ok := attrs["exportReferencesGraph"]; ok {
		if err := json.Unmarshal(raw, &graphs); err != nil {
			return "", fmt.Errorf("structured attributes %s: exportReferencesGraph: %w", attrsPath, err)
		}
	}
	want := filepath.Clean(storePath)
	for name := range graphs {
		var infos []struct {
			Path    string `json:"path"`
			NarHash string `json:"narHash"`
		}
		if err := json.Unmarshal(attrs[name], &infos); err != nil {
			return "", fmt.Errorf("structured attributes %s: %s: %w", attrsPath, name, err)
		}
		for _, info := range infos {
			if info.Path != want || info.NarHash == "" {
				continue
			}
			if _, err := nixhash.ParseAny(info.NarHash, &sha256Algo); err != nil {
				return "", fmt.Errorf("structured attributes %s: %s: narHash of %s: %q: %w", attrsPath, name, storePath, info.NarHash, err)
			}
			return info.NarHash, nil
		}
	}
	return "", fmt.Errorf("structured attributes %s: no NAR hash of %s (list it in the derivation's exportReferencesGraph)", attrsPath, storePath)
}
