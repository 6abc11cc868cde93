// Package nixstring writes Go strings as Nix string literals by Nix's own
// rules, for every writer of Nix text (check-nixpkgs --fix's edits and
// new files, the buildRedist declarations' Nix expressions). Go's
// strconv.Quote is not one: it leaves "${" alone, which Nix reads as an
// interpolation, and writes \u and \x escapes, which Nix reads as the
// letters u and x.
package nixstring
