package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

var manifestName = regexp.MustCompile(`^redistrib_([0-9][0-9.]*)\.json$`)

func main() {
	from := flag.String("from", "manifests", "directory of <redist>/redistrib_<version>.json")
	count := flag.Int("count", 185, "number of manifests to write")
	out := flag.String("out", "", "output directory (created; must not exist)")
	flag.Parse()
	if *out == "" || *count < 1 {
		fmt.Fprintln(os.Stderr, "usage: synthmanifests -from DIR -count N -out DIR")
		os.Exit(2)
	}
	archives, err := run(*from, *count, *out)
	if err != nil {
		slog.Error("synthmanifests", "err", err)
		os.Exit(1)
	}
	fmt.Printf("%d manifests, %d archives in %s\n", *count, archives, *out)
}

type source struct{ redist, version, path string }

func run(from string, count int, out string) (int, error) {
	sources, err := list(from)
	if err != nil {
		return 0, err
	}
	if len(sources) == 0 {
		return 0, fmt.Errorf("no redistrib_<version>.json under %s", from)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return 0, fmt.Errorf("output: %w", err)
	}
	archives := 0
	for i := 0; i < count; i++ {
		src, copyNo := sources[i%len(sources)], i/len(sources)
		raw, err := os.ReadFile(src.path)
		if err != nil {
			return 0, err
		}
		var m any
		if err := json.Unmarshal(raw, &m); err != nil {
			return 0, fmt.Errorf("parse %s: %w", src.path, err)
		}
		salt := fmt.Sprintf("synthetic-%d", copyNo)
		archives += resalt(m, salt)
		dir := filepath.Join(out, src.redist)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		data, err := json.MarshalIndent(m, "", "    ")
		if err != nil {
			return 0, err
		}
		name := fmt.Sprintf("redistrib_%s.%d.json", src.version, copyNo)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return 0, err
		}
	}
	return archives, nil
}

// list returns the bundled manifests in a fixed order.
func list(from string) ([]source, error) {
	redists, err := os.ReadDir(from)
	if err != nil {
		return nil, err
	}
	var sources []source
	for _, r := range redists {
		if !r.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(from, r.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if m := manifestName.FindStringSubmatch(f.Name()); m != nil {
				sources = append(sources, source{r.Name(), m[1], filepath.Join(from, r.Name(), f.Name())})
			}
		}
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].path < sources[j].path })
	return sources, nil
}

// resalt replaces every "sha256" string in v with a hash of it and salt,
// and returns how many it replaced (one per archive).
func resalt(v any, salt string) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := v[k].(string); ok && k == "sha256" {
				sum := sha256.Sum256([]byte(salt + s))
				v[k] = hex.EncodeToString(sum[:])
				n++
				continue
			}
			n += resalt(v[k], salt)
		}
	case []any:
		for _, x := range v {
			n += resalt(x, salt)
		}
	}
	return n
}
