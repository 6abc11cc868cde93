{
  buildRedist,
  addDriverRunpath,
  cudaMajorMinorVersion,
}:
buildRedist (finalAttrs: {
  pname = "cuda_nvml_dev";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "stubs"
  ];

  propagatedBuildOutputs = [ finalAttrs.outputStubs ];
  includeRemoveStubsFromRunpathHook = true;
  allowFHSReferences = true;

  postPatch = ''
    sed -i 's|-lnvidia-ml|& -Wl,-rpath,${addDriverRunpath.driverLink}/lib|' \
      share/pkgconfig/nvidia-ml-${cudaMajorMinorVersion}.pc
  '';
})
