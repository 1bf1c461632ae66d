package amd64

import (
	"testing"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// TestStoreGroup checks which runs of byte stores are combined: the
// random programs of the differential test (fragment.TestNativeMatches
// Interpreter) check that combined ones store the right bytes.
func TestStoreGroup(t *testing.T) {
	const base, other = 5, 6
	sb := func(off int64, exit int) ir.Inst {
		return ir.Inst{Op: interp.OpSB, A: ir.R(base), B: ir.R(10), Off: off, Exit: exit}
	}
	lw := ir.Inst{Op: interp.OpLW, Dst: 11, A: ir.R(2), Off: 92, Exit: -1}
	lb := ir.Inst{Op: interp.OpLB, Dst: 11, A: ir.R(2), Off: 92, Exit: -1}
	widened := func(in ir.Inst, lo, hi int64) ir.Inst {
		in.Cover = ir.Cover{Lo: lo, Hi: hi, Store: true}
		return in
	}
	cases := []struct {
		name   string
		insts  []ir.Inst
		loops  bool
		n      int
		lo     int64
		noComb bool
	}{
		{"four in order, read back", []ir.Inst{sb(0, 0), sb(1, -1), sb(2, -1), sb(3, -1), lw}, false, 4, 0, false},
		{"four permuted, checked by a widened check", []ir.Inst{widened(sb(2, 0), 0, 3), sb(0, -1), sb(1, -1), sb(3, -1), lw}, false, 4, 0, false},
		{"eight", []ir.Inst{sb(8, -1), sb(9, -1), sb(10, -1), sb(11, -1), sb(12, -1), sb(13, -1), sb(14, -1), sb(15, -1), lw}, false, 8, 8, false},
		{"two of three", []ir.Inst{sb(4, -1), sb(5, -1), sb(6, -1), lw}, false, 2, 4, false},
		{"first's own check is not at the lowest byte", []ir.Inst{sb(2, 0), sb(0, -1), sb(1, -1), sb(3, -1), lw}, false, 0, 0, false},
		{"widened check not covering the lowest byte", []ir.Inst{widened(sb(2, 0), 1, 3), sb(0, -1), sb(1, -1), sb(3, -1), lw}, false, 0, 0, false},
		{"a later store's own exit", []ir.Inst{sb(0, 0), sb(1, -1), sb(2, 1), sb(3, -1), lw}, false, 2, 0, false},
		{"a byte twice", []ir.Inst{sb(0, -1), sb(1, -1), sb(1, -1), sb(3, -1), lw}, false, 2, 0, false},
		{"another base", []ir.Inst{sb(0, -1), {Op: interp.OpSB, A: ir.R(other), B: ir.R(10), Off: 1, Exit: -1}, sb(2, -1), sb(3, -1), lw}, false, 0, 0, false},
		{"nothing reads it back wider", []ir.Inst{sb(0, -1), sb(1, -1), sb(2, -1), sb(3, -1), lb}, false, 0, 0, false},
		{"a loop reads it back at its top", []ir.Inst{lw, sb(0, -1), sb(1, -1), sb(2, -1), sb(3, -1)}, true, 4, 0, false},
		{"switched off", []ir.Inst{sb(0, 0), sb(1, -1), sb(2, -1), sb(3, -1), lw}, false, 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &ir.Func{Insts: append(tc.insts, ir.Inst{Op: ir.OpExit}), Loops: tc.loops}
			at := 0
			if tc.loops {
				at = 1
			}
			c := &compiler{f: f, combine: !tc.noComb}
			n, lo := c.storeGroup(at)
			if n != tc.n || n > 0 && lo != tc.lo {
				t.Errorf("storeGroup = %d at %d, want %d at %d", n, lo, tc.n, tc.lo)
			}
		})
	}
}
