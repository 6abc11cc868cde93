// Package nixdriver drives the Nix pipeline from the CLI. A run is one
// instantiation of nix/cli.nix, whose arguments are a JSON file (data,
// never Nix source written here), and one `nix-store --realise` of the
// derivations it names (passing -j, --keep-going, builders and options
// through).
package nixdriver
