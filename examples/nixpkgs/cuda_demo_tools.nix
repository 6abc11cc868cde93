{
  buildRedist,
}:
buildRedist {
  redistName = "sample";
  pname = "cuda_demo_tools";

  outputs = [
    "out"
    "bin"
  ];

  meta.mainProgram = "demo-tool";
}
