// Examples: a weighted call graph in, Pettis-Hansen and C3 orders out.

package layout_test

import (
	"fmt"
	"strings"

	"rvdyn/layout"
)

func ExamplePettisHansen() {
	// main calls parse 100 times and eval 900 times; eval calls apply 800
	// times; report runs once and was never sampled.
	names := []string{"main", "parse", "eval", "apply", "report"}
	g := &layout.CallGraph{
		N:      5,
		Weight: []float64{50, 400, 3000, 2000, 0},
		Size:   []uint64{200, 300, 800, 400, 100},
		Edges:  map[[2]int]float64{{0, 1}: 100, {0, 2}: 900, {2, 3}: 800},
	}
	for _, order := range [][]int{layout.PettisHansen(g), layout.C3(g, 0)} {
		var s []string
		for _, p := range order {
			s = append(s, names[p])
		}
		fmt.Println(strings.Join(s, " "))
	}
	// Output:
	// apply eval main parse report
	// main eval apply parse report
}
