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
# and peak RSS, lowest of RUNS (default 5, pipeline and baseline in turn),
# and the ratio; the first evaluation of each (writing the .drv files) is
# not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The builders, built as nix/builder-package.nix builds them (stripped,
# no build ID), since each is imported into the store at every evaluation.
scripts/build-programs.sh "$work" cuda-redist-detector cuda-redist-aggregate
det="$work/cuda-redist-detector" agg="$work/cuda-redist-aggregate"
progs="detectorProgram = $det; aggregateProgram = $agg;"
synth="$work/synthetic"
go run ./scripts/bench/synthmanifests -from manifests -count "${SYNTH_COUNT:-185}" -out "$synth" >"$work/synth-summary"

# once EXPR: prints "CPU-seconds peak-KB wall-seconds" of one evaluation.
once() {
  local u s m e
  /usr/bin/time -f '%U %S %M %e' -o "$work/time" nix --extra-experimental-features nix-command eval --impure --raw --expr "$1" >/dev/null
  read -r u s m e <"$work/time"
  echo "$(echo "$u + $s" | bc) $m $e"
}
# lower A B: the lower of two numbers.
lower() { if [ "$(echo "$1 < $2" | bc)" = 1 ]; then echo "$1"; else echo "$2"; fi; }
archives() { # dir
  nix-instantiate --eval --strict -E '
    let m = import ./nix/manifest.nix; d = '"$1"';
        inherit (builtins) attrNames readDir filter match foldl'"'"' length fromJSON readFile;
        fs = r: filter (f: match "redistrib_.*json" f != null) (attrNames (readDir (d + "/${r}")));
    in foldl'"'"' (n: r: foldl'"'"' (k: f: k + length (m.entries { name = f; manifest = fromJSON (readFile (d + "/${r}/${f}")); })) n (fs r)) 0 (attrNames (readDir d))'
}
manifests() { find "$1" -name 'redistrib_*.json' | wc -l; }

# row LABEL PIPELINE-EXPR BASELINE-EXPR: the two evaluated in turn, $runs
# times each (so both see the same machine: a ratio of runs minutes apart
# moved by 0.05 on this shared machine); CPU and RSS are the lowest, wall
# the lowest too.
row() {
  local pc= pm= pw= bc= bm= bw= c m w i
  once "$2" >/dev/null
  once "$3" >/dev/null
  for i in $(seq "$runs"); do
    read -r c m w <<<"$(once "$2")"
    pc=$(lower "${pc:-$c}" "$c") pm=$(lower "${pm:-$m}" "$m") pw=$(lower "${pw:-$w}" "$w")
    read -r c m w <<<"$(once "$3")"
    bc=$(lower "${bc:-$c}" "$c") bm=$(lower "${bm:-$m}" "$m") bw=$(lower "${bw:-$w}" "$w")
  done
  printf '| %s | %.2f s (wall %.2f s), %s MB | %.2f s (wall %.2f s), %s MB | **%.2f** |\n' "$1" "$bc" "$bw" "$((bm / 1024))" "$pc" "$pw" "$((pm / 1024))" "$(echo "$pc / $bc" | bc -l)"
}

echo "lowest of $runs runs each, pipeline and baseline in turn; CPU = user+sys; $(nproc) CPUs; $(date -u +%F)"
echo
echo '| set | baseline: CPU, peak RSS | pipeline: CPU, peak RSS | ratio (CPU) |'
echo '|---|---|---|---|'
row "bundled: $(manifests manifests) manifests, $(archives ./manifests) archives (+ sample)" \
  "(import ./default.nix { $progs system = \"x86_64-linux\"; }).features.index.drvPath" \
  "(import ./scripts/bench/eval-baseline.nix { $progs }).drvPath"
row "synthetic: $(manifests "$synth") manifests, $(archives "$synth") archives" \
  "(import ./scripts/bench/eval-pipeline.nix { $progs manifests = $synth; }).index.drvPath" \
  "(import ./scripts/bench/eval-baseline.nix { $progs manifests = $synth; }).drvPath"
