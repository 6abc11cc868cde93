//go:build crff_noembed

package nixlib

import "embed"

// files is empty: this build carries no library.
var files embed.FS

// Embedded says whether this binary carries the library.
const Embedded = false
