#!/usr/bin/env bash
# Evaluation cost of the pipeline against a minimal-work baseline
# (scripts/bench/eval-baseline.nix: the same fetch, unpack and detect
# derivations per archive, one per manifest and an index, written with no
# helper functions and no checks), on two sets:
#   bundled:   manifests/ (nix/bundled.nix's features.index, sample included)
#   synthetic: SYNTH_COUNT (default 185) copies of the bundled manifests,
#              each with its own version and sha256s (about 6,400 archives,
#              v2 and v3 layouts), written by scripts/bench/synthmanifests
#              and evaluated through scripts/bench/eval-pipeline.nix
# Each is `nix eval` of the drvPath of the top index (forcing every fetch,
# unpack, detect and aggregate derivation). Prints CPU time (user+sys)
# and peak RSS, lowest of RUNS (default 3), and the ratio; the first
# evaluation of each (writing the .drv files) is not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/cuda-redist-find-features"
# Built as nix/package.nix builds it (stripped: -s -w), since the binary
# is imported into the store at every evaluation.
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$bin" ./cmd/cuda-redist-find-features
synth="$work/synthetic"
go run ./scripts/bench/synthmanifests -from manifests -count "${SYNTH_COUNT:-185}" -out "$synth" >"$work/synth-summary"

nixeval() { nix --extra-experimental-features nix-command eval --impure --raw --expr "$1" >/dev/null; }
# measure EXPR: prints "CPU-seconds peak-KB wall-seconds": the lowest CPU
# and RSS of $runs runs, and the wall time of the run with the lowest CPU.
measure() {
  local cpu= rss= wall= u s m e c
  nixeval "$1"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S %M %e' -o "$work/time" nix --extra-experimental-features nix-command eval --impure --raw --expr "$1" >/dev/null
    read -r u s m e <"$work/time"
    c=$(echo "$u + $s" | bc)
    if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc)" = 1 ]; then cpu=$c wall=$e; fi
    if [ -z "$rss" ] || [ "$m" -lt "$rss" ]; then rss=$m; fi
  done
  printf '%.2f %s %.2f\n' "$cpu" "$rss" "$wall"
}
archives() { # dir
  nix-instantiate --eval --strict -E '
    let m = import ./nix/manifest.nix; d = '"$1"';
        inherit (builtins) attrNames readDir filter match foldl'"'"' length fromJSON readFile;
        fs = r: filter (f: match "redistrib_.*json" f != null) (attrNames (readDir (d + "/${r}")));
    in foldl'"'"' (n: r: foldl'"'"' (k: f: k + length (m.entries { name = f; manifest = fromJSON (readFile (d + "/${r}/${f}")); })) n (fs r)) 0 (attrNames (readDir d))'
}
manifests() { find "$1" -name 'redistrib_*.json' | wc -l; }

row() { # label pipeline-expr baseline-expr
  local pc pm pw bc bm bw
  read -r pc pm pw <<<"$(measure "$2")"
  read -r bc bm bw <<<"$(measure "$3")"
  printf '| %s | %s s (wall %s s), %s MB | %s s (wall %s s), %s MB | **%.2f** |\n' "$1" "$bc" "$bw" "$((bm / 1024))" "$pc" "$pw" "$((pm / 1024))" "$(echo "$pc / $bc" | bc -l)"
}

echo "lowest of $runs runs; CPU = user+sys; $(nproc) CPUs; $(date -u +%F)"
echo
echo '| set | baseline: CPU, peak RSS | pipeline: CPU, peak RSS | ratio (CPU) |'
echo '|---|---|---|---|'
row "bundled: $(manifests manifests) manifests, $(archives ./manifests) archives (+ sample)" \
  "(import ./default.nix { detector = $bin; system = \"x86_64-linux\"; }).features.index.drvPath" \
  "(import ./scripts/bench/eval-baseline.nix { detector = $bin; }).drvPath"
row "synthetic: $(manifests "$synth") manifests, $(archives "$synth") archives" \
  "(import ./scripts/bench/eval-pipeline.nix { detector = $bin; manifests = $synth; }).index.drvPath" \
  "(import ./scripts/bench/eval-baseline.nix { detector = $bin; manifests = $synth; }).drvPath"
