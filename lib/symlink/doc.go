// Package symlink resolves paths through symlinks inside a tree, the way
// the kernel does, without ever leaving the tree: unpack uses it to
// refuse links that escape, detect to follow links between files.
//
// The tree is held in memory as linked nodes, so a lookup costs one map
// access per component, never a rebuilt path, and each symlink is
// resolved once and remembered: resolving every link of a tree is linear
// in the total length of their targets, however the links chain. A hop
// budget per lookup (the kernel's 40) and a step budget per tree bound
// the work of hostile trees.
package symlink
