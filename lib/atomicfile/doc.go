// Package atomicfile replaces files atomically: readers see the old file
// or the new one, never a half-written one, and a failed write leaves the
// old file in place.
package atomicfile
