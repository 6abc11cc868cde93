#!/usr/bin/env bash
# Build the default soname index of the vendored-library check
# (lib/sonameindex/debian-bookworm-main.sonames, docs/vendored.md) from
# Debian's `main` Contents index, bookworm, amd64.
#
#   scripts/build-soname-index.sh [OUT] [WORKDIR]
#
# apt fetches the Contents index with a configuration of this script's own
# under WORKDIR (sources, lists, a Contents index target; no dpkg status):
# the machine's apt sources and state are neither read nor changed, except
# that the mirror is the first one of the machine's Debian sources, read at
# run time. The Contents file (about 50 MB compressed) stays in WORKDIR.
#
# Kept: the file names of shared libraries in a lib directory
# (lib/, usr/lib/, and any folder below them: plugin folders included),
# named lib*.so or lib*.so.<version>. A name outside the folders the
# dynamic linker searches (a plugin: qt6/plugins/imageformats/libqgif.so)
# keeps its folder's name (`libqgif.so imageformats/`). Then, per library
# and folder, only the shortest name: libfoo.so.1.2.3 is dropped when
# libfoo.so.1 is there (the soname is the shorter name in Debian's layout),
# and libfoo.so when a versioned name is. One name a line, sorted
# (LC_ALL=C), after a header that gives the source and the date.
set -euo pipefail
out=${1:-lib/sonameindex/debian-bookworm-main.sonames}
work=${2:-${TMPDIR:-/tmp}/crff-soname-index}
suite=bookworm component=main arch=amd64
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# mirror prints the first URI of the machine's Debian sources (read only).
mirror() {
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 || true)
  if [ -z "$uri" ]; then
    uri=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\/debian\)\/\?[[:space:]].*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1 || true)
  fi
  if [ -z "$uri" ]; then
    echo "build-soname-index: no Debian mirror in the machine's apt sources" >&2
    exit 1
  fi
  echo "$uri"
}

mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=$keyring] $(mirror) $suite $component" > "$work/sources.list"
# The Contents index target (apt-file declares the same one for itself).
cat > "$work/apt.conf" <<'CONF'
Acquire::IndexTargets::deb::Contents-deb {
  MetaKey "$(COMPONENT)/Contents-$(ARCHITECTURE)";
  ShortDescription "Contents-$(ARCHITECTURE)";
  Description "$(RELEASE)/$(COMPONENT) $(ARCHITECTURE) Contents (deb)";
  KeepCompressed "true";
};
CONF
apt=(-c "$work/apt.conf" -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=-
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o Dir::State::status=/dev/null -o "APT::Architecture=$arch" -o APT::Architectures::="$arch"
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Languages=none)
apt-get "${apt[@]}" update -qq
contents=$(apt-get "${apt[@]}" indextargets --format '$(FILENAME)' 'Identifier: Contents-deb' "Architecture: $arch" | head -n1)
if [ -z "$contents" ]; then
  echo "build-soname-index: apt fetched no Contents index" >&2
  exit 1
fi
# The date of the index: the Release file's Date field.
release=$(apt-get "${apt[@]}" indextargets --format '$(FILENAME)' 'Identifier: Packages' | head -n1)
date=$(sed -n 's/^Date: //p' "$(dirname "$release")"/*_InRelease 2>/dev/null | head -n1)

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# FOLDER<TAB>NAME, FOLDER empty for a folder the dynamic linker searches
# (lib/, usr/lib/ and their <triplet>/, lib32/, lib64/, libx32/).
/usr/lib/apt/apt-helper cat-file "$contents" |
  awk '{ p = $1; if (p !~ /^(usr\/)?lib(32|64|x32)?\//) next
         n = split(p, parts, "/"); f = parts[n]
         if (f !~ /^lib[^\/]*\.so(\.[0-9][0-9A-Za-z._+-]*)?$/) next
         d = parts[n - 1]
         linker = (n == 2) || (n == 3 && parts[1] == "usr") || (d ~ /-linux-gnu/ && (n == 3 || n == 4 && parts[1] == "usr"))
         printf "%s\t%s\n", (linker ? "" : d "/"), f }' |
  LC_ALL=C sort -u > "$tmp"
# Per folder, keep the shortest name per library: drop NAME.so.X.Y when
# NAME.so.X is kept, and NAME.so when any NAME.so.* is. A name on the
# linker's path drops its folder-bound lines. Sorted input puts every
# prefix right before its extensions.
{
  echo "# Sonames of shared libraries that Debian $suite ($component, $arch) ships."
  echo "# Source: Debian's Contents-$arch index of $suite/$component, Release date: ${date:-unknown}."
  echo "# Built by scripts/build-soname-index.sh on $(date -u +%Y-%m-%d). Format: docs/vendored.md."
  echo "# NAME alone: in a folder the dynamic linker searches; NAME FOLDER/: only in folders of that name (plugins)."
  echo "#! provider Debian $suite $component"
  awk -F '\t' '
    function stem(f) { sub(/\.so(\..*)?$/, ".so", f); return f }
    { dir[NR] = $1; name[NR] = $2; byStem[$1 "\t" stem($2)]++; if ($1 == "") onPath[$2] = 1 }
    END {
      for (i = 1; i <= NR; i++) {
        d = dir[i]; f = name[i]
        if (d != "" && f in onPath) continue
        if (f ~ /\.so$/ && byStem[d "\t" f] > 1) continue
        keep = 1
        g = f
        while (g ~ /\.so\./ && match(g, /\.[0-9A-Za-z_+-]+$/)) {
          g = substr(g, 1, RSTART - 1)
          if ((d "\t" g) in seen) { keep = 0; break }
        }
        if (!keep) continue
        seen[d "\t" f] = 1
        if (d == "") print f; else print f " " d
      }
    }' "$tmp" | LC_ALL=C sort -u
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "build-soname-index: $(grep -vc '^#' "$out") lines in $out" >&2
