package schema

import (
	"fmt"
	"maps"
	"sort"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

const (
	draft  = "https://json-schema.org/draft/2020-12/schema"
	baseID = "https://github.com/nix-cuda/cuda-redist-find-features/schemas/"
)

type obj = map[string]any

func str() obj               { return obj{"type": "string"} }
func strList() obj           { return obj{"type": "array", "items": str()} }
func nullableStrList() obj   { return obj{"type": []any{"array", "null"}, "items": str()} }
func ref(name string) obj    { return obj{"$ref": "#/$defs/" + name} }
func pattern(p string) obj   { return obj{"type": "string", "pattern": p} }
func mapOf(values any) obj   { return obj{"type": "object", "additionalProperties": values} }
func enumOf(vs []string) obj { return obj{"type": "string", "enum": vs} }
func closed(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// variantPattern names a CUDA variant: cuda12, cuda13.1 (lib/manifest).
const variantPattern = `^cuda[0-9]+(\.[0-9]+)?$`

// Manifest is the schema of redistrib_<version>.json.
func Manifest() map[string]any {
	top := obj{}
	for _, k := range manifest.Keys.Metadata {
		top[k] = str()
	}
	release := obj{
		"name":         str(),
		"license":      str(),
		"license_path": str(),
		"version":      str(),
		// "12", and from CUDA 13.1's cuda_compat a major.minor, "13.1".
		"cuda_variant": obj{"type": "array", "items": pattern(`^[0-9]+(\.[0-9]+)?$`)},
	}
	for _, p := range manifest.Keys.Platforms {
		release[p] = ref("platform")
	}
	leaf := obj{
		"relative_path": obj{"type": "string", "minLength": 1},
		"sha256":        pattern(`^[0-9a-f]{64}$`),
		"md5":           pattern(`^[0-9a-f]{32}$`),
		"size":          pattern(`^[0-9]+$`),
	}
	if len(leaf) != len(manifest.Keys.Leaf) {
		panic(fmt.Sprintf("schema: archive fields %v out of step with keys.json", manifest.Keys.Leaf))
	}
	return obj{
		"$schema":              draft,
		"$id":                  baseID + "manifest.json",
		"title":                "NVIDIA redistributable manifest (redistrib_<version>.json)",
		"type":                 "object",
		"properties":           top,
		"additionalProperties": ref("release"),
		"$defs": obj{
			"release": closed(release, "version"),
			"archive": closed(leaf, "relative_path", "sha256"),
			"variants": obj{
				"type":                 "object",
				"propertyNames":        pattern(variantPattern),
				"additionalProperties": ref("archive"),
				"minProperties":        1,
			},
			// An archive that may hold variants beside its own fields
			// (cuDNN 9.27's windows-arm64).
			"archiveAndVariants": obj{
				"type":                 "object",
				"properties":           leaf,
				"patternProperties":    obj{variantPattern: ref("archive")},
				"additionalProperties": false,
				"required":             []string{"relative_path", "sha256"},
			},
			// An object with relative_path is one archive (and perhaps
			// variants beside it); otherwise it maps CUDA variants to
			// archives (v3 manifests).
			"platform": obj{"if": obj{"required": []string{"relative_path"}}, "then": ref("archiveAndVariants"), "else": ref("variants")},
		},
	}
}

// Formats are the names Feature accepts.
var Formats = []string{"legacy", "index", "detect", "detail", "report", "buildredist", "dependencies", "finding", "coverage", "unpacked-hashes"}

// Feature is the schema of one output format.
func Feature(format string) (map[string]any, error) {
	if format == "report" {
		return report(), nil
	}
	defs := featureDefs()
	doc := obj{"$schema": draft, "$defs": defs}
	switch format {
	case "legacy":
		legacyDoc(doc)
	case "index":
		indexDoc(doc, defs)
	case "detect":
		detectDoc(doc)
	case "detail":
		detailDoc(doc)
	case "buildredist":
		buildredistDoc(doc)
	case "dependencies":
		dependenciesDoc(doc)
	case "finding":
		findingDoc(doc)
	case "coverage":
		coverageDoc(doc)
	case "unpacked-hashes":
		unpackedHashesDoc(doc)
	default:
		return nil, fmt.Errorf("unknown format %q (one of %v)", format, Formats)
	}
	return doc, nil
}

// booleans is an object of a boolean property for each name.
func booleans(names []string) obj {
	o := obj{}
	for _, name := range names {
		o[name] = obj{"type": "boolean"}
	}
	return o
}

// featureDefs are the definitions the formats share: a library, one
// archive's detection, the buildRedist facts.
func featureDefs() obj {
	outputs := booleans(features.OutputNames)
	grouped := obj{"oneOf": []any{strList(), mapOf(strList())}}
	archList := obj{"type": "array", "items": pattern(ArchPattern)}
	nonNegative := obj{"type": "integer", "minimum": 0}
	library := closed(obj{
		"path":              str(),
		"kind":              enumOf([]string{"shared", "static", "object", "linkerScript", "danglingSymlink", "other"}),
		"soname":            str(),
		"needed":            strList(),
		"cudaArchitectures": archList,
		"sassArchitectures": archList,
		"ptxArchitectures":  archList,
		"fatbinEntries": obj{"type": "array", "items": closed(obj{
			"kind":       nonNegative,
			"sm":         nonNegative,
			"flags":      nonNegative,
			"headerSize": obj{"type": "integer", "minimum": 64},
			"count":      obj{"type": "integer", "minimum": 1},
		}, "kind", "sm", "flags", "headerSize", "count")},
		"fatbinEntriesOmitted": obj{"type": "integer", "minimum": 1},
		"fatbinWarnings":       strList(),
		"versionDefinitions":   strList(),
		"comments":             strList(),
		"runtimeLoads": obj{"type": "array", "items": closed(obj{
			"name":            str(),
			"glob":            str(),
			"confidence":      enumOf([]string{"declared", "high", "medium", "low"}),
			"feature":         str(),
			"description":     str(),
			"priority":        str(),
			"evidence":        obj{"type": "array", "minItems": 1, "items": ref("loadEvidence")},
			"evidenceOmitted": obj{"type": "integer", "minimum": 1},
		}, "name", "confidence", "evidence")},
		"runtimeLoadsOmitted": obj{"type": "integer", "minimum": 1},
		"stub":                obj{"type": "boolean"},
		"error":               str(),
	}, "path", "kind", "soname", "needed", "cudaArchitectures", "sassArchitectures", "ptxArchitectures", "fatbinEntries", "stub")
	detect := closed(obj{
		"outputs":                closed(outputs, features.OutputNames...),
		"cudaArchitectures":      grouped,
		"providedLibs":           grouped,
		"neededLibs":             grouped,
		"libLayout":              enumOf([]string{"none", "files", "subdirs", "mixed"}),
		"cudaVersionsInLib":      strList(),
		"headers":                strList(),
		"pythonModules":          strList(),
		"libraries":              obj{"type": "array", "items": ref("library")},
		"narHash":                ref("narHash"),
		"buildRedist":            ref("buildRedistFacts"),
		"buildRedistByCudaMajor": mapOf(ref("buildRedistFacts")),
		"tree": closed(obj{
			"files": strList(), "symlinks": strList(), "emptyDirs": strList(), "usrFiles": strList(), "usrOnlyInPkgConfigVars": strList(),
		}, "files", "symlinks", "emptyDirs", "usrFiles", "usrOnlyInPkgConfigVars"),
		"licence": licenceText(),
	}, "outputs", "cudaArchitectures", "providedLibs", "neededLibs", "libLayout", "cudaVersionsInLib", "headers", "pythonModules", "libraries", "narHash")
	detect["description"] = "Paths (headers, pythonModules, libraries[].path, tree.*, buildRedist paths) are '/'-separated and relative to the archive root. " +
		features.NameEscaping
	defs := obj{
		"buildRedistFacts": closed(obj{
			"outputs":       obj{"type": "array", "items": enumOf(features.BuildRedistOutputs)},
			"hasStubs":      obj{"type": "boolean"},
			"stubsDirs":     strList(),
			"fhsReferences": closed(obj{"count": obj{"type": "integer", "minimum": 0}, "paths": strList()}, "count", "paths"),
			"cudaMajorDir":  obj{"type": "boolean"},
			"globstar":      obj{"type": "boolean"},
		}, "outputs", "hasStubs", "stubsDirs", "fhsReferences", "cudaMajorDir", "globstar"),
		"narHash":      pattern(`^sha256-[A-Za-z0-9+/]{43}=$`),
		"library":      library,
		"loadProvider": loadProvider(),
		"loadEvidence": loadEvidence(),
		"detect":       detect,
	}
	return defs
}

// indexLeaf is one archive of the index: its features, hashes and
// buildRedist facts.
func indexLeaf() obj {
	indexOutputs := append([]string(nil), features.OutputNames...)
	sort.Strings(indexOutputs)
	return closed(obj{
		"feature": closed(obj{
			"outputs":           obj{"type": "array", "items": enumOf(indexOutputs), "prefixItems": []any{obj{"const": "out"}}, "minItems": 1, "uniqueItems": true},
			"cudaVersionsInLib": strList(),
		}, "outputs"),
		"narHash":      ref("narHash"),
		"sha256":       pattern(`^[0-9a-f]{64}$`),
		"relativePath": str(),
		"buildRedist":  ref("buildRedistFacts"),
		"runtimeLoads": indexLoads(),
	}, "feature", "narHash", "sha256")
}

// legacyDoc fills the document of format "legacy".
func legacyDoc(doc obj) {
	doc["$id"] = baseID + "feature-legacy.json"
	doc["title"] = "feature_<version>.json: package -> platform -> outputs"
	maps.Copy(doc, mapOf(mapOf(closed(obj{"outputs": closed(booleans(features.LegacyOutputNames), features.LegacyOutputNames...)}, "outputs"))))
}

// indexDoc fills the document of format "index".
func indexDoc(doc, defs obj) {
	doc["$id"] = baseID + "feature-index.json"
	doc["title"] = "index: redistName -> version -> package -> {releaseInfo, packages: platform -> variant -> leaf}"
	pkg := closed(obj{
		"releaseInfo": closed(obj{"license": str(), "licensePath": str(), "name": str(), "version": str()}, "version"),
		"packages":    mapOf(mapOf(ref("indexLeaf"))),
	}, "releaseInfo", "packages")
	defs["indexLeaf"] = indexLeaf()
	maps.Copy(doc, mapOf(mapOf(mapOf(pkg))))
}

// detectDoc fills the document of format "detect".
func detectDoc(doc obj) {
	doc["$id"] = baseID + "feature-detect.json"
	doc["title"] = "detect: the features of one unpacked archive"
	doc["$ref"] = "#/$defs/detect"
}

// detailDoc fills the document of format "detail".
func detailDoc(doc obj) {
	doc["$id"] = baseID + "feature-detail.json"
	doc["title"] = "detail.json: package -> platform -> variant -> {sha256, relativePath, features}"
	entry := closed(obj{"sha256": pattern(`^[0-9a-f]{64}$`), "relativePath": str(), "features": ref("detect"),
		"runtimeLoads": obj{"type": "array", "items": resolvedLoad()}}, "sha256", "relativePath", "features")
	maps.Copy(doc, mapOf(mapOf(mapOf(entry))))
}

// buildredistDoc fills the document of format "buildredist".
func buildredistDoc(doc obj) {
	doc["$id"] = baseID + "feature-buildredist.json"
	doc["title"] = "buildRedist.json (and print-buildredist --json): package -> what its buildRedist call should declare"
	maps.Copy(doc, mapOf(buildRedistDecl()))
}

// dependenciesDoc fills the document of format "dependencies".
func dependenciesDoc(doc obj) {
	doc["$id"] = baseID + "feature-dependencies.json"
	doc["title"] = "print-dependencies --json: per package, platform and variant, the sonames needed from other packages and their providers"
	need := closed(obj{"soname": str(), "providers": nullableStrList()}, "soname", "providers")
	row := closed(obj{
		"package": str(), "platform": str(), "variant": str(),
		"needs":        obj{"type": []any{"array", "null"}, "items": need},
		"unresolved":   nullableStrList(),
		"runtimeLoads": obj{"type": "array", "items": resolvedLoad()},
	}, "package", "platform", "variant", "needs", "unresolved")
	doc["type"] = "array"
	doc["items"] = row
}

// findingDoc fills the document of format "finding".
func findingDoc(doc obj) {
	doc["$id"] = baseID + "feature-finding.json"
	doc["title"] = "check-nixpkgs --json: one finding per line, then the summary as the last line"
	count := obj{"type": "integer", "minimum": 0}
	finding := closed(obj{
		"level":       enumOf([]string{"error", "warning", "hint", "failure"}),
		"kind":        str(),
		"package":     str(),
		"platform":    str(),
		"variant":     str(),
		"version":     str(),
		"declared":    strList(),
		"needed":      strList(),
		"message":     str(),
		"file":        str(),
		"path":        str(),
		"files":       strList(),
		"count":       count,
		"runtimeLoad": findingRuntimeLoad(),
	}, "level", "kind", "message")
	names := []string{"files", "checked", "notChecked", "cases", "archives", "errors", "warnings", "hints", "failures", "refusedManifests"}
	counts := obj{}
	for _, n := range names {
		counts[n] = count
	}
	// A run that stopped before its summary (a usage error, no nix,
	// an unwritable temporary directory, a signal) ends with its error.
	stopped := closed(obj{"error": closed(obj{
		"message":  str(),
		"exitCode": obj{"type": "integer", "minimum": 1},
		"signal":   enumOf([]string{"SIGINT", "SIGTERM"}),
	}, "message", "exitCode")}, "error")
	summary := closed(obj{"summary": obj{"oneOf": []any{closed(counts, names...), stopped}}}, "summary")
	doc["oneOf"] = []any{finding, summary}
}

// coverageDoc fills the document of format "coverage".
func coverageDoc(doc obj) {
	doc["$id"] = baseID + "feature-coverage.json"
	doc["title"] = "coverage --json: what the GPUs of Nixpkgs cudaCapabilities entries get from each archive and library"
	maps.Copy(doc, coverageReport())
}

// unpackedHashesDoc fills the document of format "unpacked-hashes".
func unpackedHashesDoc(doc obj) {
	doc["$id"] = baseID + "unpacked-hashes.json"
	doc["title"] = "unpacked-hashes.json (format 2): the archive's sha256 -> its unpacked tree's NAR hash and the relative_path it was recorded under (pins the unpack as a fixed-output derivation)"
	record := closed(obj{
		"relativePath": pattern(manifest.SafeRelativePath.String()),
		"narHash":      pattern(manifest.NarHashSRI.String()),
	}, "relativePath", "narHash")
	maps.Copy(doc, closed(obj{"format": obj{"const": manifest.UnpackedHashesFormat}, "trees": mapOf(record)}, "format", "trees"))
	doc["properties"].(obj)["trees"].(obj)["propertyNames"] = pattern(manifest.SHA256Hex.String())
}

// buildRedistDecl is one package's entry of buildRedist.json, which the
// report's releases carry too.
func buildRedistDecl() obj {
	nullableList := nullableStrList()
	return closed(obj{
		"outputs":                           nullableList,
		"outputsByPlatform":                 mapOf(mapOf(strList())),
		"nixExpression":                     str(),
		"includeRemoveStubsFromRunpathHook": obj{"type": "boolean"},
		"allowFHSReferences":                obj{"type": "boolean"},
		"fhsReferences":                     nullableList,
		"runtimeDependencies":               packageLoads(),
	}, "outputs", "outputsByPlatform", "nixExpression", "includeRemoveStubsFromRunpathHook", "allowFHSReferences", "fhsReferences")
}

// licenceText is features.LicenceText: the licence file at the top of a
// tree (its hash and first line; its size alone over the bound).
func licenceText() obj {
	return closed(obj{"path": str(), "size": obj{"type": "integer", "minimum": 0}, "sha256": pattern(`^[0-9a-f]{64}$`), "firstLine": str()}, "path", "size")
}
