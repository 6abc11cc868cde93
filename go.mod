module github.com/nix-cuda/cuda-redist-find-features

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	github.com/therootcompany/xz v1.0.1
	github.com/ulikunitz/xz v0.5.17
)

require (
	github.com/hashicorp/go-version v1.9.0
	github.com/klauspost/compress v1.18.2
	github.com/nix-community/go-nix v0.0.0-20250101154619-4bdde671e0a1
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tidwall/gjson v1.20.0
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
