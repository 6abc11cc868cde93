#!/usr/bin/env bash
# Install, from Debian's packages, what the tests and the sample need and
# this machine lacks: Nix (nix-bin), patchelf (an oracle), bzip2 and xz
# (fixtures, benchmarks), gcc and binutils (toolchain-built fixtures),
# g++ (nvcc 13.5's host compiler), pip and unzip (CUDA 13 wheels),
# a static busybox (the shell of the offline nixpkgs stand-in's builds),
# OpenSSH's server and client (the remote-builder test runs its own
# sshd on 127.0.0.1 with its own configuration and keys), and
# chromium (the report's headless-browser test).
set -euo pipefail
need=()
command -v nix-build >/dev/null || need+=(nix-bin)
command -v patchelf >/dev/null || need+=(patchelf)
command -v bzip2 >/dev/null || need+=(bzip2)
command -v xz >/dev/null || need+=(xz-utils)
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v pip3 >/dev/null || need+=(python3-pip)
command -v unzip >/dev/null || need+=(unzip)
command -v objcopy >/dev/null || need+=(binutils)
command -v git >/dev/null || need+=(git)
command -v bc >/dev/null || need+=(bc)
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || need+=(busybox-static)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null || need+=(openssh-client)
command -v chromium >/dev/null || need+=(chromium)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "install-deps: installing ${need[*]}" >&2
  apt-get update -qq
  # No service is started (policy-rc.d 101): the tests run their own sshd.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
