// Package nixrun drives the Nix pipeline from the CLI: it writes a small
// Nix expression over the library in nix/, evaluates which store paths the
// entries' detections will have, builds them with nix-build (passing -j,
// --keep-going, builders and options through), and reads what was built.
package nixrun

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Runner runs Nix commands.
type Runner struct {
	// NixLib is the directory holding pipeline.nix (the repository's nix/).
	NixLib string
	// Detector is the static binary the derivations use as builder.
	Detector string
	// Options are passed to every Nix command as --option NAME VALUE.
	Options [][2]string
	// BuildArgs are passed to nix-build only (-j, --keep-going, --builders).
	BuildArgs []string
	// Stderr receives Nix's progress and build logs.
	Stderr io.Writer
}

// Manifest is one manifest to process.
type Manifest struct {
	RedistName string
	Version    string
	Path       string
	BaseURL    string
}

// Entry is one archive's detection, as the pipeline names it.
type Entry struct {
	Manifest string `json:"manifest"` // the manifest's version
	Redist   string `json:"redist"`
	Package  string `json:"package"`
	Platform string `json:"platform"`
	Variant  string `json:"variant"`
	OutPath  string `json:"out"` // the detect derivation's output (a JSON file)
	DrvPath  string `json:"drv"`
}

// ID names the entry in messages.
func (e Entry) ID() string {
	return fmt.Sprintf("%s %s/%s/%s", e.Manifest, e.Package, e.Platform, e.Variant)
}

// FindNixLib returns dir when it holds pipeline.nix, else looks for
// nix/pipeline.nix in the working directory and its parents.
func FindNixLib(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "pipeline.nix")); err != nil {
			return "", fmt.Errorf("--nix-lib %s: no pipeline.nix there", dir)
		}
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "nix", "pipeline.nix")); err == nil {
			return filepath.Join(d, "nix"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no nix/pipeline.nix in the working directory or its parents: run from the repository or pass --nix-lib (or set CRFF_NIX_LIB)")
		}
	}
}

// CheckStatic fails unless path is a statically linked executable: inside
// the sandbox there is no dynamic loader.
func CheckStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("detector %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("detector %s is dynamically linked; the sandboxed builds need a static binary (build with CGO_ENABLED=0, or pass --detector)", path)
		}
	}
	return nil
}

func nixString(s string) string {
	return strconv.Quote(s) // Go's quoting is valid Nix for the paths and URLs we pass
}

// expression is a Nix expression for the entries of the manifests: a list
// of { manifest, package, platform, variant, features } with features the
// detect derivation. Paths are interpolated as strings so nothing is
// copied to the store but the manifests.
func (r *Runner) expression(ms []Manifest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "let p = (import (/. + %s)) { detector = /. + %s; system = builtins.currentSystem; };\n", nixString(r.NixLib+"/pipeline.nix"), nixString(r.Detector))
	b.WriteString("  entriesOf = m: let f = p.manifestFeatures m; in\n")
	b.WriteString("    builtins.concatLists (builtins.attrValues (builtins.mapAttrs (pkg: platforms:\n")
	b.WriteString("      builtins.concatLists (builtins.attrValues (builtins.mapAttrs (platform: variants:\n")
	b.WriteString("        builtins.attrValues (builtins.mapAttrs (variant: d: { manifest = m.version; redist = m.redistName; package = pkg; inherit platform variant; features = d.features; }) variants)\n")
	b.WriteString("      ) platforms))) f.entries));\n")
	b.WriteString("in builtins.concatLists [\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "  (entriesOf { redistName = %s; version = %s; manifest = /. + %s; baseUrl = %s; })\n",
			nixString(m.RedistName), nixString(m.Version), nixString(m.Path), nixString(m.BaseURL))
	}
	b.WriteString("]\n")
	return b.String()
}

func (r *Runner) optionArgs() []string {
	var args []string
	for _, o := range r.Options {
		args = append(args, "--option", o[0], o[1])
	}
	return args
}

// Entries evaluates the manifests and returns every entry with the store
// path its detection will have. Evaluation errors (unknown manifest keys)
// fail here, before anything is built.
func (r *Runner) Entries(ctx context.Context, ms []Manifest) ([]Entry, error) {
	wrapped := "map (e: { inherit (e) manifest redist package platform variant; out = e.features.outPath; drv = e.features.drvPath; }) (" + r.expression(ms) + ")"
	args := append([]string{"--eval", "--strict", "--json", "-E", wrapped}, r.optionArgs()...)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "nix-instantiate", args...)
	cmd.Stdout, cmd.Stderr = &out, r.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: nix-instantiate: %w", err)
	}
	var entries []Entry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		return nil, fmt.Errorf("evaluate the pipeline: %w", err)
	}
	return entries, nil
}

// Build builds every entry's detection. With --keep-going among
// BuildArgs, a failure leaves the others built; the returned error only
// says that nix-build failed, the caller checks which outputs exist.
func (r *Runner) Build(ctx context.Context, ms []Manifest) error {
	expr := "map (e: e.features) (" + r.expression(ms) + ")"
	args := append([]string{"--no-out-link", "-E", expr}, r.BuildArgs...)
	args = append(args, r.optionArgs()...)
	cmd := exec.CommandContext(ctx, "nix-build", args...)
	cmd.Stdout = io.Discard
	cmd.Stderr = r.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("nix-build: %w", err)
	}
	return nil
}

// Closure instantiates the manifests' derivations and lists the output
// paths of everything the entries need (fetches, unpacks, detections).
// Taken before a build, it tells --cleanup what the run added.
func (r *Runner) Closure(ctx context.Context, ms []Manifest) ([]string, error) {
	expr := "map (e: e.features) (" + r.expression(ms) + ")"
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "nix-instantiate", append([]string{"-E", expr}, r.optionArgs()...)...)
	cmd.Stdout, cmd.Stderr = &out, r.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("nix-instantiate: %w", err)
	}
	drvs := strings.Fields(out.String())
	if len(drvs) == 0 {
		return nil, nil
	}
	req, err := exec.CommandContext(ctx, "nix-store", append([]string{"-qR"}, drvs...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("nix-store -qR: %w", err)
	}
	var all []string
	for _, p := range strings.Fields(string(req)) {
		if strings.HasSuffix(p, ".drv") {
			all = append(all, p)
		}
	}
	outs, err := exec.CommandContext(ctx, "nix-store", append([]string{"-q", "--outputs"}, all...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("nix-store -q --outputs: %w", err)
	}
	return strings.Fields(string(outs)), nil
}

// Delete removes the given store paths, one at a time so that a path
// something else still needs (and so Nix refuses to delete) does not stop
// the rest. It returns how many were deleted.
func Delete(ctx context.Context, paths []string) int {
	deleted := 0
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		cmd := exec.CommandContext(ctx, "nix-store", "--delete", p)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if cmd.Run() == nil {
			deleted++
		}
	}
	return deleted
}
