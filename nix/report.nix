/**
  The release report of aggregates of one redist: a directory with
  `report.html` (static, self-contained) and `report.json` (schema:
  `cuda-redist-find-features print-feature-schema --format report`).

  Like the other derivations of the pipeline, its builder is a static
  binary: no stdenv, no shell, no Graphviz (the report lays out
  its dependency graph itself), so the closure is the binary plus the
  aggregates. The binary is the CLI, by design (docs/design.md): the
  report is the CLI's `report`, so a change of the CLI rebuilds it (and
  nothing else of the pipeline).

  # Inputs

  `cliProgram`
  : Path of the static CLI (cuda-redist-find-features), or a derivation
    with it in bin/.

  `system`
  : The system to build on.

  `name`
  : Names the store path, e.g. `"cuda-12.8.0"`.

  `features`
  : Aggregate directories (`manifestFeatures` results) of one redist.

  `against`
  : Version the newest release is compared with; default: the one before
    it among `features` (no changes section with a single release).

  # Type

  ```
  report :: {
    cliProgram :: path | derivation;
    system :: string;
    name :: string;
    features :: [ derivation ];
    against :: string | null;
  } -> derivation
  ```

  # Examples
  :::{.example}
  ## `report` usage example

  ```nix
  import ./nix/report.nix {
    inherit cliProgram system;
    name = "sample";
    features = [ sample."1.0.0" sample."2.0.0" ];
  }
  => «derivation /nix/store/…-sample-report.drv»
  ```

  :::
*/
{
  cliProgram,
  system,
  name,
  features,
  against ? null,
}:
derivation {
  name = "${name}-report";
  inherit system;
  builder =
    if builtins.isAttrs cliProgram then
      "${cliProgram}/bin/cuda-redist-find-features"
    else
      "${cliProgram}";
  args = [
    "report"
    "--out"
    (placeholder "out")
  ]
  ++ (if against == null then [ ] else [ "--against" against ])
  ++ map (f: "${f}") features;
  # Small and cheap: not worth shipping to a remote builder.
  preferLocalBuild = true;
  allowSubstitutes = false;
}
