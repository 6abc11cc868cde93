// Package nixlog reads Nix's structured log (--log-format internal-json):
// one "@nix {json}" line per event (Parse), and follows the pipeline's
// builds in it (Tracker: what Nix planned, runs, finished or failed per
// stage, where, why a failed one failed, and the bytes downloaded).
// Showing any of it is the caller's. Nix 2.8 writes the log from
// nix-store and nix-build as well as from nix. Nix 2.8, 2.26 and 2.34
// report a failed build differently (testdata/build-VERSION.log, written
// by testdata/capture.sh): the Tracker reads all three.
package nixlog
