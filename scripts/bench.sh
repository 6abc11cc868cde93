#!/usr/bin/env bash
# Speed, measured on real NVIDIA libraries in one run, as ratios:
#   unpack of a large .tar.xz (libcufft 10.9 from Debian non-free, repacked:
#   ~280 MB unpacked)  vs  GNU tar -xJf
#   detect (features + NAR hash) of the unpacked tree  vs  nix hash path
#   detect  vs  cuobjdump + patchelf over the same libraries (upstream's way)
# Each command runs RUNS times (default 3); the best time counts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
runs=${RUNS:-3}
cache=${CRFF_BENCH_DIR:-$PWD/tests/.cache/bench}
real=${CRFF_REAL_CUDA:-$PWD/tests/.cache/real-cuda}
scripts/fetch-real-cuda.sh "$real"
mkdir -p "$cache"
bin="$cache/cuda-redist-find-features"
CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/cuda-redist-find-features

# The same tree twice: as multi-threaded xz writes it (independent 24 MiB
# blocks: xz -T0, the default of XZ Utils 5.6 and of dpkg) and as
# single-threaded xz does (one block).
archive="$cache/libcufft-linux-x86_64-10.9.0.58-archive.tar.xz"
single="$cache/libcufft-single-block.tar.xz"
if [ ! -f "$archive" ] || [ ! -f "$single" ]; then
  stage="$cache/stage/libcufft-linux-x86_64-10.9.0.58-archive"
  rm -rf "$cache/stage" && mkdir -p "$stage/lib"
  cp -a "$real"/root/usr/lib/x86_64-linux-gnu/libcufft* "$stage/lib/"
  cp -a "$real"/root/usr/share/doc "$stage/" 2>/dev/null || true
  tar -C "$cache/stage" -cf - libcufft-linux-x86_64-10.9.0.58-archive | xz -6 -T0 > "$archive.tmp"
  tar -C "$cache/stage" -cf - libcufft-linux-x86_64-10.9.0.58-archive | xz -6 -T1 > "$single.tmp"
  mv "$archive.tmp" "$archive"
  mv "$single.tmp" "$single"
  rm -rf "$cache/stage"
fi

# best CMD...: the lowest wall time of $runs runs, in seconds.
best() {
  local min=
  for _ in $(seq "$runs"); do
    local s e t
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$min" ] || [ "$(echo "$t < $min" | bc)" = 1 ]; then min=$t; fi
  done
  printf '%.3f' "$min"
}
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

out="$cache/out"
tar_unpack() { rm -rf "$out" && mkdir -p "$out" && tar -C "$out" -xJf "$1"; }
our_unpack() { rm -rf "$out" && "$bin" unpack "${@:2}" "$1" "$out"; }
t_tar1=$(best tar_unpack "$single")
t_unpack1=$(best our_unpack "$single")
t_tar=$(best tar_unpack "$archive")
t_xz=$(best sh -c "xz -dc '$archive' > /dev/null")
t_seq=$(best our_unpack "$archive" --threads 1)
t_unpack=$(best our_unpack "$archive")
tree="$out"
t_nix=$(best nix --extra-experimental-features nix-command hash path "$tree")
t_detect=$(best "$bin" detect "$tree")
cuobjdump="$real/root/usr/bin/cuobjdump"
upstream() {
  for f in "$1"/*.so*; do
    [ -L "$f" ] && continue
    "$cuobjdump" "$f" || true
    patchelf --print-soname "$f"
    patchelf --print-needed "$f"
  done
}
t_upstream=$(best upstream "$tree/lib")
size=$(du -sb "$tree" | cut -f1)
# The same comparison over every real library fetched (12 shared objects).
tree="$real/root/usr/lib/x86_64-linux-gnu"
t_nix_all=$(best nix --extra-experimental-features nix-command hash path "$tree")
t_detect_all=$(best "$bin" detect "$tree")
t_upstream_all=$(best upstream "$tree")
size_all=$(du -sbL "$tree" | cut -f1)
# Header-heavy packages (cuda_cccl, cuda_nvcc) are thousands of small
# files: the Go toolchain's sources stand in for such a tree.
small="$(go env GOROOT)/src"
small_files=$(find "$small" -type f | wc -l)
t_nix_small=$(best nix --extra-experimental-features nix-command hash path "$small")
t_detect_small=$(best "$bin" detect "$small")

cat <<TABLE
archives: $(basename "$single") ($(stat -c %s "$single") bytes) and $(basename "$archive") ($(stat -c %s "$archive") bytes), $size bytes unpacked; best of $runs runs; $(nproc) cores
| measure | seconds | ratio |
|---|---|---|
| single-block .tar.xz: tar -xJf (GNU tar + xz) | $t_tar1 | 1 |
| single-block: cuda-redist-find-features unpack | $t_unpack1 | $(ratio "$t_unpack1" "$t_tar1") × tar |
| multi-block .tar.xz (xz -T0): tar -xJf | $t_tar | 1 |
| multi-block: xz -dc > /dev/null | $t_xz | $(ratio "$t_xz" "$t_tar") |
| multi-block: unpack --threads 1 | $t_seq | $(ratio "$t_seq" "$t_tar") × tar |
| multi-block: unpack (blocks in parallel) | $t_unpack | $(ratio "$t_unpack" "$t_tar") × tar |
| nix hash path | $t_nix | 1 |
| cuda-redist-find-features detect (incl. NAR hash) | $t_detect | $(ratio "$t_detect" "$t_nix") × nix hash path |
| cuobjdump + patchelf --print-soname/--print-needed | $t_upstream | detect is $(ratio "$t_upstream" "$t_detect")× faster |
| all 12 real libraries ($size_all bytes): nix hash path | $t_nix_all | 1 |
| all 12: detect | $t_detect_all | $(ratio "$t_detect_all" "$t_nix_all") × nix hash path |
| all 12: cuobjdump + patchelf | $t_upstream_all | detect is $(ratio "$t_upstream_all" "$t_detect_all")× faster |
| $small_files small files (\$GOROOT/src): nix hash path | $t_nix_small | 1 |
| $small_files small files: detect | $t_detect_small | $(ratio "$t_detect_small" "$t_nix_small") × nix hash path |
TABLE
