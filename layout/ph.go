// Pettis-Hansen procedure ordering: a weighted call graph -> an order of procedures (the paper's ph_layout, after Pettis and Hansen, PLDI 1990).

package layout

import "sort"

// PettisHansen orders the procedures of g as Pettis and Hansen (1990,
// section 4.1) do, the algorithm of the paper's ph_layout:
//
//  1. Take the heaviest remaining edge of the undirected graph (the weights
//     of both directions summed). Its two nodes are chains of procedures;
//     merge them into one chain, choosing among the four ways of joining
//     the chains (A B, A rev(B), rev(A) B, B A) the one that puts next to
//     each other the two chain ends with the heaviest edge between them in
//     the original graph (the orientation rule; ties keep A B).
//  2. The merged node's edges to every other node are the sums of its
//     parts' edges. Repeat until no edge is left.
//
// The chains are then laid out heaviest first (by the instructions
// executed in them; ties by their first procedure's index), then the
// profiled procedures that had no call edge (same rule), then the
// unprofiled procedures in their original order, as the paper's layout
// puts unprofiled procedures last. The result is a permutation of
// 0..g.N-1.
func PettisHansen(g *CallGraph) []int {
	orig := map[[2]int]float64{}
	for _, e := range g.undirected() {
		orig[[2]int{e.a, e.b}] = e.w
	}
	w := func(a, b int) float64 {
		if a > b {
			a, b = b, a
		}
		return orig[[2]int{a, b}]
	}
	chain := make([][]int, g.N) // chain[r] for a representative r
	rep := make([]int, g.N)
	for i := range chain {
		chain[i] = []int{i}
		rep[i] = i
	}
	// cur holds the edges between current chains, by representative.
	cur := map[[2]int]float64{}
	for k, v := range orig {
		cur[k] = v
	}
	for len(cur) > 0 {
		// The heaviest current edge (ties: lowest representatives).
		var best [2]int
		bw := -1.0
		for k, v := range cur {
			if v > bw || v == bw && (k[0] < best[0] || k[0] == best[0] && k[1] < best[1]) {
				best, bw = k, v
			}
		}
		a, b := chain[best[0]], chain[best[1]]
		merged := orient(a, b, w)
		r, gone := best[0], best[1]
		chain[r], chain[gone] = merged, nil
		for _, p := range merged {
			rep[p] = r
		}
		// Coalesce: edges of gone move to r; the r-gone edge disappears.
		delete(cur, best)
		for k, v := range cur {
			if k[0] != gone && k[1] != gone {
				continue
			}
			delete(cur, k)
			o := k[0]
			if o == gone {
				o = k[1]
			}
			nk := [2]int{min(r, o), max(r, o)}
			cur[nk] += v
		}
	}
	type group struct {
		procs  []int
		weight float64
		edges  bool
	}
	var groups []group
	var cold []int
	for r, c := range chain {
		if c == nil {
			continue
		}
		var gw float64
		for _, p := range c {
			gw += g.Weight[p]
		}
		if len(c) == 1 && gw == 0 {
			cold = append(cold, r)
			continue
		}
		groups = append(groups, group{c, gw, len(c) > 1})
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].edges != groups[j].edges {
			return groups[i].edges
		}
		return groups[i].weight > groups[j].weight
	})
	order := make([]int, 0, g.N)
	for _, gr := range groups {
		order = append(order, gr.procs...)
	}
	return append(order, cold...)
}

// orient joins chains a and b by the orientation rule of Pettis and
// Hansen: of the four end-to-end joints, the one whose two procedures
// have the heaviest original edge.
func orient(a, b []int, w func(x, y int) float64) []int {
	ah, at := a[0], a[len(a)-1]
	bh, bt := b[0], b[len(b)-1]
	cands := []struct {
		w          float64
		revA, revB bool
		bFirst     bool
	}{
		{w(at, bh), false, false, false}, // a b
		{w(at, bt), false, true, false},  // a rev(b)
		{w(ah, bh), true, false, false},  // rev(a) b
		{w(ah, bt), false, false, true},  // b a
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.w > best.w {
			best = c
		}
	}
	out := make([]int, 0, len(a)+len(b))
	x, y := a, b
	if best.revA {
		x = reversed(a)
	}
	if best.revB {
		y = reversed(b)
	}
	if best.bFirst {
		x, y = y, x
	}
	return append(append(out, x...), y...)
}

func reversed(s []int) []int {
	r := make([]int, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}
