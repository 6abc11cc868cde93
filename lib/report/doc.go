// Package report builds the release report of one redist from the
// aggregate directories the pipeline writes (index.json, detail.json):
// what each package's buildRedist call declares (buildRedist.json's
// declarations, as print-buildredist prints them) and the outputs per
// platform, GPU coverage (SASS and PTX), the soname dependency graph
// between packages, and the changes against another release. Renderers
// (HTML, JSON) only read the model.
package report
