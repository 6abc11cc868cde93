# One archive the Nix walker lists, as the one string the walker tests
# compare with the Go parser's (manifest_agree_test.go's archiveKeys).
e:
builtins.concatStringsSep "|" [
  e.package
  e.platform
  (if e.variant == null then "None" else e.variant)
  e.relativePath
  e.sha256
  e.version
  e.releaseInfo.name
  e.releaseInfo.license
  e.releaseInfo.licensePath
]
