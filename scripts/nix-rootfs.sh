#!/usr/bin/env bash
# Build a Debian root file system holding a newer Nix (Debian's nix-bin)
# and what the Nix-bound tests need, for scripts/test-nix.sh.
#
#   scripts/nix-rootfs.sh SUITE [DIR]
#
# SUITE is a Debian suite: trixie (Nix 2.26) or unstable (Nix 2.34).
# DIR defaults to $CRFF_NIX_ROOTFS_DIR/rootfs-SUITE
# (CRFF_NIX_ROOTFS_DIR defaults to /var/cache/crff-nix). The root file
# system is built in DIR.build and renamed to DIR when complete, so a
# directory named DIR is always whole; it is rebuilt only when the package
# list below changes (DIR/.crff-rootfs records it). Prints DIR.
#
# The mirror is the first Debian archive of the host's apt sources (no host
# is named here). Snapshot mirrors serve Release files past their
# Valid-Until date, so that check is off. Needs root and mmdebstrap.
set -euo pipefail

suite=${1:?usage: nix-rootfs.sh SUITE [DIR]}
dir=${2:-${CRFF_NIX_ROOTFS_DIR:-/var/cache/crff-nix}/rootfs-$suite}

# What runs inside (docs/testing.md, "Nix versions"): Nix and the tests'
# tools. gcc/g++/binutils build the ELF fixtures; patchelf is an oracle;
# busybox-static is the stand-in nixpkgs' shell; patch applies
# check-nixpkgs --fix's diffs; zstd writes .tar.zst fixtures; openssh-* the remote
# builder test's sshd; passwd creates the nixbld users and the
# unprivileged user of the daemon test; util-linux's setpriv drops to
# that user; mount's umount lets go of the host's root (test-nix.sh);
# bsdutils' script is the progress test's terminal;
# bc and time are used by the scripts the tests run.
packages=(nix-bin ca-certificates git xz-utils bzip2 busybox-static gcc g++ binutils
  patchelf patch zstd unzip bc time openssh-server openssh-client passwd util-linux mount bsdutils procps)
stamp="suite=$suite packages=${packages[*]}"

# One build at a time per directory: a second caller waits, then finds
# the first one's result.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9

if [ -f "$dir/.crff-rootfs" ] && [ "$(cat "$dir/.crff-rootfs")" = "$stamp" ]; then
  echo "$dir"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "nix-rootfs: building $dir needs root (mmdebstrap, chroot)" >&2
  exit 1
fi
command -v mmdebstrap >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
}

# The host's Debian mirror: a deb822 URIs: line or a one-line "deb URL
# suite" entry, the first one that is not the security archive.
mirror=$(
  { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p'
  } | grep -E '/debian/?$' | head -n1
) || true
if [ -z "$mirror" ]; then
  echo "nix-rootfs: no Debian mirror in the host's apt sources (a URI ending in /debian)" >&2
  exit 1
fi

build=$dir.build
rm -rf "$build"
mkdir -p "$(dirname "$dir")"
echo "nix-rootfs: building $dir ($suite) from $mirror" >&2
include=$(IFS=,; echo "${packages[*]}")
# No service starts inside (policy-rc.d 101): the tests start their own
# sshd and nix-daemon.
mmdebstrap --quiet --variant=apt --include="$include" \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --customize-hook='printf "#!/bin/sh\nexit 101\n" > "$1/usr/sbin/policy-rc.d"; chmod +x "$1/usr/sbin/policy-rc.d"' \
  "$suite" "$build" "$mirror" >&2
echo "$stamp" > "$build/.crff-rootfs"
rm -rf "$dir"
mv "$build" "$dir"
echo "$dir"
