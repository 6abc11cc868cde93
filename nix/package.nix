/**
  The static cuda-redist-find-features binary, built with nixpkgs'
  buildGoModule from the committed vendor/ tree (vendorHash = null; CI
  checks that vendor/ is current with `go mod vendor` and `git diff`).
*/
{
  buildGoModule,
  src,
  version,
}:
buildGoModule {
  pname = "cuda-redist-find-features";
  inherit src version;
  vendorHash = null;
  subPackages = [ "cmd/cuda-redist-find-features" ];
  env.CGO_ENABLED = "0";
  ldflags = [
    "-s"
    "-w"
    "-X main.version=${version}"
  ];
  # The test suite needs Nix, gcc and objcopy; CI runs it outside this build.
  doCheck = false;
  meta = {
    description = "Find the features (outputs, GPU architectures, sonames, NAR hashes) of NVIDIA CUDA redistributables";
    mainProgram = "cuda-redist-find-features";
  };
}
