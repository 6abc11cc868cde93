#!/usr/bin/env bash
# What a user sees for four failures, on each Nix version: a truncated
# archive (its sha256 matching), a fetch offline (a host that does not
# resolve), a package file with a missing attribute, and a package file
# with a syntax error. Prints each command and its output, for reading
# (no verdict: the tests assert; this shows).
#
#   scripts/show-failures.sh            # the host's Nix, then 2.26 and 2.34
#   scripts/show-failures.sh 2.34       # one version (2.8: the host's)
#   CRFF_NIX_VERSIONS="2.8 2.34" scripts/show-failures.sh
#   scripts/show-failures.sh 2.34-daemon  # as a user not in trusted-users,
#                                         # through a nix-daemon (sandbox on)
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  --here) ;;
  --daemon)
    # Inside a root file system, as root: a user and a daemon of this
    # run's own (as scripts/test-daemon.sh), then --here as the user.
    user=crff-user
    id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
    daemon=$(mktemp -d)
    chmod 755 "$daemon"
    export NIX_CONF_DIR=$daemon/conf NIX_DAEMON_SOCKET_PATH=$daemon/socket/socket
    mkdir -p "$NIX_CONF_DIR" "$daemon/socket"
    install -d -o "$user" "$daemon/tmp"
    printf 'build-users-group = nixbld\nsandbox = true\n' > "$NIX_CONF_DIR/nix.conf"
    nix-daemon > "$daemon/log" 2>&1 &
    pid=$!
    trap 'kill $pid; wait $pid || true; rm -rf "$daemon"' EXIT
    for _ in $(seq 100); do
      [ -S "$NIX_DAEMON_SOCKET_PATH" ] && break
      sleep 0.1 # a hang guard: the socket appears within a second
    done
    home=$(getent passwd "$user" | cut -d: -f6)
    echo "######## as $user (not in trusted-users) through nix-daemon"
    setpriv --reuid="$user" --regid="$user" --init-groups --reset-env -- \
      env HOME="$home" PATH="$PATH" NIX_CONF_DIR="$NIX_CONF_DIR" TMPDIR="$daemon/tmp" \
      NIX_DAEMON_SOCKET_PATH="$NIX_DAEMON_SOCKET_PATH" GOCACHE="$home/.cache/go-build" \
      GOFLAGS="-mod=vendor -buildvcs=false" GOTOOLCHAIN=local scripts/show-failures.sh --here
    exit
    ;;
  *)
    versions=${1:-${CRFF_NIX_VERSIONS:-2.8 2.26 2.34}}
    for v in $versions; do
      case $v in
        2.8) "$0" --here ;;
        *-daemon) scripts/test-nix.sh "${v%-daemon}" -- scripts/show-failures.sh --daemon ;;
        *) scripts/test-nix.sh "$v" -- scripts/show-failures.sh --here ;;
      esac
    done
    exit 0
    ;;
esac

repo=$(pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The three programs side by side, as the package installs them: the
# detector and the aggregate builder are the builders a user's run has.
scripts/build-programs.sh "$work/bin"
export PATH=$work/bin:$PATH CRFF_NIX_LIB=$repo/nix
echo "######## Nix $(nix --version | sed 's/.* //')"

# show TITLE COMMAND...: the command as typed (paths under the scratch
# directory as /tmp/w), then its stderr and stdout, and its exit code.
show() {
  local title=$1
  shift
  echo
  echo "== $title"
  echo "\$ ${*//$work//tmp/w}"
  local code=0
  (cd "$work" && "$@") > "$work/out" 2>&1 || code=$?
  sed "s|$work|/tmp/w|g" "$work/out"
  echo "(exit $code)"
}

# A truncated archive whose sha256 (and size) the manifest matches: the
# fetch succeeds, the unpack fails.
cp -r sample "$work/trunc"
archive=cuda_demo_rt/linux-x86_64/cuda_demo_rt-linux-x86_64-1.0.42-archive.tar.xz
head -c 600 "sample/$archive" > "$work/trunc/$archive"
# (sed, not a JSON tool: the root file systems have none; the sample's
# manifests are one key a line)
old=$(sha256sum "sample/$archive" | cut -d' ' -f1)
old_md5=$(md5sum "sample/$archive" | cut -d' ' -f1)
new=$(sha256sum "$work/trunc/$archive" | cut -d' ' -f1)
new_md5=$(md5sum "$work/trunc/$archive" | cut -d' ' -f1)
sed -i -e "s/$old/$new/" -e "s/$old_md5/$new_md5/" \
  -e "/$new_md5/,/\"size\"/s/\"size\": \"[0-9]*\"/\"size\": \"600\"/" "$work/trunc/redistrib_1.0.0.json"
show "a truncated archive" cuda-redist-find-features process-manifests --offline \
  --version 1.0.0 "file://$work/trunc" "$work/trunc"

# Offline: the archives' host does not resolve (.invalid never does), and
# no archive is in the store already (each sha256 is one never seen).
cp -r sample "$work/offline"
sed -i -E 's/("sha256": ")([0-9a-f]{63})[0-9a-f]"/\10\2"/' "$work/offline/redistrib_1.0.0.json"
show "an offline fetch" cuda-redist-find-features process-manifests --offline \
  --version 1.0.0 https://archives.example.invalid/sample "$work/offline"

# A package file with a missing attribute, and one with a syntax error,
# against the intact sample.
cp -r sample "$work/sample"
mkdir -p "$work/packages"
cp examples/nixpkgs/libdemo_variant.nix examples/nixpkgs/libdemo_versioned.nix "$work/packages/"
show "a package file with a missing attribute" cuda-redist-find-features check-nixpkgs \
  --offline --hints=false --version 1.0.0 --url "file://$work/sample" "$work/packages" "$work/sample"
rm "$work/packages/libdemo_variant.nix"
printf '{ buildRedist }:\nbuildRedist {\n  pname = "cuda_demo_rt"\n  redistName = "sample";\n}\n' \
  > "$work/packages/cuda_demo_rt.nix"
show "a package file with a syntax error" cuda-redist-find-features check-nixpkgs \
  --offline --hints=false --version 1.0.0 --url "file://$work/sample" "$work/packages" "$work/sample"
