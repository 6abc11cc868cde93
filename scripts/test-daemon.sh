#!/usr/bin/env bash
# The CLI as NixOS users run it: a normal user, not in trusted-users (its
# default, root alone), building through a nix-daemon. Run as root by
# scripts/test-nix.sh --daemon, inside its root file system (a machine
# of its own: it adds a user and starts a daemon).
#
# 1. A daemon with the sandbox on (nix.conf: build-users-group = nixbld,
#    sandbox = true, nothing else): the tests that run the whole CLI
#    (process-manifests over the sample against the golden files, and the
#    walkthrough: process-manifests, diff, print-buildredist,
#    check-nixpkgs, --fix, report), run as the user; no sandbox warning.
# 2. The same daemon with Debian bookworm's `sandbox = false`:
#    process-manifests warns once that the detections run unsandboxed and
#    what to change in nix.conf, and still builds.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
user=crff-user
work=$(mktemp -d /tmp/crff-daemon-XXXXXX)
chmod 755 "$work"
daemon_pid=
stop_daemon() {
  if [ -n "$daemon_pid" ]; then
    kill "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=
  fi
}
trap 'stop_daemon; rm -rf "$work"' EXIT

id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"

# Both the daemon and the user's Nix read this nix.conf (NIX_CONF_DIR), as
# both read /etc/nix/nix.conf on a real machine.
export NIX_CONF_DIR=$work/conf
mkdir -p "$NIX_CONF_DIR"
# A socket of this run's own (a second run in the same root file system
# would otherwise take over the first one's).
export NIX_DAEMON_SOCKET_PATH=$work/daemon-socket/socket
mkdir -p "$(dirname "$NIX_DAEMON_SOCKET_PATH")"
start_daemon() { # sandbox value
  stop_daemon
  printf 'build-users-group = nixbld\nsandbox = %s\n' "$1" > "$NIX_CONF_DIR/nix.conf"
  rm -f "$NIX_DAEMON_SOCKET_PATH"
  nix-daemon > "$work/daemon-$1.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 100); do
    [ -S "$NIX_DAEMON_SOCKET_PATH" ] && return 0
    sleep 0.1 # a hang guard: the socket appears within a second
  done
  echo "test-daemon: nix-daemon made no socket in 10 s:" >&2
  cat "$work/daemon-$1.log" >&2
  exit 1
}

# Built as root (the Go caches are root's); run as the user.
go test -c -o "$work/nixpipeline.test" ./tests/nixpipeline
# The CLI with the two builders beside it, as `go install ./cmd/...` puts
# them: the CLI finds them there and builds nothing itself.
scripts/build-programs.sh "$work"
home=$(getent passwd "$user" | cut -d: -f6)
as_user() {
  setpriv --reuid="$user" --regid="$user" --init-groups --reset-env -- \
    env HOME="$home" PATH="$PATH" NIX_CONF_DIR="$NIX_CONF_DIR" TMPDIR="$work/tmp-$user" \
    NIX_DAEMON_SOCKET_PATH="$NIX_DAEMON_SOCKET_PATH" \
    GOCACHE="$home/.cache/go-build" GOFLAGS="-mod=vendor -buildvcs=false" GOTOOLCHAIN=local \
    CRFF_REQUIRE_ALL=1 CRFF_REQUIRE_NIX=1 "$@"
}
install -d -o "$user" "$work/tmp-$user"

status=0
start_daemon true
echo "== as $user through nix-daemon (sandbox = true): whoami $(as_user whoami), trusted-users $(as_user nix --extra-experimental-features nix-command show-config 2>/dev/null | sed -n 's/^trusted-users = //p')"
if ! as_user nix-store --add "$repo/README.md" >/dev/null; then
  echo "FAIL: $user cannot reach the store through the daemon" >&2
  exit 1
fi
(cd "$repo/tests/nixpipeline" && as_user "$work/nixpipeline.test" -test.count=1 -test.v \
  -test.run '^(TestProcessManifestsMatchesGolden|TestWalkthrough|TestCheckNixpkgsDrift)$') \
  > "$work/tests.log" 2>&1 || status=1
grep -E '^(--- |ok|PASS|FAIL)' "$work/tests.log" || true
if [ $status != 0 ]; then cat "$work/tests.log"; fi
if grep -q 'detections run unsandboxed' "$work/tests.log"; then
  echo "FAIL: a sandbox warning with sandbox = true in nix.conf" >&2
  status=1
fi
# The CLI passes no restricted setting to an untrusted user's daemon
# (lib/nixdriver/untrusted.go), which would warn on every Nix command.
if grep 'ignoring the client-specified setting' "$work/tests.log"; then
  echo "FAIL: the CLI passed restricted settings through the daemon" >&2
  status=1
fi

start_daemon false
echo "== as $user through nix-daemon (sandbox = false, Debian bookworm's nix.conf)"
sample=$work/sample
cp -r "$repo/sample" "$sample"
chown -R "$user" "$sample"
# (not --quiet: that shows errors alone, and this is a warning)
if ! as_user "$work/cuda-redist-find-features" process-manifests --offline --nix-lib "$repo/nix" \
  --version 1.0.0 "file://$sample" "$sample" > "$work/out" 2> "$work/err"; then
  echo "FAIL: process-manifests with sandbox = false" >&2
  cat "$work/err" >&2
  status=1
fi
if grep 'ignoring the client-specified setting' "$work/err"; then
  echo "FAIL: the CLI passed restricted settings through the daemon" >&2
  status=1
fi
warnings=$(grep -c 'detections run unsandboxed' "$work/err" || true)
if [ "$warnings" != 1 ]; then
  echo "FAIL: $warnings sandbox warnings, want 1:" >&2
  cat "$work/err" >&2
  status=1
else
  grep 'detections run unsandboxed' "$work/err"
fi
if ! cmp "$sample/feature_1.0.0.json" "$repo/tests/golden/sample/1.0.0/feature_1.0.0.json"; then
  status=1
fi
[ $status = 0 ] && echo "PASS: the CLI as $user through nix-daemon"
exit $status
