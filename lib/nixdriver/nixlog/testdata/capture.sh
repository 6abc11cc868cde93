#!/bin/sh
# Captures Nix's structured log (--log-format internal-json) of the
# failures in failures.nix, and Nix's evaluation errors of eval/*.nix,
# with the Nix of the host or of a Debian root file system:
#   capture.sh 2.8                                  (the host's nix-bin)
#   capture.sh 2.26 /var/cache/crff-nix/rootfs-trixie
#   capture.sh 2.34 /var/cache/crff-nix/rootfs-unstable
# Writes build-VERSION.log here and ../../../check/pkgeval/testdata/
# nixerrors/VERSION/*.txt. Run as root; a root file system gets a
# private mount namespace, with /proc, /dev, /sys, this directory and a
# fresh store on tmpfs; the repository and a temporary directory are
# bound at the same paths (nothing of it outlives the run). The
# evaluation errors need Go (go test -c) on the host.
set -eu
version=$1
rootfs=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
errs=$repo/lib/check/pkgeval/testdata/nixerrors
mkdir -p "$errs/$version"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
	if [ -z "$rootfs" ]; then
		sh -c "$1"
		return
	fi
	unshare -m sh -c '
		r=$1
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mount --rbind /sys "$r/sys"
		mkdir -p "$r/nix" "$r$2" "$r$3"
		mount -t tmpfs tmpfs "$r/nix"
		mount --bind "$2" "$r$2"
		mount --bind "$3" "$r$3"
		chroot "$r" sh -c "$4"' sh "$rootfs" "$repo" "$tmp" "$1"
}
dir=$here
# A build log: the paths vary with the salt, so it is the same every run
# but for them.
run "cd $dir && nix-store --realise --keep-going -j 4 --option sandbox false --option build-users-group '' --option substituters '' --log-format internal-json \
	\$(nix-instantiate failures.nix --argstr salt $version) 2>$dir/build-$version.log >/dev/null || true"
# Evaluation errors, as the check's evaluator gets them from Nix: its
# test binary (static) writes them with CRFF_CAPTURE_NIXERRORS set.
(cd "$repo" && CGO_ENABLED=0 go test -tags capture -c -o "$tmp/pkgeval.test" ./lib/check/pkgeval)
run "cd $repo/lib/check/pkgeval && CRFF_CAPTURE_NIXERRORS=$errs/$version $tmp/pkgeval.test -test.run TestCaptureNixErrors -test.count=1"
