// Tests of the orderings on small hand-built weighted call graphs with known answers.

package layout

import (
	"slices"
	"testing"
)

// graph builds a CallGraph from procedure weights, sizes and caller->callee edges.
func graph(weights []float64, sizes []uint64, edges map[[2]int]float64) *CallGraph {
	g := &CallGraph{N: len(weights), Weight: weights, Size: sizes, Edges: edges}
	if g.Size == nil {
		g.Size = make([]uint64, g.N)
		for i := range g.Size {
			g.Size[i] = 100
		}
	}
	return g
}

const (
	A = iota
	B
	C
	D
	E
	F
)

func TestPettisHansen(t *testing.T) {
	tests := []struct {
		name  string
		g     *CallGraph
		order []int
	}{
		{"one chain, heaviest first", graph([]float64{5, 5, 5, 5, 5}, nil,
			map[[2]int]float64{{A, B}: 10, {B, C}: 8, {C, A}: 5, {C, D}: 3, {D, E}: 1}),
			[]int{A, B, C, D, E}},
		{"orientation rule puts D next to A", graph([]float64{5, 5, 5, 5, 0, 1}, nil,
			map[[2]int]float64{{A, B}: 10, {C, D}: 9, {B, C}: 2, {D, A}: 7}),
			[]int{C, D, A, B, F, E}},
		{"orientation rule reverses a chain", graph([]float64{5, 5, 5, 5}, nil,
			map[[2]int]float64{{A, B}: 10, {C, D}: 9, {A, C}: 4}),
			// [A B] and [C D] join at A-C: rev(A B) then C D.
			[]int{B, A, C, D}},
		{"directions summed, self-calls ignored", graph([]float64{1, 1, 1}, nil,
			map[[2]int]float64{{A, A}: 100, {A, C}: 3, {C, A}: 3, {A, B}: 5}),
			// A-C weighs 6 > A-B 5: [A C]; B joins at A's end, and of
			// the two joints with weight 5 (rev(A C) B, B A C) the
			// first in the rule's order wins.
			[]int{C, A, B}},
		{"unprofiled last in original order", graph([]float64{0, 0, 3, 0, 7}, nil, nil),
			[]int{E, C, A, B, D}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PettisHansen(tc.g); !slices.Equal(got, tc.order) {
				t.Errorf("PettisHansen = %v, want %v", got, tc.order)
			}
		})
	}
}

func TestC3(t *testing.T) {
	edges := map[[2]int]float64{{A, B}: 30, {A, C}: 20, {B, C}: 25, {C, D}: 5}
	tests := []struct {
		name  string
		g     *CallGraph
		limit int
		order []int
	}{
		{"callers absorb callees", graph([]float64{100, 50, 40, 10, 0}, nil, edges), 0,
			[]int{A, B, C, D, E}},
		{"size limit splits clusters", graph([]float64{100, 50, 40, 10, 0}, nil, edges), 250,
			[]int{A, B, C, D, E}},
		{"hottest callee first, density order", graph([]float64{100, 50, 400, 10, 0}, nil, edges), 250,
			// C joins its heaviest caller B: [B C]; A and D cannot join
			// (300 bytes > 250). Densities: [B C] 2.25, [A] 1, [D] 0.1.
			[]int{B, C, A, D, E}},
		{"direction matters", graph([]float64{10, 10}, nil, map[[2]int]float64{{B, A}: 5}), 0,
			// A's caller is B: A is appended after B.
			[]int{B, A}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := C3(tc.g, tc.limit); !slices.Equal(got, tc.order) {
				t.Errorf("C3 = %v, want %v", got, tc.order)
			}
		})
	}
}
