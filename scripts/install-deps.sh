#!/usr/bin/env bash
# Install, from Debian's packages, what the tests and the sample need and
# this machine lacks: Nix (nix-bin), patchelf (an oracle), bzip2 and xz
# (fixtures, benchmarks), gcc and binutils (toolchain-built fixtures).
set -euo pipefail
need=()
command -v nix-build >/dev/null || need+=(nix-bin)
command -v patchelf >/dev/null || need+=(patchelf)
command -v bzip2 >/dev/null || need+=(bzip2)
command -v xz >/dev/null || need+=(xz-utils)
command -v gcc >/dev/null || need+=(gcc)
command -v objcopy >/dev/null || need+=(binutils)
command -v git >/dev/null || need+=(git)
command -v bc >/dev/null || need+=(bc)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "install-deps: installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
