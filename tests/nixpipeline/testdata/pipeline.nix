# The features of one manifest (dir/manifest) through default.nix's
# pipeline, its archives fetched from dir with file:// (the tests make dir
# visible to the sandbox with extra-sandbox-paths).
{
  repo,
  program,
  dir,
  manifest,
}:
(import (/. + repo + "/default.nix") { program = /. + program; }).pipeline.manifestFeatures {
  redistName = "broken";
  version = "1.0.0";
  manifest = /. + dir + "/${manifest}";
  baseUrl = "file://${dir}";
}
