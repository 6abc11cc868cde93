#!/usr/bin/env bash
# Assemble the offline nixpkgs stand-in (tests/nixpkgs-stand-in) in DEST,
# with a copy of this machine's Go toolchain in DEST/go and its static
# busybox (Debian's busybox-static) in DEST/busybox/bin (busybox, and sh
# linking to it: Nix runs a builder with its base name as argv[0], which
# busybox reads as the applet), and print DEST.
set -euo pipefail
dest=${1:?usage: nixpkgs-stand-in.sh DEST}
here=$(cd "$(dirname "$0")/.." && pwd)
goroot=$(go env GOROOT)
busybox=/bin/busybox
if ! [ -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
  echo "nixpkgs-stand-in: $busybox is missing or not static (apt-get install busybox-static)" >&2
  exit 1
fi
stamp="$(go version) $(cat "$here"/tests/nixpkgs-stand-in/*.nix "$busybox" | sha256sum)"
if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; then
  echo "$dest"
  exit 0
fi
rm -rf "$dest"
mkdir -p "$dest/go"
cp "$here"/tests/nixpkgs-stand-in/*.nix "$dest/"
mkdir -p "$dest/busybox/bin"
cp "$busybox" "$dest/busybox/bin/busybox"
ln -s busybox "$dest/busybox/bin/sh"
# The toolchain without what building needs not: tests, docs, the
# compiler's own sources (its binaries are in pkg/tool).
tar -C "$goroot" --exclude=./test --exclude=./doc --exclude=./api --exclude=./misc \
  --exclude=./src/cmd --exclude='testdata' -cf - . | tar -C "$dest/go" -xf -
printf '%s' "$stamp" > "$dest/.stamp"
echo "$dest"
