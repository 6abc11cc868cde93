package report

import (
	"sort"
)

// The dependency graph is laid out by the report itself, not by Graphviz:
// the report derivation's closure stays the static binary alone (no
// Graphviz, no fonts, no stdenv), the output is byte-for-byte
// reproducible, and these graphs are small (tens of packages) and shallow.
// The layout is the classic layered one, kept simple: longest-path layers
// (a package's layer is one more than the deepest thing it needs), then a
// few sweeps of barycentre ordering within each column to cut crossings.
// It reads left to right: the highest layer (what nothing else needs) is
// the leftmost column, and every arrow points right, from a package to
// what it needs. Edges spanning several columns are straight lines (no
// dummy nodes).

// Box is a laid-out node.
type Box struct {
	Node
	Layer, Order int
	X, Y, W, H   int
}

// Line is a laid-out edge, from the needing box (left) to the providing
// one (right); only the back edge of a cycle points left.
type Line struct {
	Edge
	X1, Y1, X2, Y2 int
}

// Layout is a drawn graph.
type Layout struct {
	Boxes         []Box
	Lines         []Line
	Width, Height int
}

const (
	charWidth = 7 // px per character at the SVG's 12px monospace font
	boxHeight = 22
	padX      = 8
	colGap    = 60
	rowGap    = 12
	margin    = 10
)

// LayoutGraph places the nodes of g in columns by longest path.
func LayoutGraph(g Graph) Layout {
	layer, columns := layers(g)
	orderColumns(g, layer, columns)
	lay := placeBoxes(g, columns)
	boxes := map[string]*Box{}
	for i := range lay.Boxes {
		boxes[lay.Boxes[i].Name] = &lay.Boxes[i]
	}
	for _, e := range g.Edges {
		from, to := boxes[e.From], boxes[e.To]
		// From the needing box's right side to the provider's left side;
		// a back edge of a cycle goes left, from left side to right side.
		l := Line{Edge: e, X1: from.X + from.W, Y1: from.Y + from.H/2, X2: to.X, Y2: to.Y + to.H/2}
		if to.Layer >= from.Layer {
			l.X1, l.X2 = from.X, to.X+to.W
		}
		lay.Lines = append(lay.Lines, l)
	}
	return lay
}

// layers gives each node its layer, one more than the deepest thing it
// needs (a cycle's back edge does not count), and the columns of each
// layer's nodes in g's (sorted) order.
func layers(g Graph) (map[string]int, [][]string) {
	needs := map[string][]string{}
	for _, e := range g.Edges {
		needs[e.From] = append(needs[e.From], e.To)
	}
	layer := map[string]int{}
	onStack := map[string]bool{}
	var depth func(string) int
	depth = func(n string) int {
		if l, ok := layer[n]; ok {
			return l
		}
		if onStack[n] { // a cycle: the back edge does not push further
			return -1
		}
		onStack[n] = true
		l := 0
		for _, t := range needs[n] {
			l = max(l, depth(t)+1)
		}
		onStack[n] = false
		layer[n] = l
		return l
	}
	maxLayer := 0
	for _, n := range g.Nodes {
		maxLayer = max(maxLayer, depth(n.Name))
	}
	columns := make([][]string, maxLayer+1)
	for _, n := range g.Nodes { // g.Nodes is sorted: the initial order
		columns[layer[n.Name]] = append(columns[layer[n.Name]], n.Name)
	}
	return layer, columns
}

// orderColumns reorders each column by the barycentre of its nodes'
// neighbours in the column next to it, in sweeps right to the deeper
// columns, then back.
func orderColumns(g Graph, layer map[string]int, columns [][]string) {
	neighbours := map[string][]string{}
	for _, e := range g.Edges {
		neighbours[e.From] = append(neighbours[e.From], e.To)
		neighbours[e.To] = append(neighbours[e.To], e.From)
	}
	pos := map[string]float64{}
	setPos := func(col []string) {
		for i, n := range col {
			pos[n] = float64(i)
		}
	}
	for _, col := range columns {
		setPos(col)
	}
	reorder := func(c, ref int) {
		bary := map[string]float64{}
		for _, n := range columns[c] {
			sum, cnt := 0.0, 0
			for _, m := range neighbours[n] {
				if layer[m] == ref {
					sum += pos[m]
					cnt++
				}
			}
			bary[n] = pos[n]
			if cnt > 0 {
				bary[n] = sum / float64(cnt)
			}
		}
		sort.SliceStable(columns[c], func(i, j int) bool { return bary[columns[c][i]] < bary[columns[c][j]] })
		setPos(columns[c])
	}
	maxLayer := len(columns) - 1
	for sweep := 0; sweep < 4; sweep++ {
		for c := 1; c <= maxLayer; c++ {
			reorder(c, c-1)
		}
		for c := maxLayer - 1; c >= 0; c-- {
			reorder(c, c+1)
		}
	}
}

// placeBoxes lays the columns out left to right, dependents first (the
// highest layer leftmost), each as wide as its longest name.
func placeBoxes(g Graph, columns [][]string) Layout {
	external := map[string]bool{}
	for _, n := range g.Nodes {
		external[n.Name] = n.External
	}
	var lay Layout
	x := margin
	for c := len(columns) - 1; c >= 0; c-- {
		col := columns[c]
		colWidth := 0
		for _, n := range col {
			colWidth = max(colWidth, len(n)*charWidth+2*padX)
		}
		for i, n := range col {
			b := Box{Node: Node{Name: n, External: external[n]}, Layer: c, Order: i,
				X: x, Y: margin + i*(boxHeight+rowGap), W: colWidth, H: boxHeight}
			lay.Boxes = append(lay.Boxes, b)
			lay.Height = max(lay.Height, b.Y+b.H+margin)
		}
		x += colWidth + colGap
	}
	lay.Width = x - colGap + margin
	return lay
}
