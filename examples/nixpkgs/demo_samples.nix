{ buildRedist }:
buildRedist {
  redistName = "sample";
  pname = "demo_samples";

  outputs = [
    "out"
    "samples"
    "python"
    "lib"
  ];
}
