#!/usr/bin/env bash
# Builds the three programs into DIR the one way the scripts use them:
# static (CGO_ENABLED=0: Nix's sandbox has no dynamic loader), and the two
# builders reproducibly (-trimpath, -buildvcs=false, no build ID), as
# nix/builder-package.nix and the README's install line build them: every
# unpack, detect and aggregate derivation's store path depends on its
# builder's bytes, so another build of the same source must give the same
# bytes, or everything rebuilds.
#
#   scripts/build-programs.sh DIR [PROGRAM...]   # default: all three
set -euo pipefail
dir=${1:?usage: build-programs.sh DIR [PROGRAM...]}
shift
cd "$(dirname "$0")/.."
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(cuda-redist-find-features cuda-redist-detector cuda-redist-aggregate)
mkdir -p "$dir"
for p in "${programs[@]}"; do
  case $p in
    cuda-redist-find-features) CGO_ENABLED=0 go build -trimpath -o "$dir/$p" "./cmd/$p" ;;
    cuda-redist-detector | cuda-redist-aggregate)
      CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o "$dir/$p" "./cmd/$p" ;;
    *) echo "build-programs: unknown program $p" >&2; exit 2 ;;
  esac
done
