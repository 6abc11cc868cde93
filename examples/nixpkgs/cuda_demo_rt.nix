# The runtime: headers, a shared and a static library, and a stub for
# linking without the driver.
{
  _cuda,
  buildRedist,
  lib,
}:
buildRedist (finalAttrs: {
  redistName = "sample";
  pname = "cuda_demo_rt";

  outputs = [
    "out"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # The stub is only for linking; nothing loads it at run time.
  includeRemoveStubsFromRunpathHook = false;

  meta = {
    description = "Demo runtime ${finalAttrs.version}";
    license = _cuda.lib.licenses.cuda;
    maintainers = with lib.maintainers; [ ];
  };
})
