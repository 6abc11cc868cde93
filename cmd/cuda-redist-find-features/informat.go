package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/schema"
	"github.com/nix-cuda/cuda-redist-find-features/lib/inputfile"
	"github.com/nix-cuda/cuda-redist-find-features/lib/jsoncheck"
)

// formatNames say what a document in each format is, for messages.
var formatNames = map[string]string{
	schema.ManifestFormat: "an NVIDIA manifest (redistrib_<version>.json)",
	"legacy":              "a feature file (feature_<version>.json)",
	"index":               "an index (index.json)",
	"detect":              "a detect result",
	"detail":              "a detail.json",
	"buildredist":         "a buildRedist.json",
	"dependencies":        "print-dependencies --json output",
	"finding":             "a check-nixpkgs --json finding",
	"coverage":            "coverage --json output",
}

// readFormat decodes the JSON file at path into v after checking it is in
// format (one of schema.Formats); when it is not, the error names the file,
// what it is instead when that is recognised, and the format wanted. A
// lenient read only refuses files of another recognised format (and
// non-JSON), for commands that also read partial documents.
func readFormat(path, format string, lenient bool, v any) error {
	data, err := inputfile.Read(path, inputfile.MaxDocument)
	if err != nil {
		return err
	}
	wanted := fmt.Sprintf("want %s (print-feature-schema --format %s)", formatNames[format], format)
	doc, err := parseJSON(path, data, wanted)
	if err != nil {
		return err
	}
	if verr := schema.Validate(format, doc); verr != nil {
		if _, ok := verr.(*jsonschema.ValidationError); !ok {
			return verr
		}
		formats, err := schema.Identify(doc)
		if err != nil {
			return err
		}
		if len(formats) > 0 && !slices.Contains(formats, format) {
			return fmt.Errorf("%s: this is %s; %s", path, formatNames[formats[0]], wanted)
		}
		if lenient {
			return decodeInto(path, data, v)
		}
		return fmt.Errorf("%s: not %s: %v; %s", path, formatNames[format], validationSummary(verr), wanted)
	}
	return decodeInto(path, data, v)
}

// parseJSON checks data as every JSON reader does (lib/jsoncheck) and
// parses it into the values the schemas validate; what is not JSON at all
// is told with the format wanted.
func parseJSON(path string, data []byte, wanted string) (any, error) {
	err := jsoncheck.Check(data)
	if err != nil && !errors.Is(err, jsoncheck.ErrSyntax) {
		return nil, jsoncheck.Place(path, data, err)
	}
	if err == nil {
		var doc any
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(data)); err == nil {
			return doc, nil
		}
	}
	return nil, fmt.Errorf("%w; %s", jsoncheck.Place(path, data, err), wanted)
}

func decodeInto(path string, data []byte, v any) error {
	return jsoncheck.Unmarshal(path, data, v)
}

// validationSummary is the schema's complaints on one line, without the
// schema's URL (the first line), at most three of them.
func validationSummary(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")[1:]
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "...")
	}
	return strings.Join(out, "; ")
}
