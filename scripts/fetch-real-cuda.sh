#!/usr/bin/env bash
# Fetch real NVIDIA CUDA 11.8 binaries from Debian's non-free component and
# unpack them (without installing) into DEST:
#   DEST/root     the packages' files: libraries and /usr/bin/cuobjdump (the oracle)
#   DEST/debs     the .deb files
# Used by the real-binary tests and the benchmarks. Needs root for apt-get.
set -euo pipefail
dest=${1:?usage: fetch-real-cuda.sh DEST}
packages=(nvidia-cuda-toolkit libnvjpeg11 libcufft10 libcufftw10 libnppc11 libcurand10 libnvblas11 libcudart11.0 libnvrtc-builtins11.8)

if [ -x "$dest/root/usr/bin/cuobjdump" ] && [ -f "$dest/.complete" ]; then
  exit 0
fi
if ! apt-cache policy nvidia-cuda-toolkit 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  if ! grep -rqs 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    cat > /etc/apt/sources.list.d/cuda-redist-non-free.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  apt-get update -qq
fi
mkdir -p "$dest/debs" "$dest/root"
(cd "$dest/debs" && apt-get download -qq "${packages[@]}" 2>&1 | grep -v 'unsandboxed' || true)
for deb in "$dest"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dest/root"
done
touch "$dest/.complete"
