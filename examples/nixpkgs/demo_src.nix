{ buildRedist }:
buildRedist {
  redistName = "sample";
  pname = "demo_src";

  outputs = [
    "out"
    "include"
  ];
}
