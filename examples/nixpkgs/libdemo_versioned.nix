{
  buildRedist,
  cuda_demo_rt,
}:
buildRedist {
  redistName = "sample";
  pname = "libdemo_versioned";

  outputs = [
    "out"
    "include"
    "lib"
  ];

  buildInputs = [ cuda_demo_rt ];
}
