package fixrun

import (
	"errors"
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
// licence, and the pname switch of a renamed cuda package with its alias
// in the aliases file (addAlias).
func (fr *Fix) lineageFixes(findings []nixpkgscheck.Finding) error {
	for _, f := range findings {
		var edit func(string) (string, error)
		switch f.Kind {
		case nixpkgscheck.KindLicence:
			if attr := fr.opts.Plan.LicenceFix(f); attr != "" {
				edit = func(text string) (string, error) { return nixfix.SetLicence(text, attr) }
			}
		case nixpkgscheck.KindRenamed:
			if sw, ok := fr.opts.Plan.RenameFix(f); ok {
				fr.addAlias(f, sw.From, sw.To)
				edit = func(text string) (string, error) { return nixfix.SwitchPname(text, sw.From, sw.To, sw.Since) }
			}
		}
		if edit == nil {
			continue
		}
		text, err := fr.current(f.File)
		if err != nil {
			return err
		}
		out, err := edit(text)
		if err != nil {
			why := err.Error()
			if r := (*nixfix.Refusal)(nil); errors.As(err, &r) {
				why = r.Reason
			}
			fr.refusals = append(fr.refusals, nixpkgscheck.Finding{Level: nixpkgscheck.LevelWarning, Kind: KindLineageNotFixed, File: f.File,
				Message: f.Kind + " hint not written, the file's other fixes made: " + why})
			continue
		}
		if out != fr.Old[f.File] {
			fr.New[f.File] = out
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
