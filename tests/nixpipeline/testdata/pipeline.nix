# The features of one manifest (dir/manifest) through default.nix's
# pipeline, its archives fetched from dir with file:// (the tests make dir
# visible to the sandbox with extra-sandbox-paths).
{
  repo,
  detectorProgram,
  aggregateProgram,
  dir,
  manifest,
}:
(import (/. + repo + "/default.nix") {
  detectorProgram = /. + detectorProgram;
  aggregateProgram = /. + aggregateProgram;
}).pipeline.manifestFeatures
  {
    redistName = "broken";
    version = "1.0.0";
    manifest = /. + dir + "/${manifest}";
    baseUrl = "file://${dir}";
  }
