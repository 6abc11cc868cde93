// Package vendored finds the third-party libraries NVIDIA ships inside
// its archives (Qt, Boost, ICU, OpenSSL...): a shared library is vendored
// when a free distribution ships its name (a soname index,
// lib/sonameindex) and no package of NVIDIA's manifests provides it in
// lib/. It reads detection results (the facts detect records per library:
// soname, needed libraries, version definitions, .comment strings) and
// decides here, after detect, so that the rules and the index can change
// without detecting again. docs/vendored.md states the rules.
package vendored
