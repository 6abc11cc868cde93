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
#   DEST/lineage/cu12, cu13/<wheel>, .../wheels
#                                       cuda_nvcc 12.9.86 (nvidia-cuda-nvcc-cu12)
#                                       and cuda_nvcc, libnvvm, cuda_crt 13.0.48
#                                       (nvidia-cuda-nvcc, -nvvm, -cuda-crt), each
#                                       unpacked apart: the NVVM and CRT split of
#                                       CUDA 13.0 (lib/report/lineage), 140 MB
#   DEST/nsight-systems/root, .../debs  Nsight Systems 2022.4 of CUDA 11.8
#                                       (bookworm non-free, about 140 MB):
#                                       NVIDIA's tree with its vendored Qt 6,
#                                       Boost, ICU, libssh (tests/realcuda,
#                                       the vendored-library measurement)
#   DEST/dlopen/cu12/root, .../cu13/root  the libraries (*.so* only) of
#                                       NVIDIA's CUDA 12 and 13 wheels that
#                                       load others at run time (cuBLAS,
#                                       cuDNN, cuFFT, cuSPARSE, cuSPARSELt,
#                                       NCCL, NVSHMEM, cuFile, CUPTI, the
#                                       runtime, NVRTC, nvJitLink), and
#   DEST/dlopen/cuda-11.8/root, .../debs  Debian's CUDA 11.8 packages of the
#                                       same (tests/realcuda, the hand lists
#                                       of runtime loads)
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
# The runtime-load sets: 4.1 GB of wheels (pinned versions and sha256,
# pip's --require-hashes; deleted once unpacked) and 374 MB of .debs, 6.7 GB
# of libraries unpacked (cuDNN 12 and 13 the most of it).
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

# The runtime-load sets (tests/realcuda/testdata/runtime-loads): what
# Debian's 11.8 lacks above, and the CUDA 12 and 13 wheels, pinned with
# their sha256.
dlopen118=(libcublas11 libcublaslt11 libcufile0 libcupti11.8 libcusparse11 libnvrtc11.2)
dlopen12=(
  "nvidia-cublas-cu12==12.9.3.13 --hash=sha256:d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72"
  "nvidia-cuda-cupti-cu12==12.9.79 --hash=sha256:096bcf334f13e1984ba36685ad4c1d6347db214de03dbb6eebb237b41d9d934f"
  "nvidia-cuda-nvrtc-cu12==12.9.86 --hash=sha256:210cf05005a447e29214e9ce50851e83fc5f4358df8b453155d5e1918094dcb4"
  "nvidia-cuda-runtime-cu12==12.9.79 --hash=sha256:25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3"
  "nvidia-cudnn-cu12==9.28.0.42 --hash=sha256:9ff58b7f36dacd0a93e89f8f2957b52466889217963701daa15e577317cfa375"
  "nvidia-cufft-cu12==11.4.1.4 --hash=sha256:c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28"
  "nvidia-cufile-cu12==1.14.1.1 --hash=sha256:9552e2231792e94b1ff17bc99e958cc0e6bbbaa4a9d91fa2dbeed97716628fe6"
  "nvidia-cusparse-cu12==12.5.10.65 --hash=sha256:73060ce019ac064a057267c585bf1fd5a353734151f87472ff02b2c5c9984e78"
  "nvidia-cusparselt-cu12==0.8.1 --hash=sha256:cd1b1dc9e1ad31ea3353c1f985e2bd6f9e7ae0e797d7e6ce879d7b2ace5e80e8"
  "nvidia-nccl-cu12==2.32.3 --hash=sha256:bb94b2348e4861d5e8aa00b36c3d12d9bdf9c6369b82cbb723de0b582280a21c"
  "nvidia-nvjitlink-cu12==12.9.86 --hash=sha256:e3f1171dbdc83c5932a45f0f4c99180a70de9bd2718c1ab77d14104f6d7147f9"
  "nvidia-nvshmem-cu12==3.8.0 --hash=sha256:b2e5760d6158aefe7bb74348d5128bb1b46a7dd1fd4b7b1e6fe55b4b07888f70"
)
# CUDA 13's cuBLAS, cuFFT, runtime, NVRTC and nvJitLink are DEST/cuda-13's.
dlopen13=(
  "nvidia-cuda-cupti==13.5.25 --hash=sha256:9dcca41c12a734192b14e7128ae116bc9ce1b9da686e2ebf48ae7a4415f76650"
  "nvidia-cudnn-cu13==9.28.1.4 --hash=sha256:a54f205b1db1f2895d99f398754db1369816f0569dd459731f925635cf7b65ec"
  "nvidia-cufile==1.20.0.107 --hash=sha256:d134f10ce336c411664d79e3538e4797b38a41d3388edad1ec4a1a8c64c8c03a"
  "nvidia-cusparse==12.9.4.2 --hash=sha256:072667e58c851a318738f5527a12eb225cbf058803f2ea451c722d8cf8edddec"
  "nvidia-cusparselt-cu13==0.10.0 --hash=sha256:b46f95b786b4ed96193d639527d95c1703f421d14a89afea1437a84ae3c36823"
  "nvidia-nccl-cu13==2.32.3 --hash=sha256:1459723080ac889d73a26edfa3e04383a7928ab31ac8f0ec43b3ea9548b04ff3"
  "nvidia-nvshmem-cu13==3.8.0 --hash=sha256:81a4d1f666543e6d34df6d2ff940c7da1435e34e186aab6f3c2b48861b64ef38"
)
# The split of CUDA 13.0 (lib/report/lineage): the versions of the CUDA
# 12.9.2 and 13.0.0 manifests, pinned by their sha256.
lineage=(
  "nvidia-cuda-nvcc-cu12==12.9.86 --hash=sha256:5d6a0d32fdc7ea39917c20065614ae93add6f577d840233237ff08e9a38f58f0"
  "nvidia-cuda-nvcc==13.0.48 --hash=sha256:d529c52d30c403cbf6fb17a3009530a48d94ea3ad99c990ad0301d9c744eb866"
  "nvidia-nvvm==13.0.48 --hash=sha256:a7cf76afc14682c46d43d5cdc370fc1da69cb84270e6854c6b3869584ecbd483"
  "nvidia-cuda-crt==13.0.48 --hash=sha256:944b6070c50dc4fbb7c012b1a4c28b444c9c5ac071ac17d84dc9726d9cbc6bea"
)

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

# fetch_wheels OUT FILES REQUIREMENT...: pip-download the pinned wheels
# into OUT/wheels, each checked against its sha256 when the requirements
# give one (pip's --require-hashes), and unpack their FILES (a zip
# pattern, '*' for all) into OUT/root. When FILES is not '*', the wheels
# are deleted once unpacked.
fetch_wheels() {
  local out=$1 files=$2 w
  shift 2
  if [ -f "$out/.complete" ]; then
    return 0
  fi
  mkdir -p "$out/wheels"
  printf '%s\n' "$@" > "$out/requirements.txt"
  local hashes=()
  if grep -q -- '--hash=' "$out/requirements.txt"; then
    hashes=(--require-hashes)
  fi
  pip3 download --no-deps --disable-pip-version-check -q "${hashes[@]}" -r "$out/requirements.txt" -d "$out/wheels"
  rm -rf "$out/root"
  for w in "$out"/wheels/*.whl; do
    unzip -qo "$w" "$files" -d "$out/root"
  done
  if [ "$files" != '*' ]; then
    rm -rf "$out/wheels"
  fi
  touch "$out/.complete"
}

# fetch_lineage OUT: pip-download the lineage wheels (hash-checked) into
# OUT/wheels and unpack each into a directory of its own: cu12 for the
# CUDA 12 wheel, cu13/<distribution> for each CUDA 13 one (the three share
# nvidia/cu13, and the test needs each package's tree apart).
fetch_lineage() {
  local out=$1 w name
  if [ -f "$out/.complete" ]; then
    return 0
  fi
  mkdir -p "$out/wheels"
  printf '%s\n' "${lineage[@]}" > "$out/requirements.txt"
  pip3 download --no-deps --disable-pip-version-check -q --require-hashes \
    --only-binary=:all: --platform manylinux2014_x86_64 -d "$out/wheels" -r "$out/requirements.txt"
  rm -rf "$out/cu12" "$out/cu13"
  mkdir -p "$out/cu13"
  unzip -qo "$out"/wheels/nvidia_cuda_nvcc_cu12-*.whl -d "$out/cu12"
  for w in "$out"/wheels/nvidia_cuda_nvcc-13*.whl "$out"/wheels/nvidia_nvvm-13*.whl "$out"/wheels/nvidia_cuda_crt-13*.whl; do
    name=$(basename "$w")
    unzip -qo "$w" -d "$out/cu13/${name%%-*}"
  done
  touch "$out/.complete"
}

# The 11.8 tree keeps its place (DEST/root) and its marker (DEST/.complete).
fetch bookworm "$dest" "${cuda118[@]}"
fetch experimental "$dest/cuda-12.5" "${cuda125[@]}"
fetch bookworm "$dest/nsight-systems" nsight-systems
fetch_wheels "$dest/cuda-13" '*' "${cuda13[@]}"
fetch bookworm "$dest/dlopen/cuda-11.8" "${dlopen118[@]}"
fetch_wheels "$dest/dlopen/cu12" '*.so*' "${dlopen12[@]}"
fetch_wheels "$dest/dlopen/cu13" '*.so*' "${dlopen13[@]}"
fetch_lineage "$dest/lineage"
