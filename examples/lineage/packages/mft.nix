# NVLink firmware tools, shipped with CUDA's redists up to 13.2.
{ buildRedist }:
buildRedist {
  redistName = "cuda";
  pname = "mft";

  outputs = [ "out" ];

  meta.description = "NVLink firmware tools";
}
