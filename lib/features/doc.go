// Package features defines the JSON shapes this tool writes: the rich
// per-archive detection result, and the legacy and index formats Nixpkgs
// consumed. Everything is encoded canonically (sorted keys, two-space
// indent, ASCII, trailing newline), byte-compatible with upstream's
// `json.dumps(obj, indent=2, sort_keys=True) + "\n"`.
package features
