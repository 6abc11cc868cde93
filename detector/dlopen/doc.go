// Package dlopen finds the libraries an ELF shared library may load at
// run time (dlopen) that its dynamic section does not name: the entries
// of its .note.dlopen (systemd's ELF dlopen metadata) and the library
// names and printf-style name templates of its read-only data, each with
// its evidence and a confidence. docs/runtime-dependencies.md gives the
// rules, why each kind of string counts as what, and the limits.
package dlopen
