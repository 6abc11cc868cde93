//go:build !crff_noembed

package nixlib

import "embed"

//go:embed *.nix library-files.txt
var files embed.FS

// Embedded says whether this binary carries the library.
const Embedded = true
