// Package fixrun runs check-nixpkgs --fix over a packages directory: the
// edits nixfix makes and the new files it writes are made in a copy of
// the directory, parsed (nix-instantiate --parse), evaluated and checked
// there (pkgeval, nixpkgscheck), and written back only file by file, each
// only if it still holds the bytes the run read, compared right before
// the rename: a file a maintainer changed meanwhile is named and left
// alone, and every other file is still fixed. No file is written through
// a symbolic link. The command (cmd) only prints the diff and the
// findings and picks the exit code.
package fixrun
