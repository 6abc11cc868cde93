#!/usr/bin/env bash
# What the next run over the bundled manifests costs after one line of
# CLI code changed (docs/performance.md, "What a change rebuilds"): the
# run with one binary as every builder (the design before the detector
# was a program of its own: every unpack, detect and aggregate again)
# against the run with the builder programs (the detector builds unpack
# and detect, cuda-redist-aggregate the aggregates and the index: nothing
# again), then the same run warm (nothing to build). Each on a
# fresh copy of sample/ with its unpacked-hashes.json (not read by the
# one-binary run, as before); wall and CPU
# seconds (user+sys, children included) from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
salt=${SALT:-$(date +%s%N)}
# The edit: one message of lib/report (CLI-only code), salted so that
# the binary is new to the store.
cp lib/report/model.go "$work/model.go"
sed -i "s|want one (an aggregate directory|want one ($salt: an aggregate directory|" "$work/model.go"
printf '{"Replace":{"%s":"%s"}}' "$PWD/lib/report/model.go" "$work/model.go" >"$work/overlay.json"
# A salted detector too, for the cold run of the new design.
cp detector/facts/detect.go "$work/detect.go"
sed -i "s|fmt.Errorf(\"detect %s: %w\", root, err)|fmt.Errorf(\"detect $salt %s: %w\", root, err)|" "$work/detect.go"
printf '{"Replace":{"%s":"%s","%s":"%s"}}' "$PWD/lib/report/model.go" "$work/model.go" "$PWD/detector/facts/detect.go" "$work/detect.go" >"$work/overlay-cold.json"
mkdir -p "$work/one" "$work/two" "$work/cold"
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -overlay "$work/overlay.json" -o "$work/one/cuda-redist-find-features" ./cmd/cuda-redist-find-features
cp "$work/one/cuda-redist-find-features" "$work/two/"
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o "$work/two/cuda-redist-detector" ./cmd/cuda-redist-detector
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o "$work/two/cuda-redist-aggregate" ./cmd/cuda-redist-aggregate
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -overlay "$work/overlay-cold.json" -o "$work/cold/cuda-redist-find-features" ./cmd/cuda-redist-find-features
CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -overlay "$work/overlay-cold.json" -o "$work/cold/cuda-redist-detector" ./cmd/cuda-redist-detector
cp "$work/two/cuda-redist-aggregate" "$work/cold/"
run() { # label bindir flag...
  local label=$1 bin=$2
  shift 2
  rm -rf "$work/s" && cp -r sample "$work/s"
  /usr/bin/time -f "$label: %e s wall, %U+%S s CPU" \
    "$bin/cuda-redist-find-features" process-manifests --nix-lib "$PWD/nix" --nix-option substituters= "$@" \
    "file://$work/s" "$work/s" >/dev/null 2>"$work/log" || { cat "$work/log"; exit 1; }
  tail -1 "$work/log"
}
# Before: no pins either.
run "one binary, after a CLI edit (everything rebuilt)" "$work/one" --pin-unpacked=false
run "one binary, warm (the same again)" "$work/one" --pin-unpacked=false
run "three programs, cold (new detector and CLI, no pins: everything built)" "$work/cold" --pin-unpacked=false
run "three programs, warm (the same again)" "$work/cold" --pin-unpacked=false
run "three programs, after a CLI edit (nothing rebuilt)" "$work/two"
run "three programs, warm (nothing rebuilt)" "$work/two"
