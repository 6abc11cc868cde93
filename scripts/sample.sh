#!/usr/bin/env bash
# The main job on the bundled sample: build the static binary, then let
# Nix fetch, unpack and detect every archive of sample/redistrib_*.json in
# sandboxed derivations and aggregate them. Prints the legacy feature file
# of each manifest and the merged index; results stay in ./result-sample-*.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh sample
# The CLI and the two builders (the unpack and detect derivations'; the
# aggregate and index derivations'), the builders reproducibly: the same
# source gives the same bytes, so the same store paths and no rebuild.
scripts/build-programs.sh .cache
nixopts=(--option sandbox true --option substituters '')
for attr in '"1.0.0"' '"2.0.0"' index; do
  name=${attr//\"/}
  nix-build default.nix "${nixopts[@]}" --arg cliProgram "$PWD/.cache/cuda-redist-find-features" \
    --arg detectorProgram "$PWD/.cache/cuda-redist-detector" \
    --arg aggregateProgram "$PWD/.cache/cuda-redist-aggregate" \
    -A "features.sample.$attr" -o "result-sample-$name" >&2
done
for v in 1.0.0 2.0.0; do
  echo "== result-sample-$v/feature_$v.json"
  cat "result-sample-$v/feature_$v.json"
done
echo "== result-sample-index (index.json of both manifests)"
cat result-sample-index
