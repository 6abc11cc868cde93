/**
  Checks run by `nix flake check`: the pipeline over the bundled sample,
  compared with the golden files in tests/golden, and the evaluation tests
  of the manifest walker (nix/tests.nix). Every check is a sandboxed
  derivation whose builder is the binary's `compare`: it fails the
  build on any difference and logs the first ones. No stdenv, so they run
  offline. The binary is the CLI, by design (docs/design.md): a check
  tests the CLI, so it reruns when the CLI changes.

  # Inputs

  `cliProgram`
  : The static CLI's package (`bin/cuda-redist-find-features`).

  `features`
  : The bundled feature attributes
    (`nixLib.bundled { detectorProgram, aggregateProgram, cliProgram, system }`).

  `system`
  : The system the checks build on, e.g. `"x86_64-linux"`.

  `golden`
  : The directory of expected results (tests/golden).

  # Type

  ```
  checks :: {
    cliProgram :: Derivation;
    features :: AttrSet;
    system :: String;
    golden :: Path;
  } -> AttrsOf Derivation
  ```

  # Examples
  :::{.example}
  ## `checks` usage example

  ```nix
  (import ./nix/checks.nix {
    inherit cliProgram features system;
    golden = ./tests/golden;
  }).eval
  => «derivation /nix/store/…-check-eval.drv»
  ```

  :::
*/
{
  cliProgram,
  features,
  system,
  golden,
}:
let
  builder = "${cliProgram}/bin/cuda-redist-find-features";

  /**
    A check that succeeds when `actual` (a file or directory) equals
    `expected` byte for byte; otherwise its build fails and the log shows
    the first differences.

    # Inputs

    `name`
    : The check's name (the derivation is `check-<name>`).

    `actual`
    : What was produced: a store path, path or derivation.

    `expected`
    : What it must equal.

    # Type

    ```
    sameAs :: String -> (Path | Derivation) -> (Path | Derivation) -> Derivation
    ```
  */
  sameAs =
    name: actual: expected:
    derivation {
      name = "check-${name}";
      inherit system builder;
      args = [
        "compare"
        "--touch"
        (placeholder "out")
        "${expected}"
        "${actual}"
      ];
    };

  evalTests = import ./tests.nix { inherit golden; };

  # Each test's value as JSON, a line per test, one file for what the expressions gave and
  # one for what the tests expect: the check's builder compares the two, so
  # a mismatch fails the build and its log names the test (a test whose
  # expression throws fails evaluation, naming it too).
  /**
    A file with one JSON object per line, `{ <test name> = <value>; }`,
    the value being each test's `field` (`"expr"` or `"expected"`).

    # Inputs

    `name`
    : The file's name in the store.

    `field`
    : Which value of each test to write.

    # Type

    ```
    asJSON :: String -> String -> Path
    ```
  */
  asJSON =
    name: field:
    builtins.toFile name (
      builtins.concatStringsSep "" (
        map (t: builtins.toJSON { ${t.name} = t.${field}; } + "\n") evalTests
      )
    );
in
{
  sample-1_0_0 = sameAs "sample-1.0.0" features.sample."1.0.0" (golden + "/sample/1.0.0");
  sample-2_0_0 = sameAs "sample-2.0.0" features.sample."2.0.0" (golden + "/sample/2.0.0");
  sample-index = sameAs "sample-index" features.sample.index (golden + "/sample/index.json");
  eval = sameAs "eval" (asJSON "eval-actual.json" "expr") (asJSON "eval-expected.json" "expected");
}
