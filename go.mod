module github.com/nix-cuda/cuda-redist-find-features

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/therootcompany/xz v1.0.1
	github.com/ulikunitz/xz v0.5.17
)
