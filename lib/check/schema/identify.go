package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ManifestFormat is the name Identify gives NVIDIA's manifests (the other
// names are the Formats).
const ManifestFormat = "manifest"

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// compileAll compiles the manifest schema and every feature format's.
func compileAll() (map[string]*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		compiled = map[string]*jsonschema.Schema{}
		docs := map[string]map[string]any{ManifestFormat: Manifest()}
		for _, f := range Formats {
			doc, err := Feature(f)
			if err != nil {
				compileErr = err
				return
			}
			docs[f] = doc
		}
		for name, doc := range docs {
			// Through JSON, so the compiler sees the types it expects.
			c := jsonschema.NewCompiler()
			url := name + ".json"
			if err := c.AddResource(url, toJSONValue(doc)); err != nil {
				compileErr = fmt.Errorf("schema %s: %w", name, err)
				return
			}
			s, err := c.Compile(url)
			if err != nil {
				compileErr = fmt.Errorf("schema %s: %w", name, err)
				return
			}
			compiled[name] = s
		}
	})
	return compiled, compileErr
}

// Validate checks a decoded JSON document (from jsonschema.UnmarshalJSON,
// or encoding/json with UseNumber) against a format's schema: one of
// Formats, or ManifestFormat.
func Validate(format string, doc any) error {
	all, err := compileAll()
	if err != nil {
		return err
	}
	s, ok := all[format]
	if !ok {
		return fmt.Errorf("unknown format %q", format)
	}
	return s.Validate(doc)
}

// Identify returns the formats whose schema a decoded JSON document
// satisfies, in the order manifest, then Formats' order. An empty object
// satisfies them all; callers name what they wanted in that case.
func Identify(doc any) ([]string, error) {
	var matches []string
	for _, f := range append([]string{ManifestFormat}, Formats...) {
		err := Validate(f, doc)
		if err == nil {
			matches = append(matches, f)
			continue
		}
		if _, ok := err.(*jsonschema.ValidationError); !ok {
			return nil, err
		}
	}
	return matches, nil
}

// toJSONValue turns a schema built from Go values (string slices, ints)
// into the JSON values jsonschema reads.
func toJSONValue(doc map[string]any) any {
	data, err := json.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("schema documents are plain values: %v", err)) // a bug in this package
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		panic(fmt.Sprintf("schema documents are plain values: %v", err))
	}
	return v
}
