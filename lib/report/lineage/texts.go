package lineage

import "sort"

// TextGroup is the packages of a release whose licence files are one
// text.
type TextGroup struct {
	SHA256    string   `json:"sha256"`
	FirstLine string   `json:"firstLine"`
	Packages  []string `json:"packages"`
}

// GroupByText groups the packages of r with a known licence text by
// text, the largest group first (then by hash). Packages without a text
// are left out.
func GroupByText(r *Release) []TextGroup {
	by := map[string]*TextGroup{}
	for _, k := range sortedKeys(r.Packages) {
		t := r.Packages[k].Text
		if t == nil || t.SHA256 == "" {
			continue
		}
		g := by[t.SHA256]
		if g == nil {
			g = &TextGroup{SHA256: t.SHA256, FirstLine: t.FirstLine}
			by[t.SHA256] = g
		}
		g.Packages = append(g.Packages, k)
	}
	out := make([]TextGroup, 0, len(by))
	for _, g := range by {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Packages) != len(out[j].Packages) {
			return len(out[i].Packages) > len(out[j].Packages)
		}
		return out[i].SHA256 < out[j].SHA256
	})
	return out
}
