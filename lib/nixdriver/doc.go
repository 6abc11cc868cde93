// Package nixdriver drives the Nix pipeline from the CLI: the Nix work
// of process-manifests and check-nixpkgs is one routine (Validate, then
// Runner.Process). A run is one instantiation of nix/cli.nix, whose
// arguments are a JSON file (data, never Nix source written here) and
// whose result lists the manifests' archives, as the Nix walker reads
// them, with the derivations of each stage; then the local archives are
// added to the store and one `nix-store --realise` builds what the
// command needs (passing -j, --keep-going, builders and options
// through), its outputs held by GC roots until the command is done.
package nixdriver
