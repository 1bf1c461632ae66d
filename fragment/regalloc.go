// Register allocation: a trace -> which guest registers live in host registers, and which are dirty at each exit.

package fragment

import (
	"sort"

	"rvdyn/interp"
)

// allocatable are the host registers guest registers may live in. AX, CX
// and DX are scratch, R12 holds the budget, R14 and R15 are fixed, SP and
// BP are never touched.
var allocatable = []int16{rBX, rSI, rDI, rR8, rR9, rR10, rR11, rR13}

// rBudget holds State.Budget while native code runs (the trampoline loads
// and stores it).
const rBudget = rR12

// regAlloc maps guest registers to host registers for one fragment. The
// allocation is fixed for the whole fragment (a trace is one straight
// line): registers are loaded at the entry and written back at every exit
// that follows a write to them.
type regAlloc struct {
	host      [32]int16 // host register of guest register r, 0 if r lives in State
	written   [32]bool  // r is written somewhere in the trace
	readFirst [32]bool  // r's first use in the trace reads it (its entry value matters)
}

// uses returns the guest registers an instruction reads and writes.
func uses(in interp.Inst) (reads []uint8, write uint8) {
	switch c := in.Op.Class(); {
	case in.Op == interp.OpLUI || in.Op == interp.OpAUIPC || in.Op == interp.OpJAL:
		return nil, in.Rd
	case in.Op == interp.OpJALR || c == interp.ClassLoad || (in.Op >= interp.OpADDI && in.Op <= interp.OpSRAIW):
		return []uint8{in.Rs1}, in.Rd
	case c == interp.ClassBranch || c == interp.ClassStore:
		return []uint8{in.Rs1, in.Rs2}, 0
	case in.Op >= interp.OpADD && in.Op <= interp.OpREMUW:
		return []uint8{in.Rs1, in.Rs2}, in.Rd
	}
	return nil, 0
}

// allocate gives host registers to the guest registers the trace uses
// most (reads and writes weighted equally; x0 never).
func allocate(t *interp.Trace, enabled bool) *regAlloc {
	ra := &regAlloc{}
	var count [32]int
	for _, s := range t.Steps {
		reads, w := uses(s.Inst)
		for _, r := range reads {
			count[r]++
			if !ra.written[r] {
				ra.readFirst[r] = true
			}
		}
		count[w]++
		ra.written[w] = true
	}
	ra.written[0] = false
	if !enabled {
		return ra
	}
	order := make([]int, 0, 31)
	for r := 1; r < 32; r++ {
		if count[r] > 0 {
			order = append(order, r)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	for i, r := range order {
		if i == len(allocatable) {
			break
		}
		ra.host[r] = allocatable[i]
	}
	return ra
}

// needsLoad reports whether allocated guest register r must be loaded at
// the fragment entry: when its entry value is read, or when the fragment
// loops to itself (an exit in a later iteration writes back every written
// register, so each must hold a real value from the start).
func (ra *regAlloc) needsLoad(r uint8, loops bool) bool {
	return ra.host[r] != 0 && (ra.readFirst[r] || loops)
}

// dirty returns the allocated guest registers whose State slot may be
// stale at an exit after retired instructions: those written in the first
// retired steps, or, in a fragment that loops to itself (where an earlier
// iteration may have written anything), every written one.
func (ra *regAlloc) dirty(t *interp.Trace, retired int, loops bool) []uint8 {
	var d [32]bool
	if loops {
		d = ra.written
	} else {
		for _, s := range t.Steps[:retired] {
			_, w := uses(s.Inst)
			d[w] = true
		}
	}
	var out []uint8
	for r := 1; r < 32; r++ {
		if d[r] && ra.host[r] != 0 {
			out = append(out, uint8(r))
		}
	}
	return out
}
