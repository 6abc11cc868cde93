{ backendStdenv, buildRedist }:
buildRedist {
  pname = "libdemo_" + backendStdenv.hostCudaSystem;
  redistName = "sample";

  outputs = [
    "out"
    "include"
    "lib"
    "static"
  ];

  autoPatchelfIgnoreMissingDeps = true;
}
