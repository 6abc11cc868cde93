// Package schema writes JSON Schema (draft 2020-12) documents of what the
// tool reads (NVIDIA manifests) and writes (the legacy feature files, the
// index format, detect results and detail files). The manifest schema is
// generated from the same key list the parsers use (lib/manifest/keys.json).
// Identify tells which of these formats a document is in.
package schema
