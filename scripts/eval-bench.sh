#!/usr/bin/env bash
# Evaluation cost of the whole bundled set: every derivation of every
# manifest in manifests/ and sample/ (fetch, unpack, detect per entry; the
# aggregates; the indexes), instantiated by forcing the drvPath of the
# top-level index. Prints wall time and peak memory of `nix-instantiate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
mkdir -p .cache
CGO_ENABLED=0 go build -trimpath -o .cache/cuda-redist-find-features ./cmd/cuda-redist-find-features
expr='let f = (import ./default.nix { detector = ./.cache/cuda-redist-find-features; system = "x86_64-linux"; }).features; in f.index.drvPath'
entries=$(nix-instantiate --eval --strict -E '
  let m = import ./nix/manifest.nix; d = ./manifests;
      rs = builtins.attrNames (builtins.readDir d);
      fs = r: builtins.filter (f: builtins.match "redistrib_.*" f != null) (builtins.attrNames (builtins.readDir (d + "/${r}")));
  in builtins.foldl'"'"' (n: r: builtins.foldl'"'"' (k: f: k + builtins.length (m.entries { name = f; manifest = builtins.fromJSON (builtins.readFile (d + "/${r}/${f}")); })) n (fs r)) 0 rs')
/usr/bin/time -f 'nix eval of the drvPath of everything: %e s wall, %M KB peak' \
  nix --extra-experimental-features nix-command eval --impure --raw --expr "$expr" >/dev/null
drv=$(nix --extra-experimental-features nix-command eval --impure --raw --expr "$expr")
echo "derivations: $(nix-store -qR "$drv" | grep -c '\.drv$')"
echo "entries in manifests/: $entries (x3 derivations each, plus aggregates and indexes)"
