package fixrun

import (
	"fmt"

	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixfix"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/nixpkgscheck"
	"github.com/nix-cuda/cuda-redist-find-features/lib/check/pkgeval"
)

// KindLineageNotFixed is a licence or rename hint --fix could not write
// (the file's pname is computed, say): a warning, the file's other fixes
// are made.
const KindLineageNotFixed = "lineageNotFixed"

// lineageFixes writes what the lineage and licence hints of the check
// say safely: meta.license where the licence table knows the manifest's
// licence, and a renamed cuda package's move with its alias (rename).
func (fr *Fix) lineageFixes(findings []nixpkgscheck.Finding) error {
	// Renames first: a licence edit of a moved file goes to its new file.
	for _, f := range findings {
		if sw, ok := fr.opts.Plan.RenameFix(f); ok {
			if err := fr.rename(f, sw); err != nil {
				return err
			}
		}
	}
	for _, f := range findings {
		attr := ""
		if f.Kind == nixpkgscheck.KindLicence {
			attr = fr.opts.Plan.LicenceFix(f)
		}
		if attr == "" {
			continue
		}
		file := fr.target(f.File)
		text, err := fr.current(file)
		if err != nil {
			return err
		}
		out, err := nixfix.SetLicence(text, attr)
		if err != nil {
			fr.lineageNotFixed(f, err)
			continue
		}
		if out != fr.Old[file] {
			fr.New[file] = out
		}
	}
	return nil
}

// current is a file's text as the fix has it so far.
func (fr *Fix) current(file string) (string, error) {
	if text, ok := fr.New[file]; ok {
		return text, nil
	}
	if text, ok := fr.Old[file]; ok {
		return text, nil
	}
	data, err := pkgeval.ReadFile(fr.PackagesDir, file)
	if err != nil {
		return "", fmt.Errorf("fix: %w", err)
	}
	fr.Old[file] = string(data)
	return fr.Old[file], nil
}
