package schema

// ArchPattern matches a GPU target name as cuobjdump prints it: sm_ and
// the SM number, then nothing (generic), f (family-specific, CUDA 12.9+)
// or a (architecture-specific, CUDA 12.0+). docs/compatibility.md.
const ArchPattern = `^sm_[0-9]+[af]?$`

// report is the schema of report.json (lib/report's model), written by
// `cuda-redist-find-features report`.
func report() map[string]any {
	arch := pattern(ArchPattern)
	archList := obj{"type": "array", "items": arch}
	archive := closed(obj{
		"platform":           str(),
		"variant":            str(),
		"relativePath":       str(),
		"sha256":             str(),
		"narHash":            pattern(`^sha256-[A-Za-z0-9+/]{43}=$`),
		"outputs":            strList(),
		"outputsByCudaMajor": mapOf(strList()),
		"legacyOutputs":      strList(),
		"sass":               archList,
		"ptx":                archList,
		"topPtx":             obj{"anyOf": []any{arch, obj{"const": ""}}},
		"provides":           strList(),
		"needs":              strList(),
		"vendored": obj{"type": "array", "items": closed(obj{"name": str(), "upstream": str(), "path": str(), "provider": str()},
			"name", "upstream", "path", "provider")},
		"runtimeLoads": strList(),
	}, "platform", "variant", "relativePath", "sha256", "narHash", "outputs", "legacyOutputs", "sass", "ptx", "topPtx", "provides", "needs")
	pkg := closed(obj{
		"name":     str(),
		"version":  str(),
		"license":  str(),
		"archives": obj{"type": "array", "items": ref("archive")},
	}, "name", "version", "archives")
	graph := closed(obj{
		"nodes": obj{"type": "array", "items": closed(obj{"name": str(), "external": obj{"type": "boolean"}}, "name", "external")},
		"edges": obj{"type": "array", "items": closed(obj{"from": str(), "to": str(), "sonames": strList()}, "from", "to", "sonames")},
	}, "nodes", "edges")
	release := closed(obj{
		"version":       str(),
		"platforms":     strList(),
		"architectures": archList,
		"packages":      obj{"type": "array", "items": ref("package")},
		"buildRedist":   mapOf(buildRedistDecl()),
		"graph":         graph,
		"coverage":      coverageReport(),
		"licences":      obj{"type": "array", "items": closed(obj{"license": str(), "attr": str(), "packages": strList()}, "license", "attr", "packages")},
		"licenceTexts": obj{"type": "array", "items": closed(obj{"sha256": pattern(`^[0-9a-f]{64}$`), "firstLine": str(), "packages": strList()},
			"sha256", "firstLine", "packages")},
	}, "version", "platforms", "architectures", "packages", "buildRedist", "graph")
	boolean := obj{"type": "boolean"}
	archiveChange := closed(obj{
		"package": str(), "platform": str(), "variant": str(),
		"added": boolean, "removed": boolean,
		"outputsGained": strList(), "outputsLost": strList(),
		"sassGained": archList, "sassLost": archList,
		"ptxGained": archList, "ptxLost": archList,
		"sonamesAdded": strList(), "sonamesRemoved": strList(),
		"vendoredAdded": strList(), "vendoredRemoved": strList(),
		"runtimeLoadsAdded": strList(), "runtimeLoadsRemoved": strList(),
		"narHashChanged": boolean, "oldNarHash": str(), "newNarHash": str(), "version": str(),
	}, "package", "platform", "variant", "added", "removed", "outputsGained", "outputsLost",
		"sassGained", "sassLost", "ptxGained", "ptxLost", "sonamesAdded", "sonamesRemoved", "narHashChanged")
	changes := closed(obj{
		"old":             str(),
		"new":             str(),
		"packagesAdded":   strList(),
		"packagesRemoved": strList(),
		"archives":        obj{"type": "array", "items": ref("archiveChange")},
		"lineage":         ref("lineage"),
	}, "old", "new", "packagesAdded", "packagesRemoved", "archives")
	doc := closed(obj{
		"redist":       str(),
		"releases":     obj{"type": "array", "items": ref("release"), "minItems": 1},
		"changes":      changes,
		"capabilities": obj{"type": "array", "items": pattern(capabilityPattern), "minItems": 1, "uniqueItems": true},
		"runtimeLoadsSince": obj{"type": "array", "items": closed(obj{
			"package": str(),
			"load":    closed(obj{"name": str(), "provider": enumOf(providerKinds), "package": str()}, "name", "provider"),
			"since":   str(), "until": str(), "always": boolean, "versions": strList(),
		}, "package", "load", "since", "always", "versions")},
	}, "redist", "releases")
	doc["$schema"] = draft
	doc["$id"] = baseID + "report.json"
	doc["title"] = "report.json: a redist's releases (outputs, GPU coverage, soname graph) and the changes of the newest"
	doc["$defs"] = obj{"release": release, "package": pkg, "archive": archive, "archiveChange": archiveChange, "lineage": lineageSchema()}
	return doc
}

// lineageSchema is lib/report/lineage.Lineage: how the packages went from
// one release to the next.
func lineageSchema() obj {
	list := func(item obj) obj { return obj{"type": "array", "items": item} }
	elsewhere := closed(obj{"redist": str(), "version": str(), "package": str(), "evidence": str()}, "redist", "version", "package", "evidence")
	return closed(obj{
		"redist": str(), "old": str(), "new": str(),
		"added": list(closed(obj{"package": str(), "name": str(), "version": str(), "license": str(), "from": list(elsewhere)},
			"package", "name", "version", "license")),
		"dropped": list(closed(obj{"package": str(), "name": str(), "lastVersion": str(), "lastRelease": str(), "license": str(), "movedTo": list(elsewhere)},
			"package", "name", "lastVersion", "lastRelease", "license")),
		"renamed": list(closed(obj{"from": str(), "to": str(), "name": str(), "oldVersion": str(), "newVersion": str(), "evidence": strList()},
			"from", "to", "name", "oldVersion", "newVersion", "evidence")),
		"moves": list(closed(obj{"kind": enumOf([]string{"split", "merge", "move"}), "from": str(), "to": str(),
			"files":   list(closed(obj{"old": str(), "new": str(), "by": enumOf([]string{"path", "soname", "name"})}, "old", "new", "by")),
			"sonames": strList(), "evidence": strList()}, "kind", "from", "to", "files", "sonames", "evidence")),
		"licenceChanges": list(closed(obj{"package": str(), "from": str(), "old": str(), "new": str(), "oldAttr": str(), "newAttr": str(), "oldText": licenceText(), "newText": licenceText()},
			"package", "from", "old", "new", "oldAttr", "newAttr")),
	}, "redist", "old", "new", "added", "dropped", "renamed", "moves", "licenceChanges")
}
