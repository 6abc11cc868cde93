package nixpipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// pathInfoNarHash is the narHash of path in the output of `nix path-info
// --json path`, in either of its shapes: a list of objects with a "path"
// field up to Nix 2.18, an object keyed by store path from 2.19 on.
func pathInfoNarHash(data []byte, path string) (string, error) {
	type info struct {
		Path    string `json:"path"`
		NarHash string `json:"narHash"`
	}
	var list []info
	if err := json.Unmarshal(data, &list); err == nil {
		for _, i := range list {
			if i.Path == path {
				return i.NarHash, nil
			}
		}
		return "", fmt.Errorf("nix path-info --json: no %s in the list", path)
	}
	var byPath map[string]*info
	if err := json.Unmarshal(data, &byPath); err != nil {
		return "", fmt.Errorf("nix path-info --json: neither a list nor an object of store paths: %w", err)
	}
	i, ok := byPath[path]
	if !ok || i == nil {
		return "", fmt.Errorf("nix path-info --json: no valid %s among the keys", path)
	}
	return i.NarHash, nil
}

func TestPathInfoNarHash(t *testing.T) {
	const p = "/nix/store/00000000000000000000000000000000-unpacked"
	const h = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	for name, doc := range map[string]string{
		"Nix 2.8 to 2.18: a list":    `[{"path":"` + p + `","narHash":"` + h + `","narSize":120}]`,
		"Nix 2.19 on: keyed by path": `{"` + p + `":{"narHash":"` + h + `","narSize":120}}`,
	} {
		got, err := pathInfoNarHash([]byte(doc), p)
		if err != nil || got != h {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, h)
		}
	}
	for name, doc := range map[string]string{
		"another path in the list": `[{"path":"/nix/store/1-other","narHash":"` + h + `"}]`,
		"another path as key":      `{"/nix/store/1-other":{"narHash":"` + h + `"}}`,
		"invalid path (null)":      `{"` + p + `":null}`,
		"not JSON":                 `sha256-...`,
	} {
		if got, err := pathInfoNarHash([]byte(doc), p); err == nil || !strings.Contains(err.Error(), "path-info") {
			t.Errorf("%s: got %q, %v; want an error naming path-info", name, got, err)
		}
	}
}
