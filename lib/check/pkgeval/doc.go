// Package pkgeval evaluates the package files of Nixpkgs' cuda-modules
// (`packages/<pname>.nix`, each calling buildRedist) with the stand-ins of
// nix/buildredist-standin.nix, and isolates the files that do not
// evaluate: Nix's tryEval catches no missing attribute, type error or
// syntax error, so one broken file fails the whole nix-instantiate.
//
// The strategy, chosen by measurement (docs/check-nixpkgs.md): one
// nix-instantiate for every file and case (0.08 s for 75 files × 3
// cases, against 4.7 s for one process per file on 2 workers); when it
// fails, the set is halved until the failing files stand alone (a bounded
// number of processes at once);
// for a file that fails, one per case, and for a case that fails, once more
// without the build inputs, so its outputs are still checked. Each failing
// file or case keeps Nix's own message. A run stopped by its time or
// memory bound is followed by one run per file instead of halving (the
// bound is then waited for once more, not once per level), and a file
// that runs into a bound alone is reported for all its cases.
//
// Every nix-instantiate runs in Nix's restricted mode, reading only the
// stand-in, the request, the package directory and the checkout's lib/,
// with the environment cleared, and the stand-in imports each file with
// builtins that refuse the environment, the time, fetches, exec, the
// store and lookup paths (docs/nixpkgs.md, "Evaluation is confined").
package pkgeval
