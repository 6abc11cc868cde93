{
  lib,
  buildRedist,
  libcublas,
  libcusparse,
  libnvjitlink,
}:
buildRedist {
  pname = "libcusolver";
  redistName = "cuda";

  outputs = [
    "out"
    "dev"
    "include"
    "lib"
    "static"
    "stubs"
  ];

  # One input per CUDA library libcusolver.so.11 needs.
  buildInputs = [
    libnvjitlink
    (lib.getLib libcublas)
    (lib.getLib libcusparse)
  ];
}
