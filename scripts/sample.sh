#!/usr/bin/env bash
# The main job on the bundled sample: build the static binary, then let
# Nix fetch, unpack and detect every archive of sample/redistrib_*.json in
# sandboxed derivations and aggregate them. Prints the legacy feature file
# of each manifest and the merged index; results stay in ./result-sample-*.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh sample
mkdir -p .cache
CGO_ENABLED=0 go build -trimpath -o .cache/cuda-redist-find-features ./cmd/cuda-redist-find-features
# The builder of the unpack and detect derivations, built reproducibly: the
# same source gives the same bytes, so the same store path and no rebuild.
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o .cache/cuda-redist-detector ./cmd/cuda-redist-detector
# The builder of the aggregate and index derivations, the same way.
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o .cache/cuda-redist-aggregate ./cmd/cuda-redist-aggregate
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
