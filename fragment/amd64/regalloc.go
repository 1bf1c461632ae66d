// Register allocation: an ir.Func -> which guest registers live in host registers, and which are dirty at each exit.

package amd64

import (
	"sort"

	"rvdyn/fragment/ir"
)

// allocatable are the host registers guest registers may live in, in the
// order they are handed out. AX, CX and DX are scratch, R12 holds the
// budget, R14 and R15 are fixed, SP is never touched. BP comes last: it is
// Go's frame pointer, which the trampoline saves and restores around
// native code (codecache/enter_amd64.s), and Options.NoBPReg leaves it out.
var allocatable = []register{rBX, rSI, rDI, rR8, rR9, rR10, rR11, rR13, rBP}

// regAlloc maps guest registers to host registers for one fragment. The
// allocation is fixed for the whole fragment (a trace is one straight
// line): registers are loaded at the entry and written back at every exit
// that follows a write to them.
type regAlloc struct {
	host      [32]register // host register of guest register r, 0 if r lives in State
	written   uint32       // bit r: r is written somewhere in the IR
	readFirst uint32       // bit r: r's first use reads it (its entry value matters)
	// before[i] is the set of registers written by the instructions
	// before instruction i.
	before []uint32
}

// allocate gives host registers to the guest registers the IR uses most
// (reads and writes weighted equally; x0 never); withBP adds BP to the
// registers it may use.
func allocate(f *ir.Func, enabled, withBP bool) *regAlloc {
	ra := &regAlloc{before: make([]uint32, len(f.Insts))}
	var count [32]int
	for i := range f.Insts {
		in := &f.Insts[i]
		ra.before[i] = ra.written
		in.Reads(func(r uint8) {
			count[r]++
			if ra.written&(1<<r) == 0 {
				ra.readFirst |= 1 << r
			}
		})
		if in.Dst != 0 {
			count[in.Dst]++
			ra.written |= 1 << in.Dst
		}
	}
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
	regs := allocatable
	if !withBP {
		regs = regs[:len(regs)-1]
	}
	for i, r := range order {
		if i == len(regs) {
			break
		}
		ra.host[r] = regs[i]
	}
	return ra
}

// needsLoad reports whether allocated guest register r must be loaded at
// the fragment entry: when its entry value is read, or when the fragment
// loops to itself (an exit in a later iteration writes back every written
// register, so each must hold a real value from the start).
func (ra *regAlloc) needsLoad(r uint8, loops bool) bool {
	return ra.host[r] != 0 && (ra.readFirst&(1<<r) != 0 || loops)
}

// dirty returns the allocated guest registers whose State slot may be
// stale at an exit taken by instruction i (before i writes anything):
// those written by earlier instructions, or, in a fragment that loops to
// itself (where an earlier iteration may have written anything), every
// written one. i == len(f.Insts) means after all of them.
func (ra *regAlloc) dirty(i int, loops bool) []uint8 {
	d := ra.written
	if !loops && i < len(ra.before) {
		d = ra.before[i]
	}
	var out []uint8
	for r := 1; r < 32; r++ {
		if d&(1<<r) != 0 && ra.host[r] != 0 {
			out = append(out, uint8(r))
		}
	}
	return out
}
