#!/usr/bin/env bash
# Install, from Debian's packages, what a profile needs and this machine
# lacks. No service is started or left enabled.
#
#   install-deps.sh sample   what scripts/sample.sh uses: Nix (nix-bin)
#                            (Debian 12: nix-bin is 3 MB; with every dependency
#                            a minimal system may lack, at most 42 MB)
#   install-deps.sh test     (the default) what scripts/test.sh uses: the
#                            sample's, and patchelf (an oracle), bzip2 and
#                            xz (fixtures, benchmarks), gcc and binutils
#                            (toolchain-built fixtures), g++ (nvcc 13.5's
#                            host compiler), pip and unzip (CUDA 13 wheels),
#                            a static busybox (the shell of the offline
#                            nixpkgs stand-in's builds), OpenSSH's server and
#                            client (the remote-builder test runs its own
#                            sshd on 127.0.0.1 with its own configuration and
#                            keys; the system's ssh service is left disabled),
#                            and chromium (the report's headless-browser
#                            test) (Debian 12: at most 435 MB of packages with
#                            their dependencies, chromium the most of it)
#
#   install-deps.sh PROFILE --list   print the profile's packages, one a
#                                    line, installing nothing
set -euo pipefail
profile=${1:-test}
list=${2:-}
need=()
if [ "$list" = --list ]; then
  # Every package of the profile, as if none were installed.
  command() { return 1; }
  ldd() { return 1; }
  no_files=1
fi
present() { [ -z "${no_files:-}" ] && [ -x "$1" ]; }
command -v nix-build >/dev/null || need+=(nix-bin)
case $profile in
sample) ;;
test)
  command -v patchelf >/dev/null || need+=(patchelf)
  command -v bzip2 >/dev/null || need+=(bzip2)
  command -v xz >/dev/null || need+=(xz-utils)
  command -v gcc >/dev/null || need+=(gcc)
  command -v g++ >/dev/null || need+=(g++)
  command -v pip3 >/dev/null || need+=(python3-pip)
  command -v unzip >/dev/null || need+=(unzip)
  command -v objcopy >/dev/null || need+=(binutils)
  command -v git >/dev/null || need+=(git)
  # GNU patch: busybox's reads no git rename header (the --fix diff's).
  patch --version 2>/dev/null | grep -q 'GNU patch' || need+=(patch)
  command -v bc >/dev/null || need+=(bc)
  present /bin/busybox && ! ldd /bin/busybox >/dev/null 2>&1 || need+=(busybox-static)
  present /usr/sbin/sshd || need+=(openssh-server)
  command -v ssh >/dev/null || need+=(openssh-client)
  command -v chromium >/dev/null || need+=(chromium)
  present /usr/bin/time || need+=(time)
  ;;
*)
  echo "install-deps: unknown profile '$profile' (want sample or test)" >&2
  exit 2
  ;;
esac
if [ "$list" = --list ]; then
  printf '%s\n' "${need[@]}"
  exit 0
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "install-deps ($profile): installing ${need[*]}" >&2
  apt-get update -qq
  # No service is started (policy-rc.d 101): the tests run their own sshd.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  # openssh-server's package enables its service for the next boot:
  # undo that, the tests need only the binary.
  if [[ " ${need[*]} " == *" openssh-server "* ]]; then
    if command -v deb-systemd-helper >/dev/null; then
      deb-systemd-helper disable ssh.service ssh.socket >/dev/null 2>&1 || true
    fi
    update-rc.d ssh disable >/dev/null 2>&1 || true
  fi
fi
