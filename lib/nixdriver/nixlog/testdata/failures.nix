# Derivations that fail in the ways a pipeline run does, for capture.sh:
# a builder that prints its own error and exits 1 (as the unpack of a
# truncated archive does), builtin:fetchurl of a closed port, of a host
# that cannot resolve and of a scheme Nix does not know, and a
# derivation whose input failed; and two that succeed meanwhile. `salt`
# makes every capture build anew.
{ salt }:
let
  sh = "/bin/sh";
  fetch = name: url: derivation {
    name = "${name}-${salt}";
    builder = "builtin:fetchurl";
    system = "builtin";
    inherit url;
    outputHashMode = "flat";
    outputHashAlgo = "sha256";
    outputHash = "0000000000000000000000000000000000000000000000000000";
  };
  broken = derivation {
    name = "unpack-broken-${salt}";
    system = builtins.currentSystem;
    builder = sh;
    args = [
      "-c"
      ("echo reading archive.tar.xz; "
        + "echo 'error: unpack archive.tar.xz: corrupt or truncated archive: unexpected EOF' >&2; "
        + "exit 1")
    ];
  };
  # Builds that succeed while the others fail (capture.sh runs 4 at once).
  ok = name: derivation {
    name = "${name}-${salt}";
    system = builtins.currentSystem;
    builder = sh;
    args = [ "-c" "echo working; /bin/sleep 1; echo done > $out" ];
  };
in {
  inherit broken;
  ok-a = ok "ok-a";
  ok-b = ok "ok-b";
  closed = fetch "closed-port" "http://127.0.0.1:9/archive.tar.xz";
  unresolvable = fetch "unresolvable" "http://no-such-host.invalid/archive.tar.xz";
  scheme = fetch "wrong-scheme" "htps://127.0.0.1/archive.tar.xz";
  dependent = derivation {
    name = "detect-dependent-${salt}";
    system = builtins.currentSystem;
    builder = sh;
    args = [ "-c" "echo ${broken} > $out" ];
  };
}
