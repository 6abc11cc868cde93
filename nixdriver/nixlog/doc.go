// Package nixlog reads Nix's structured log (--log-format internal-json):
// one "@nix {json}" line per event (Parse), and follows the pipeline's
// builds in it (Tracker: what Nix planned, runs, finished or failed per
// stage, where, and the bytes downloaded). Showing any of it is the
// caller's. Nix 2.8 writes the log from nix-store and nix-build as well
// as from nix.
package nixlog
