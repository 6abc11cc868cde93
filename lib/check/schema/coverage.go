package schema

// capabilityPattern matches a Nixpkgs cudaCapabilities entry: 8.9, 10.0f,
// 12.0a (lib/check/coverage.Parse).
const capabilityPattern = `^[0-9]{1,3}\.[0-9][af]?$`

// coverageReport is the schema of `coverage --json` and of a report
// release's coverage (lib/check/coverage.Report). Maps are keyed by the
// capabilities' names.
func coverageReport() obj {
	arch := pattern(ArchPattern)
	archList := obj{"type": "array", "items": arch}
	support := enumOf([]string{"sass", "ptx", "none", "noDeviceCode"})
	capMap := func(values any) obj {
		return obj{"type": "object", "propertyNames": pattern(capabilityPattern), "additionalProperties": values}
	}
	cell := closed(obj{"support": support, "targets": archList}, "support", "targets")
	library := closed(obj{"path": str(), "kind": str(), "coverage": capMap(cell)}, "path", "kind", "coverage")
	archive := closed(obj{
		"package": str(), "platform": str(), "variant": str(),
		"coverage":  capMap(support),
		"libraries": obj{"type": "array", "items": library},
	}, "package", "platform", "variant", "coverage", "libraries")
	gap := closed(obj{
		"package": str(), "platform": str(), "variant": str(), "library": str(),
		"capability": pattern(capabilityPattern), "sass": archList, "ptx": archList,
	}, "package", "platform", "variant", "library", "capability", "sass", "ptx")
	return closed(obj{
		"capabilities": obj{"type": "array", "items": pattern(capabilityPattern), "minItems": 1, "uniqueItems": true},
		"archives":     obj{"type": "array", "items": archive},
		"none":         obj{"type": "array", "items": gap},
	}, "capabilities", "archives", "none")
}
