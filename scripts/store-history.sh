#!/usr/bin/env bash
# Gives the Nix store the history of a machine in use, before the tests
# run on it (scripts/test.sh, scripts/test-nix.sh; docs/testing.md, "The
# store the tests meet"):
#
#   1. an earlier run of the sample (scripts/sample.sh), its result-sample-*
#      links kept as GC roots, as a user's checkout has them;
#   2. outputs of an older version of this tool: the sample built from
#      the commit $CRFF_HISTORY_REV (default: the last commit before the
#      record bound unpacks to archives), its links kept as GC roots under
#      .cache/store-history/;
#   3. an earlier run of the CLI (process-manifests on a copy of the
#      sample), which records its unpack hashes and leaves them pinned in
#      the store;
#   4. a garbage collection: what those runs built and no root holds (the
#      per-archive fetches, unpacks and detections under the kept indexes)
#      is gone, while the roots' outputs stay.
#
# The suite must pass on the store this leaves (issue: "the test command on
# a machine in use"). Run as the user who runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
rev=${CRFF_HISTORY_REV:-d372e4646799bfec7466f158d73ea74cae0778f3}
history=$repo/.cache/store-history
mkdir -p "$history"

echo "store-history: 1. the sample, as scripts/sample.sh runs it" >&2
scripts/sample.sh >/dev/null

echo "store-history: 2. the sample built by an older version ($rev)" >&2
old=$history/old
rm -rf "$old"
mkdir -p "$old"
if git cat-file -e "$rev^{commit}" 2>/dev/null; then
  git archive "$rev" | tar -x -C "$old"
  # Its own sample.sh: the older tool's programs, its Nix library and its
  # record, with its result links (GC roots) in its own tree.
  (cd "$old" && scripts/sample.sh >/dev/null)
else
  # A shallow clone lacks the older commit: say so, and go on without
  # that part of the history rather than fail the suite for it.
  echo "store-history: WARNING: commit $rev is not in this clone (shallow?); no older version's outputs" >&2
fi

echo "store-history: 3. process-manifests on a copy of the sample" >&2
run=$history/run
rm -rf "$run"
# The whole sample: its manifests, the archives they name (served from
# the directory by file:// URL) and its record of unpack hashes.
cp -r sample "$run"
scripts/build-programs.sh "$history/bin"
"$history/bin/cuda-redist-find-features" process-manifests --offline "file://$run" "$run" >/dev/null

echo "store-history: 4. nix-store --gc" >&2
nix-store --gc 2>&1 | tail -n1 >&2
