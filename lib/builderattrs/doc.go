// Package builderattrs is what a program needs to run as a Nix builder with
// __structuredAttrs: finding and decoding the attributes file, and the
// output paths in it.
package builderattrs
