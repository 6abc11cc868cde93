// Package download fetches NVIDIA manifests: it reads the index page of a
// redist (which links redistrib_<version>.json files), and downloads the
// chosen manifests in parallel, replacing local copies atomically and only
// with files that parse as manifests.
package download
