#!/usr/bin/env bash
# Speed, measured on real NVIDIA libraries in one run: the four rows of
# issue 12, side by side, as ratios.
#   1. unpack vs tar -xJf (GNU tar + XZ Utils), and xz -dc > /dev/null
#   2. detect vs nix hash path, on the unpacked trees
#   3. one archive end to end, cold: nix-build of the fetch, unpack and
#      detect derivations (file:// archive, store paths never built
#      before) vs upstream's way: nix flake prefetch of the archive (fresh
#      fetcher cache, store path deleted), then cuobjdump and
#      patchelf --print-soname/--print-needed on its libraries
#   5. detect vs cuobjdump 13.4 --list-elf on CUDA 13's libcublasLt.so.13
#      (551 MB, 5,666 fatbin entries; the wheel from fetch-real-cuda.sh)
#   4. nix eval of the drvPath of the pipeline over the bundled manifests
#      vs a minimal baseline (scripts/bench/eval-baseline.nix); then, from
#      scripts/eval-bench.sh, the same over the bundled set and over the
#      large synthetic set (185 manifests, about 6,400 archives)
# Archives: libcurand 10.3 and libcufft 10.9 of CUDA 11.8 (Debian's
# packaging, fetched by fetch-real-cuda.sh), repacked as one-block
# .tar.xz as NVIDIA ships them (xz -6 -T1).
#
# Timing: CPU time (user+sys, children included) is what counts, since
# the machine may be shared; each command runs RUNS times (default 3) and
# the lowest counts. Wall time (also the lowest) and peak RSS are shown.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
runs=${RUNS:-3}
cache=${CRFF_BENCH_DIR:-$PWD/tests/.cache/bench}
real=${CRFF_REAL_CUDA:-$PWD/tests/.cache/real-cuda}
scripts/fetch-real-cuda.sh "$real"
mkdir -p "$cache/archives"
cache=$(realpath "$cache")
# The unpack, detect and cold rows run the detector, the builder of the
# pipeline's unpack and detect derivations, built as scripts/sample.sh
# and nix/builder-package.nix build it.
# The aggregate builder too, for the eval row.
scripts/build-programs.sh "$cache" cuda-redist-detector cuda-redist-aggregate
det="$cache/cuda-redist-detector" agg="$cache/cuda-redist-aggregate"
libs="$real/root/usr/lib/x86_64-linux-gnu"

for lib in curand cufft; do
  a="$cache/archives/lib$lib.tar.xz"
  [ -f "$a" ] && continue
  stage="$cache/stage/lib$lib-linux-x86_64-archive"
  rm -rf "$cache/stage" && mkdir -p "$stage/lib"
  cp -a "$libs"/lib$lib.so* "$stage/lib/"
  tar -C "$cache/stage" -cf - "lib$lib-linux-x86_64-archive" | xz -6 -T1 >"$a.tmp"
  mv "$a.tmp" "$a"
  rm -rf "$cache/stage"
done

# measure NAME CMD...: runs CMD $runs times; sets cpu_NAME, wall_NAME and
# rss_NAME (KB) to the lowest of each. A failing command stops the script.
# With repeat=N, each timed run runs CMD N times and the times are per
# command: /usr/bin/time counts in 0.01 s ticks, too coarse alone for the
# 0.1-0.2 s of detect and nix hash path.
measure() {
  local name=$1 cpu= wall= rss= c w m n=${repeat:-1}
  shift
  for _ in $(seq "$runs"); do
    [ -n "${before:-}" ] && eval "$before"
    /usr/bin/time -f '%U %S %e %M' -o "$cache/time" bash -c 'n=$1; shift; for _ in $(seq "$n"); do "$@" || exit; done' - "$n" "$@" >/dev/null 2>"$cache/stderr" ||
      { cat "$cache/stderr" >&2; echo "bench: $name failed" >&2; exit 1; }
    read -r u s w m <"$cache/time"
    c=$(echo "scale=4; ($u + $s) / $n" | bc)
    w=$(echo "scale=4; $w / $n" | bc)
    if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc)" = 1 ]; then cpu=$c; fi
    if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc)" = 1 ]; then wall=$w; fi
    if [ -z "$rss" ] || [ "$m" -lt "$rss" ]; then rss=$m; fi
  done
  printf -v "cpu_$name" '%.3f' "$cpu"
  printf -v "wall_$name" '%.3f' "$wall"
  printf -v "rss_$name" '%s' "$rss"
}
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
row() { # label name [baseline-name]
  local c w
  c=cpu_$2 w=wall_$2
  if [ -n "${3:-}" ]; then
    local bc=cpu_$3
    echo "| $1 | ${!c} | ${!w} | **$(ratio "${!c}" "${!bc}")** |"
  else
    echo "| $1 | ${!c} | ${!w} | 1 |"
  fi
}

out="$cache/out"
tar_unpack() { rm -rf "$out" && mkdir -p "$out" && tar -C "$out" -xJf "$1"; }
our_unpack() { rm -rf "$out" && "$det" unpack "$1" "$out"; }
nixhash() { nix --extra-experimental-features nix-command hash path "$1"; }

# The cold end to end runs. A salt in the names makes every store path new.
expr="$PWD/scripts/bench/one-archive.nix"
newsalt() { date +%s%N >"$cache/salt"; }
ours_cold() { # archive attr...
  local sha args
  sha=$(sha256sum "$1" | cut -d' ' -f1)
  args=(--arg detectorProgram "$det" --argstr url "file://$1" --argstr sha256 "$sha"
    --argstr name "$(basename "$1")" --argstr salt "crffbench-$(cat "$cache/salt")-")
  shift
  for attr in "$@"; do
    nix-build --no-out-link --option sandbox true --option substituters '' --option extra-sandbox-paths "$cache/archives" "$expr" "${args[@]}" -A "$attr"
  done
}
# Deletes what ours_cold built (outputs and .drv files), and picks a new salt.
ours_clean() {
  local paths
  paths=$(ls -d /nix/store/*-crffbench-* 2>/dev/null || true)
  if [ -n "$paths" ]; then nix-store --delete $paths >/dev/null 2>&1 || true; fi
  newsalt
}
upstream() { # archive
  local p
  export XDG_CACHE_HOME="$cache/xdg-cache"
  rm -rf "$XDG_CACHE_HOME"
  p=$(nix --extra-experimental-features 'nix-command flakes' --option substituters '' --option flake-registry "$cache/registry.json" flake prefetch --json "file://$1" |
    sed 's/.*"storePath":"\([^"]*\)".*/\1/')
  for f in "$p"/lib/*.so*; do
    [ -L "$f" ] && continue
    "$real/root/usr/bin/cuobjdump" "$f" >/dev/null 2>&1 || true
    patchelf --print-soname "$f"
    patchelf --print-needed "$f"
  done
  echo "$p" >"$cache/upstream-path"
}
upstream_clean() { if [ -f "$cache/upstream-path" ]; then nix-store --delete "$(cat "$cache/upstream-path")" >/dev/null 2>&1 || true; fi; }
echo '{"flakes":[],"version":2}' >"$cache/registry.json"
export cache det real out expr
export -f tar_unpack our_unpack nixhash ours_cold upstream

for lib in curand cufft; do
  a="$cache/archives/lib$lib.tar.xz"
  measure "tar_$lib" tar_unpack "$a"
  measure "xzdc_$lib" sh -c "xz -dc '$a' >/dev/null"
  measure "unpack_$lib" our_unpack "$a"
  repeat=10 measure "nixhash_$lib" nixhash "$out"
  repeat=10 measure "detect_$lib" "$det" detect "$out"
  du=$(du -sb "$out" | cut -f1)
  printf -v "size_$lib" '%s' "$du"
  before=ours_clean measure "cold_$lib" ours_cold "$a" features
  # Once, one derivation at a time: fetch, unpack (after the fetch),
  # detect (after the unpack), and a trivial derivation (sandbox set-up).
  ours_clean
  runs_saved=$runs runs=1
  measure "fetch_$lib" ours_cold "$a" src
  measure "unpackdrv_$lib" ours_cold "$a" unpacked
  measure "detectdrv_$lib" ours_cold "$a" features
  measure "trivial_$lib" ours_cold "$a" trivial
  runs=$runs_saved
  before=upstream_clean measure "upstream_$lib" upstream "$a"
  before=
  ours_clean
  upstream_clean
done

# detect against cuobjdump on CUDA 13's largest library, alone in a tree
# (a hard link when the cache shares the file system, else a copy).
# detect also NAR-hashes the tree; cuobjdump only lists.
lt="$real/cuda-13/root/nvidia/cu13/lib/libcublasLt.so.13"
ltdir="$cache/cublaslt"
if [ ! -f "$ltdir/lib/libcublasLt.so.13" ]; then
  mkdir -p "$ltdir/lib"
  ln "$lt" "$ltdir/lib/" 2>/dev/null || cp "$lt" "$ltdir/lib/"
fi
measure detect_lt "$det" detect "$ltdir"
measure lelf_lt "$real/cuda-13/root/nvidia/cu13/bin/cuobjdump" --list-elf "$ltdir/lib/libcublasLt.so.13"

# Evaluation over the bundled manifests.
evalexpr='(import ./default.nix { detectorProgram = '"$det"'; aggregateProgram = '"$agg"'; system = "x86_64-linux"; }).features.index.drvPath'
baseexpr='(import ./scripts/bench/eval-baseline.nix { detectorProgram = '"$det"'; aggregateProgram = '"$agg"'; }).drvPath'
nixeval() { nix --extra-experimental-features nix-command eval --impure --raw --expr "$1"; }
export -f nixeval
# Ten evaluations in a row per timed run: one is 0.1 s, ten ticks.
repeat=10 measure eval nixeval "$evalexpr"
repeat=10 measure evalbase nixeval "$baseexpr"

cat <<TABLE
lowest of $runs runs; CPU = user+sys seconds (children included); $(nproc) CPUs; $(date -u +%F)
libcurand: $(stat -c %s "$cache/archives/libcurand.tar.xz") bytes .tar.xz, $size_curand unpacked; libcufft: $(stat -c %s "$cache/archives/libcufft.tar.xz") bytes, $size_cufft unpacked

| measure | CPU s | wall s | ratio (CPU) |
|---|---|---|---|
$(row "libcurand: tar -xJf" tar_curand)
$(row "libcurand: xz -dc > /dev/null" xzdc_curand tar_curand)
$(row "libcurand: unpack (peak RSS ${rss_unpack_curand} KB)" unpack_curand tar_curand)
$(row "libcufft: tar -xJf" tar_cufft)
$(row "libcufft: xz -dc > /dev/null" xzdc_cufft tar_cufft)
$(row "libcufft: unpack (peak RSS ${rss_unpack_cufft} KB)" unpack_cufft tar_cufft)
$(row "libcurand: nix hash path" nixhash_curand)
$(row "libcurand: detect" detect_curand nixhash_curand)
$(row "libcufft: nix hash path" nixhash_cufft)
$(row "libcufft: detect" detect_cufft nixhash_cufft)
$(row "libcurand cold, upstream: nix flake prefetch + cuobjdump + patchelf" upstream_curand)
$(row "libcurand cold, ours: nix-build fetch + unpack + detect" cold_curand upstream_curand)
$(row "libcufft cold, upstream: nix flake prefetch + cuobjdump + patchelf" upstream_cufft)
$(row "libcufft cold, ours: nix-build fetch + unpack + detect" cold_cufft upstream_cufft)
$(row "libcublasLt.so.13 (CUDA 13): cuobjdump 13.4 --list-elf (peak RSS ${rss_lelf_lt} KB)" lelf_lt)
$(row "libcublasLt.so.13 (CUDA 13): detect, NAR hash included (peak RSS ${rss_detect_lt} KB)" detect_lt lelf_lt)
$(row "nix eval, minimal baseline (scripts/bench/eval-baseline.nix; per run, of 10 in a row)" evalbase)
$(row "nix eval, pipeline (default.nix features.index; per run, of 10 in a row)" eval evalbase)

Breakdown of one cold run, one derivation at a time (CPU s, wall s in brackets): fetch / unpack / detect / a trivial derivation (sandbox set-up); then the unpack and detect CLIs alone
- libcurand: $cpu_fetch_curand ($wall_fetch_curand) / $cpu_unpackdrv_curand ($wall_unpackdrv_curand) / $cpu_detectdrv_curand ($wall_detectdrv_curand) / $cpu_trivial_curand ($wall_trivial_curand); CLIs: $cpu_unpack_curand / $cpu_detect_curand
- libcufft: $cpu_fetch_cufft ($wall_fetch_cufft) / $cpu_unpackdrv_cufft ($wall_unpackdrv_cufft) / $cpu_detectdrv_cufft ($wall_detectdrv_cufft) / $cpu_trivial_cufft ($wall_trivial_cufft); CLIs: $cpu_unpack_cufft / $cpu_detect_cufft
eval peak RSS: pipeline ${rss_eval} KB, baseline ${rss_evalbase} KB
TABLE

echo
echo "Evaluation, bundled and large synthetic set (scripts/eval-bench.sh):"
RUNS=${EVAL_RUNS:-5} scripts/eval-bench.sh
