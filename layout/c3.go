// C3 procedure ordering: a weighted call graph -> an order of procedures (Ottoni and Maher, "Optimizing function placement for large-scale data-center applications", CGO 2017; hfsort's algorithm).

package layout

import "sort"

// DefaultMaxCluster is C3's cluster size limit in bytes: the paper merges
// clusters only while they fit in a 4 KB page.
const DefaultMaxCluster = 4096

// C3 orders the procedures of g with the Call-Chain Clustering algorithm
// of Ottoni and Maher (CGO 2017, section 4), which, unlike Pettis-Hansen,
// uses the direction of calls:
//
//  1. Every procedure starts in a cluster of its own.
//  2. Procedures are visited hottest first (instructions executed in
//     them, g.Weight). For procedure f, its most likely caller p is the
//     caller with the heaviest edge p->f. Unless f has no caller, p is in
//     f's cluster already, or the two clusters together exceed
//     maxCluster bytes, f's cluster is appended to the end of p's.
//  3. Clusters are laid out by decreasing density (weight per byte).
//
// Unprofiled procedures (weight 0) are left out of step 2 and placed
// last in their original order, as in PettisHansen. maxCluster <= 0
// means DefaultMaxCluster. Differences from hfsort: no merge-density
// cut-off (the CGO paper's algorithm has none). The result is a
// permutation of 0..g.N-1.
func C3(g *CallGraph, maxCluster int) []int {
	if maxCluster <= 0 {
		maxCluster = DefaultMaxCluster
	}
	// The heaviest caller of each procedure (ties: lowest index).
	caller := make([]int, g.N)
	cw := make([]float64, g.N)
	for i := range caller {
		caller[i] = -1
	}
	for e, w := range g.Edges {
		p, f := e[0], e[1]
		if p == f || w <= 0 {
			continue
		}
		if w > cw[f] || w == cw[f] && p < caller[f] {
			caller[f], cw[f] = p, w
		}
	}
	cl := make([][]int, g.N) // clusters, by id
	size := make([]uint64, g.N)
	weight := make([]float64, g.N)
	of := make([]int, g.N)
	for i := range cl {
		cl[i], size[i], weight[i], of[i] = []int{i}, g.Size[i], g.Weight[i], i
	}
	hot := make([]int, 0, g.N)
	for i := range g.N {
		if g.Weight[i] > 0 {
			hot = append(hot, i)
		}
	}
	sort.SliceStable(hot, func(i, j int) bool { return g.Weight[hot[i]] > g.Weight[hot[j]] })
	for _, f := range hot {
		p := caller[f]
		if p < 0 {
			continue
		}
		cp, cf := of[p], of[f]
		if cp == cf || size[cp]+size[cf] > uint64(maxCluster) {
			continue
		}
		cl[cp] = append(cl[cp], cl[cf]...)
		size[cp] += size[cf]
		weight[cp] += weight[cf]
		for _, q := range cl[cf] {
			of[q] = cp
		}
		cl[cf] = nil
	}
	var ids []int
	var cold []int
	for id, c := range cl {
		switch {
		case c == nil:
		case weight[id] == 0 && len(c) == 1:
			cold = append(cold, id)
		default:
			ids = append(ids, id)
		}
	}
	density := func(id int) float64 { return weight[id] / float64(max(size[id], 1)) }
	sort.SliceStable(ids, func(i, j int) bool { return density(ids[i]) > density(ids[j]) })
	order := make([]int, 0, g.N)
	for _, id := range ids {
		order = append(order, cl[id]...)
	}
	return append(order, cold...)
}
