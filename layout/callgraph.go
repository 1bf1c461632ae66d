// Weighted call graph: a basic-block profile and the calls in each block -> caller->callee edge weights (the paper's section 3.2).

package layout

import "sort"

// A CallGraph is the weighted call graph (WCG) of a profile: for each
// block, for each direct call instruction in it, the edge <caller,
// callee> gains the block's weight. Calls through procedure pointers
// have no edge; they are counted.
type CallGraph struct {
	N int // procedures (nodes), the indices of Program.Procs
	// Edges maps a directed edge {caller, callee} to its weight
	// (executions of its call instructions). Self-calls are kept here;
	// the orderings ignore them.
	Edges map[[2]int]float64
	// Weight is each procedure's weight: instructions executed in it.
	Weight []float64
	// Size is each procedure's size in bytes.
	Size []uint64
	// DirectCalls and IndirectCalls count the executed call instructions
	// by kind (weighted by the profile); the paper reports the share of
	// the indirect ones (0.9% to 12% of its benchmarks' calls).
	DirectCalls, IndirectCalls float64
}

// CallGraph builds the weighted call graph of prof over p.
func (p *Program) CallGraph(prof Profile) *CallGraph {
	g := &CallGraph{N: len(p.Procs), Edges: map[[2]int]float64{}, Weight: p.ProcWeights(prof), Size: make([]uint64, len(p.Procs))}
	for i, q := range p.Procs {
		g.Size[i] = q.Size
	}
	for i, b := range p.Blocks {
		w := prof[i]
		if w == 0 {
			continue
		}
		for _, c := range b.Callees {
			g.Edges[[2]int{b.Proc, c}] += w
			g.DirectCalls += w
		}
		g.IndirectCalls += w * float64(b.Indirect)
	}
	return g
}

// An edge is an undirected weighted edge, for sorting.
type edge struct {
	a, b int // a < b
	w    float64
}

// undirected returns g's edges without direction (the weights of a->b
// and b->a summed) and without self-edges, heaviest first; ties go to
// the lower procedure indices, so the order is deterministic.
func (g *CallGraph) undirected() []edge {
	m := map[[2]int]float64{}
	for e, w := range g.Edges {
		a, b := e[0], e[1]
		if a == b || w == 0 {
			continue
		}
		if a > b {
			a, b = b, a
		}
		m[[2]int{a, b}] += w
	}
	es := make([]edge, 0, len(m))
	for k, w := range m {
		es = append(es, edge{k[0], k[1], w})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].w != es[j].w {
			return es[i].w > es[j].w
		}
		if es[i].a != es[j].a {
			return es[i].a < es[j].a
		}
		return es[i].b < es[j].b
	})
	return es
}
