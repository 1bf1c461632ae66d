// bestRun's eight-page steps against a page-by-page walk, on random page tables.

package interp

import (
	"math/rand/v2"
	"testing"
)

// TestBestRunStrides compares bestRun with the walk it shortens, one
// page at a time, on page tables with long uniform stretches (where it
// takes eight pages a step) and short mixed ones.
func TestBestRunStrides(t *testing.T) {
	naive := func(m *Machine, lo, hi uint64, need uint8) run {
		best, bestN := run{hi, hi}, 0
		cur, n := run{hi, hi}, 0
		for a := hi; a > lo; a -= pageSize {
			p := a/pageSize - 1
			if m.Mem.acc[p]&need != need {
				cur, n = run{a - pageSize, a - pageSize}, 0
				continue
			}
			cur.lo = a - pageSize
			if m.perm[p]&permMap != 0 {
				n++
			}
			if n > bestN {
				best, bestN = cur, n
			}
		}
		return best
	}
	r := rand.New(rand.NewPCG(29, 27))
	const pages = 600
	for i := range 300 {
		m := &Machine{Mem: &Memory{acc: make([]uint8, pages)}, perm: make([]uint8, pages)}
		for p := 0; p < pages; {
			n := 1 + r.IntN(40)
			acc, perm := uint8(r.IntN(4)), uint8(0)
			if r.IntN(2) == 0 {
				perm = permMap | permR
			}
			for ; n > 0 && p < pages; n, p = n-1, p+1 {
				m.Mem.acc[p], m.perm[p] = acc, perm
			}
		}
		lo := uint64(r.IntN(pages/2)) * pageSize
		hi := lo + uint64(r.IntN(pages/2))*pageSize
		for _, need := range []uint8{AccR, AccW, AccR | AccW} {
			if got, want := m.bestRun(lo, hi, need), naive(m, lo, hi, need); got != want {
				t.Fatalf("table %d, [%#x, %#x), need %d: bestRun %+v, page by page %+v", i, lo, hi, need, got, want)
			}
		}
	}
}
