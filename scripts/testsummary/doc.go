// Command testsummary reads `go test -json` on stdin and prints what a
// reader of `go test` would want: each package's result line, the full
// output of every failed test, and at the end every skipped test with its
// reason, every check a test left out ("NOT CHECKED:" lines from
// tests/fixtures/testenv) and every failed test, then one closing line
// "N passed, N failed, N skipped". Nothing is skipped silently: scripts/test.sh pipes the
// whole suite through it. It exits 1 when a test, a package or a build
// failed.
package main
