// Float register allocation: an ir.Func -> which f registers live in XMM registers, and which are dirty at each exit.

package amd64

import (
	"cmp"
	"slices"

	"rvdyn/fragment/ir"
)

// floatAllocatable are the XMM registers f registers may live in. X0..X3
// are the floating-point scratch registers (float.go). X15 is Go's zero
// register in its internal ABI (ABIInternal), but undefined in ABI0:
// native code runs under the code cache's ABI0 trampoline, and the
// ABI0 -> ABIInternal transition back into Go zeroes X15 again, as it
// restores R14, which native code uses too (cmd/compile's
// abi-internal.md, "amd64 architecture").
var floatAllocatable = []register{rX0 + 4, rX0 + 5, rX0 + 6, rX0 + 7, rX0 + 8, rX0 + 9, rX0 + 10, rX0 + 11, rX0 + 12, rX0 + 13, rX0 + 14, rX0 + 15}

// floatAlloc maps f registers to XMM registers for one fragment, as
// regAlloc does x registers (without the home register convention: every
// entry loads the f registers it needs and every exit writes back those
// written): fixed for the whole fragment, loaded at the entry, written
// back at every exit that follows a write to them.
type floatAlloc struct {
	host      [32]register // XMM register of f register r, 0 if r lives in State
	written   uint32       // bit r: f register r is written somewhere in the IR
	readFirst uint32       // bit r: r's first use reads it
	before    []uint32     // before[i]: the f registers written by instructions before i
}

// floatUses calls read for each f register in reads and write for the one
// it writes.
func floatUses(in *ir.Inst, read, write func(r uint8)) {
	if !ir.IsFloat(in.Op) {
		return
	}
	d, a, b, c := ir.FloatUses(in.Op)
	if a {
		read(in.F.A)
	}
	if b {
		read(in.F.B)
	}
	if c {
		read(in.F.C)
	}
	if d {
		write(in.F.D)
	}
}

// allocateFloat gives XMM registers to the f registers the IR uses most;
// with enabled false, none (every f register stays in State).
func allocateFloat(f *ir.Func, enabled bool) *floatAlloc {
	fa := &floatAlloc{before: make([]uint32, len(f.Insts))}
	var count [32]int
	for i := range f.Insts {
		in := &f.Insts[i]
		fa.before[i] = fa.written
		floatUses(in, func(r uint8) {
			count[r]++
			if fa.written&(1<<r) == 0 {
				fa.readFirst |= 1 << r
			}
		}, func(r uint8) {
			count[r]++
			fa.written |= 1 << r
		})
	}
	if !enabled {
		return fa
	}
	var buf [32]int
	order := buf[:0]
	for r := 0; r < 32; r++ {
		if count[r] > 0 {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(count[y], count[x]) })
	if len(order) > len(floatAllocatable) {
		order = order[:len(floatAllocatable)]
	}
	for i, r := range order {
		fa.host[r] = floatAllocatable[i]
	}
	return fa
}

// needsLoad reports whether allocated f register r must be loaded at
// the fragment entry: when its entry value is read, or when the fragment
// loops (an exit in a later iteration writes back every written one).
func (fa *floatAlloc) needsLoad(r uint8, loops bool) bool {
	return fa.host[r] != 0 && (fa.readFirst&(1<<r) != 0 || loops)
}

// dirty returns the allocated f registers whose State slot may be stale
// at an exit taken by instruction i (before i writes anything); i ==
// len(f.Insts) means after all of them.
func (fa *floatAlloc) dirty(i int, loops bool) []uint8 {
	d := fa.written
	if !loops && i < len(fa.before) {
		d = fa.before[i]
	}
	var out []uint8
	for r := 0; r < 32; r++ {
		if d&(1<<r) != 0 && fa.host[r] != 0 {
			out = append(out, uint8(r))
		}
	}
	return out
}
