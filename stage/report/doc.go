// Package report builds the release report of one redist from the
// aggregate directories the pipeline writes (index.json, detail.json):
// outputs per package and platform, GPU coverage (SASS and PTX), the
// soname dependency graph between packages, and the changes against
// another release. Renderers (HTML, JSON) only read the model.
package report
