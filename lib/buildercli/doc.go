// Package buildercli is the command line of the pipeline's builder
// programs (cmd/cuda-redist-detector, cmd/cuda-redist-aggregate): the
// dispatch of a command by its name, the exit statuses (0, 1 for a failure,
// 2 for a misuse, with the usage), the log to stderr, and flag sets whose
// errors are misuses. It imports the standard library and pflag alone:
// it is in both programs' import closures, and an edit to it rebuilds
// every derivation they build (docs/design.md).
package buildercli
