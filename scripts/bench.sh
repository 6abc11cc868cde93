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

archive="$cache/libcufft-linux-x86_64-10.9.0.58-archive.tar.xz"
if [ ! -f "$archive" ]; then
  stage="$cache/stage/libcufft-linux-x86_64-10.9.0.58-archive"
  rm -rf "$cache/stage" && mkdir -p "$stage/lib"
  cp -a "$real"/root/usr/lib/x86_64-linux-gnu/libcufft* "$stage/lib/"
  cp -a "$real"/root/usr/share/doc "$stage/" 2>/dev/null || true
  tar -C "$cache/stage" -cf - libcufft-linux-x86_64-10.9.0.58-archive | xz -6 -T0 > "$archive.tmp"
  mv "$archive.tmp" "$archive"
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
tar_unpack() { rm -rf "$out" && mkdir -p "$out" && tar -C "$out" -xJf "$archive"; }
our_unpack() { rm -rf "$out" && "$bin" unpack "$archive" "$out"; }
t_tar=$(best tar_unpack)
t_xz=$(best sh -c "xz -dc '$archive' > /dev/null")
t_unpack=$(best our_unpack)
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

cat <<TABLE
archive: $(basename "$archive"), $(stat -c %s "$archive") bytes, $size bytes unpacked; best of $runs runs; $(nproc) cores
| measure | seconds | ratio |
|---|---|---|
| tar -xJf (GNU tar + xz) | $t_tar | 1 |
| xz -dc > /dev/null | $t_xz | $(ratio "$t_xz" "$t_tar") |
| cuda-redist-find-features unpack | $t_unpack | $(ratio "$t_unpack" "$t_tar") × tar |
| nix hash path | $t_nix | 1 |
| cuda-redist-find-features detect (incl. NAR hash) | $t_detect | $(ratio "$t_detect" "$t_nix") × nix hash path |
| cuobjdump + patchelf --print-soname/--print-needed | $t_upstream | detect is $(ratio "$t_upstream" "$t_detect")× faster |
| all 12 real libraries ($size_all bytes): nix hash path | $t_nix_all | 1 |
| all 12: detect | $t_detect_all | $(ratio "$t_detect_all" "$t_nix_all") × nix hash path |
| all 12: cuobjdump + patchelf | $t_upstream_all | detect is $(ratio "$t_upstream_all" "$t_detect_all")× faster |
TABLE
