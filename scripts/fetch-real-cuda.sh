#!/usr/bin/env bash
# Fetch real NVIDIA CUDA binaries from Debian's non-free component and
# unpack them (without installing) into DEST:
#   DEST/root, DEST/debs                CUDA 11.8 (bookworm): libraries and
#                                       /usr/bin/cuobjdump 11.8 (the oracle)
#   DEST/cuda-12.5/root, .../debs       CUDA 12.5 (experimental): libraries
#                                       and cuobjdump, ptxas, fatbinary 12.5
#   DEST/cuda-13/root, .../wheels       CUDA 13 as NVIDIA's Python wheels:
#                                       libraries (root/nvidia/cu13/lib),
#                                       cuobjdump 13.4 and nvcc 13.5 with
#                                       cicc, ptxas, fatbinary and headers
#                                       (root/nvidia/cu13/bin, include, nvvm)
#   DEST/nsight-systems/root, .../debs  Nsight Systems 2022.4 of CUDA 11.8
#                                       (bookworm non-free, about 140 MB):
#                                       NVIDIA's tree with its vendored Qt 6,
#                                       Boost, ICU, libssh (tests/realcuda,
#                                       the vendored-library measurement)
# Used by the real-binary tests and the benchmarks. A download that fails
# fails the script; a tree is marked complete (.complete) only when all
# of it is there.
#
# apt runs with a configuration of its own under DEST/apt-<suite> (sources,
# lists, cache; no dpkg status): the machine's apt sources and state are
# neither read nor changed. The mirror is the one of the machine's Debian
# sources. Downloads (.deb sizes): 11.8 about 230 MB, 12.5 about 150 MB,
# nsight-systems 137 MB.
# The wheels come through pip's ordinary client (pip download --no-deps,
# pinned versions; a wheel is a zip): about 900 MB, 1.4 GB unpacked.
set -euo pipefail
dest=${1:?usage: fetch-real-cuda.sh DEST}

cuda118=(nvidia-cuda-toolkit libnvjpeg11 libcufft10 libcufftw10 libnppc11 libcurand10 libnvblas11 libcudart11.0 libnvrtc-builtins11.8)
# nvidia-cuda-toolkit holds cuobjdump, ptxas and fatbinary; the libraries
# are small ones with device code (libnvjpeg, two NPP parts), host-only
# ones with a stray sm_52 cubin (libnppc, libcufftw), and libcublas.
cuda125=(nvidia-cuda-toolkit libcublas12 libnvjpeg12 libnppicc12 libnppitc12 libnppc12 libcufftw11 libcudart12)

# Pinned wheels: cuobjdump 13.4 (the oracle), nvcc 13.5 and what it runs
# (cicc in nvidia-nvvm, headers in nvidia-cuda-crt and -runtime), and the
# libraries compared with cuobjdump.
cuda13=(nvidia-cuda-cuobjdump==13.4.92 nvidia-cuda-nvcc==13.5.37 nvidia-nvvm==13.5.37
  nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37 nvidia-cuda-nvrtc==13.5.37
  nvidia-nvjitlink==13.5.37 nvidia-cublas==13.10.0.20 nvidia-cufft==12.4.0.43
  nvidia-curand==10.4.4.72)

keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# mirror prints the first URI of the machine's Debian sources (read only).
mirror() {
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1 || true)
  if [ -z "$uri" ]; then
    uri=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\/debian\)\/\?[[:space:]].*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n1 || true)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# fetch SUITE OUT PACKAGE...: download the packages' .deb files of SUITE's
# contrib and non-free into OUT/debs and unpack them into OUT/root.
fetch() {
  local suite=$1 out=$2
  shift 2
  if [ -f "$out/.complete" ]; then
    return 0
  fi
  local aptdir="$dest/apt-$suite"
  mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$out/debs" "$out/root"
  echo "deb [signed-by=$keyring] $(mirror) $suite contrib non-free" > "$aptdir/sources.list"
  local apt=(-o "Dir::Etc::sourcelist=$aptdir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
    -o Dir::State::status=/dev/null -o APT::Architecture=amd64
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update -qq
  (cd "$out/debs" && apt-get "${apt[@]}" download -qq "$@")
  for deb in "$out"/debs/*.deb; do
    dpkg-deb -x "$deb" "$out/root"
  done
  touch "$out/.complete"
}

# fetch_wheels OUT REQUIREMENT...: pip-download the pinned wheels into
# OUT/wheels and unpack them into OUT/root.
fetch_wheels() {
  local out=$1 w
  shift
  if [ -f "$out/.complete" ]; then
    return 0
  fi
  mkdir -p "$out/wheels"
  for w in "$@"; do
    pip3 download --no-deps --disable-pip-version-check -q -d "$out/wheels" "$w"
  done
  rm -rf "$out/root"
  for w in "$out"/wheels/*.whl; do
    unzip -qo "$w" -d "$out/root"
  done
  touch "$out/.complete"
}

# The 11.8 tree keeps its place (DEST/root) and its marker (DEST/.complete).
fetch bookworm "$dest" "${cuda118[@]}"
fetch experimental "$dest/cuda-12.5" "${cuda125[@]}"
fetch bookworm "$dest/nsight-systems" nsight-systems
fetch_wheels "$dest/cuda-13" "${cuda13[@]}"
