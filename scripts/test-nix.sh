#!/usr/bin/env bash
# The tests that run Nix, on a newer Nix: inside a Debian root file system
# (scripts/nix-rootfs.sh) with Debian's nix-bin, as root without a daemon,
# and then (--daemon, or CRFF_NIX_DAEMON=1) the CLI as an unprivileged user
# through a nix-daemon of the root file system's own.
#
#   scripts/test-nix.sh VERSION [--daemon]
#   scripts/test-nix.sh VERSION -- COMMAND [ARG...]   # COMMAND inside, from the repository
#
# VERSION is 2.26 (Debian trixie) or 2.34 (Debian unstable); 2.8 is the
# host's own Nix (scripts/test.sh runs it). Which tests run here and why:
# docs/testing.md, "Nix versions".
#
# The repository, the Go toolchain, GOCACHE, GOMODCACHE and CRFF_REAL_CUDA
# are bind-mounted at their own paths; /tmp is a fresh directory. All of it
# happens in a mount and pid namespace of its own (unshare), so every
# mount and process is gone when the run ends, failed or not. pivot_root rather than chroot: Nix's
# sandbox creates user namespaces, which the kernel refuses to a chrooted
# process.
set -euo pipefail

if [ "${1:-}" = --inside ]; then
  # Second half, in the new mount namespace: mount, pivot_root, run.
  shift
  root=$1 tmp=$2 script=$3
  shift 3
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$tmp" "$root/tmp"
  for d in "$@"; do # PATH, or PATH:ro for a read-only one
    ro=
    case $d in *:ro) d=${d%:ro} ro=1 ;; esac
    mkdir -p "$root$d"
    mount --bind "$d" "$root$d"
    [ -z "$ro" ] || mount -o remount,bind,ro "$root$d"
  done
  cd "$root"
  mkdir -p .oldroot
  pivot_root . .oldroot
  cd /
  umount -l /.oldroot
  rmdir /.oldroot
  exec /bin/bash "$script"
fi

version=${1:?usage: test-nix.sh VERSION [--daemon | -- COMMAND...]}
shift
daemon=${CRFF_NIX_DAEMON:-}
command=()
case ${1:-} in
  --daemon) daemon=1 ;;
  --) shift; command=("$@") ;;
esac
case $version in
  2.26) suite=trixie uidbase=30100 ;;
  2.34) suite=unstable uidbase=30200 ;;
  *)
    echo "test-nix: no root file system for Nix $version (2.26, 2.34; 2.8 is the host's)" >&2
    exit 2
    ;;
esac
# A second run of the same version at once (another checkout) needs its own
# root file system (CRFF_NIX_ROOTFS_DIR) and build users (CRFF_NIX_UID_BASE).
uidbase=${CRFF_NIX_UID_BASE:-$uidbase}
cd "$(dirname "$0")/.."
repo=$(pwd -P)
root=$(scripts/nix-rootfs.sh "$suite")
goroot=$(go env GOROOT)
gocache=$(go env GOCACHE)
gomodcache=$(go env GOMODCACHE)
mkdir -p "$gocache" "$gomodcache"
binds=("$repo" "$goroot" "$gocache" "$gomodcache")
# A git worktree's repository is elsewhere (git ls-files: the flake test
# copies the tracked files).
gitdir=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
case $gitdir in
  "" | "$repo"/*) ;;
  *) binds+=("$gitdir:ro") ;;
esac
if [ -n "${CRFF_REAL_CUDA:-}" ] && [ "$CRFF_REAL_CUDA" != skip ]; then
  binds+=("$(cd "$CRFF_REAL_CUDA" && pwd -P):ro")
fi

tmp=$(mktemp -d /var/tmp/crff-nix-"$version"-XXXXXX)
chmod 1777 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# The packages whose tests run Nix's tools, found in the tests themselves
# (so a new one cannot be left out), and the CLI, which drives Nix.
# tests/realcuda is left out but for its one test that runs Nix: its other
# tests compare with cuobjdump and patchelf, which do not depend on Nix.
mapfile -t pkgs < <(
  { grep -rlE 'nix-instantiate|nix-build|nix-store|RequireNix|LookPath\("nix' \
      --include='*_test.go' --exclude-dir=vendor --exclude-dir=.cache . | xargs -n1 dirname
    echo ./cmd/cuda-redist-find-features
  } | grep -v '^./tests/realcuda$' | sort -u
)
# For work on one test: CRFF_TEST_PKGS (package patterns) and
# CRFF_TEST_RUN (go test -run) narrow the run.
if [ -n "${CRFF_TEST_PKGS:-}" ]; then
  read -r -a pkgs <<<"$CRFF_TEST_PKGS"
fi
run=()
[ -n "${CRFF_TEST_RUN:-}" ] && run=(-run "$CRFF_TEST_RUN")

# The script that runs inside: what the caller's environment says that
# matters to the tests, then go test, then the daemon run.
cat > "$tmp/run.sh" <<EOF
set -euo pipefail
export PATH=$goroot/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root GOCACHE=$gocache GOMODCACHE=$gomodcache GOFLAGS=-mod=vendor GOTOOLCHAIN=local
export TMPDIR=/tmp CRFF_REQUIRE_ALL=1 CRFF_REQUIRE_NIX=1
export CRFF_REAL_CUDA=${CRFF_REAL_CUDA:-skip}
cd $repo
# Debian's nix-bin builds as the nixbld users (build-users-group = nixbld)
# and its package creates none: what an installer does, once. Their ids
# are this root file system's own ($uidbase+1...), none of the host's or
# the other one's: Nix kills every process of a build user before and
# after a build, which would reach another Nix's builders sharing the id.
if [ "\$(id -u nixbld1 2>/dev/null)" != $((uidbase + 1)) ]; then
  for u in \$(getent group nixbld | cut -d: -f4 | tr , ' '); do userdel "\$u"; done
  if getent group nixbld >/dev/null; then groupdel nixbld; fi
  groupadd --gid $uidbase nixbld
  for i in 1 2 3 4 5 6 7 8; do
    useradd --uid \$(($uidbase + i)) --no-create-home --home-dir /var/empty \
      --shell /usr/sbin/nologin --gid nixbld --groups nixbld nixbld\$i
  done
fi
$(if [ ${#command[@]} -gt 0 ]; then printf 'exec'; printf ' %q' "${command[@]}"; fi)
echo "== Nix \$(nix --version | sed 's/.* //') (Debian $suite): a store with history (scripts/store-history.sh)"
bash scripts/store-history.sh
echo "== Nix \$(nix --version | sed 's/.* //') (Debian $suite), root, no daemon"
go build -o /tmp/testsummary ./scripts/testsummary
status=0
go test -json -count=1 -timeout 30m$( (( ${#run[@]} )) && printf ' %q' "${run[@]}") ${pkgs[*]} | /tmp/testsummary || status=1
if [ "\$CRFF_REAL_CUDA" != skip ] && [ -z "${CRFF_TEST_PKGS:-}" ]; then
  go test -json -count=1 -run '^TestRealTreeNarHash\$' ./tests/realcuda | /tmp/testsummary || status=1
fi
if [ -n "$daemon" ]; then
  echo "== Nix \$(nix --version | sed 's/.* //'): the CLI as an unprivileged user through nix-daemon"
  bash scripts/test-daemon.sh || status=1
fi
exit \$status
EOF

# A pid namespace too: /proc shows this run's processes alone (the
# interrupt tests look for leftover builders by name).
unshare --mount --propagation private --pid --fork -- "$repo/scripts/test-nix.sh" --inside "$root" "$tmp" /tmp/run.sh "${binds[@]}"
