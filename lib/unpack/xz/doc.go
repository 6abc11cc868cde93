// Package xz decompresses .xz files (placeholder, rewritten below).
package xz
