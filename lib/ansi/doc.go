// Package ansi takes terminal escape sequences (colours, cursor moves,
// hyperlinks) out of text bound for something that is not a terminal:
// Nix colours the messages of its structured log (--log-format
// internal-json) whatever its output is, and those messages reach the
// CLI's stderr, which may be a log file or a pipe.
package ansi
