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
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.10
	github.com/tidwall/gjson v1.20.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.6 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/text v0.14.0 // indirect
)
