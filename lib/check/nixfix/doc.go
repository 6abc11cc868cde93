// Package nixfix repairs Nixpkgs cuda-modules package files: the
// smallest edits to a buildRedist call's outputs list (removing what
// ends up empty, adding what the build needs, in the branch of a
// lib.optionals that applies), allowFHSReferences and
// includeRemoveStubsFromRunpathHook that make every platform's and CUDA
// version's build pass (lib/buildredist's rules), leaving every other
// byte alone; new package files for packages that have none; and the
// unified diff of a change. It reads Nix with a small tokenizer (strings,
// comments, brackets: enough to find the outputs list, its "++"
// operands and the bindings of buildRedist's set, in the forms
// buildRedist { ... } and buildRedist (finalAttrs: { ... })), and
// refuses, saying why, what it cannot edit safely. Which branch applies
// in which case comes from the evaluation (pkgeval): the lists of the
// branches that apply, concatenated, are what the file declared there.
package nixfix
