package ir

import (
	"testing"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// TestQuietCompare runs the pass on the frflags / flt / fsflags idiom and
// on variants where something between the read and the write makes the
// flags observable or the write more than a restore: only the idiom
// itself loses its write and gets a quiet compare.
func TestQuietCompare(t *testing.T) {
	const a3, a4, a5, a6 = 13, 14, 15, 16
	read := Inst{Op: interp.OpCSRRS, Dst: a3, A: C(0), Off: interp.CSRFflags}
	flt := Inst{Op: interp.OpFLTD, Dst: a4, F: FloatArgs{A: 10, B: 8}}
	write := Inst{Op: interp.OpCSRRW, A: R(a3), Off: interp.CSRFflags}
	add := Inst{Op: interp.OpADD, Dst: a5, A: R(a6), B: C(1)}
	fadd := Inst{Op: interp.OpFADDD, F: FloatArgs{D: 1, A: 2, B: 3, RM: 7}}
	guard := Inst{Op: interp.OpBEQ, A: R(a4), B: C(0)}
	for _, tc := range []struct {
		name  string
		insts []Inst
		quiet bool // the compare made quiet and the write removed
	}{
		{"the idiom", []Inst{read, flt, write}, true},
		{"integer work between", []Inst{read, add, flt, add, write}, true},
		{"an exit between", []Inst{read, flt, guard, write}, false},
		{"a float op between", []Inst{read, flt, fadd, write}, false},
		{"the saved register written between", []Inst{read, flt, {Op: interp.OpADD, Dst: a3, A: R(a3), B: C(1)}, write}, false},
		{"a write of another register", []Inst{read, flt, {Op: interp.OpCSRRW, A: R(a5), Off: interp.CSRFflags}}, false},
		{"a write that also reads the flags", []Inst{read, flt, {Op: interp.OpCSRRW, Dst: a6, A: R(a3), Off: interp.CSRFflags}}, false},
		{"a write of frm", []Inst{read, flt, {Op: interp.OpCSRRW, A: R(a3), Off: interp.CSRFrm}}, false},
		{"no compare", []Inst{read, add, write}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Func{Head: 0x1000, env: testEnv}
			for i, in := range tc.insts {
				in.PC, in.Step, in.Exit, in.Len = 0x1000+4*uint64(i), i, -1, 4
				if in.Op == interp.OpBEQ {
					in.Exit = f.newExit(exit.Branch, 0x3000, in.PC, i+1)
				}
				f.Insts = append(f.Insts, in)
			}
			f.Guest = len(f.Insts)
			f.Insts = append(f.Insts, Inst{Op: OpExit, PC: 0x1000 + 4*uint64(f.Guest), Step: f.Guest, Exit: f.newExit(exit.Branch, 0x2000, 0x1000, f.Guest)})
			if err := Verify(f); err != nil {
				t.Fatalf("built IR does not verify: %v\n%v", err, f)
			}
			n := len(f.Insts)
			QuietCompare(f)
			if err := Verify(f); err != nil {
				t.Fatalf("after the pass: %v\n%v", err, f)
			}
			quiet := false
			for _, in := range f.Insts {
				quiet = quiet || in.F.Quiet
			}
			removed := len(f.Insts) == n-1
			if quiet != tc.quiet || removed != tc.quiet || !removed && len(f.Insts) != n {
				t.Errorf("quiet %v, write removed %v (%d -> %d instructions); want both %v\n%v", quiet, removed, n, len(f.Insts), tc.quiet, f)
			}
		})
	}
}

// TestQuietCompareReuse checks that a quiet compare repeating an earlier
// compare of the same f registers becomes a copy of its result, and
// stays a compare where the operands or that result changed between, or
// where the earlier compare is another one.
func TestQuietCompareReuse(t *testing.T) {
	const a3, a4, a5 = 13, 14, 15
	read := Inst{Op: interp.OpCSRRS, Dst: a3, A: C(0), Off: interp.CSRFflags}
	write := Inst{Op: interp.OpCSRRW, A: R(a3), Off: interp.CSRFflags}
	quiet := Inst{Op: interp.OpFLTD, Dst: a4, F: FloatArgs{A: 10, B: 8}}
	first := Inst{Op: interp.OpFLTD, Dst: a5, F: FloatArgs{A: 10, B: 8}}
	for _, tc := range []struct {
		name   string
		before []Inst // between the first compare and the read
		first  Inst
		reused bool
	}{
		{"the same compare", nil, first, true},
		{"integer work between", []Inst{{Op: interp.OpADD, Dst: 16, A: R(16), B: C(1)}}, first, true},
		{"an operand written between", []Inst{{Op: interp.OpFADDD, F: FloatArgs{D: 8, A: 2, B: 3, RM: 7}}}, first, false},
		{"an operand moved from an x register between", []Inst{{Op: interp.OpFMVDX, A: R(2), F: FloatArgs{D: 10}}}, first, false},
		{"the result overwritten between", []Inst{{Op: interp.OpADD, Dst: a5, A: R(a5), B: C(1)}}, first, false},
		{"another op", nil, Inst{Op: interp.OpFLED, Dst: a5, F: FloatArgs{A: 10, B: 8}}, false},
		{"the operands swapped", nil, Inst{Op: interp.OpFLTD, Dst: a5, F: FloatArgs{A: 8, B: 10}}, false},
		{"a result to x0", nil, Inst{Op: interp.OpFLTD, F: FloatArgs{A: 10, B: 8}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Func{Head: 0x1000, env: testEnv}
			insts := append(append([]Inst{tc.first}, tc.before...), read, quiet, write)
			for i, in := range insts {
				in.PC, in.Step, in.Exit, in.Len = 0x1000+4*uint64(i), i, -1, 4
				f.Insts = append(f.Insts, in)
			}
			f.Guest = len(f.Insts)
			f.Insts = append(f.Insts, Inst{Op: OpExit, PC: 0x1000 + 4*uint64(f.Guest), Step: f.Guest, Exit: f.newExit(exit.Branch, 0x2000, 0x1000, f.Guest)})
			if err := Verify(f); err != nil {
				t.Fatalf("built IR does not verify: %v\n%v", err, f)
			}
			QuietCompare(f)
			if err := Verify(f); err != nil {
				t.Fatalf("after the pass: %v\n%v", err, f)
			}
			q := f.Insts[len(insts)-2]
			reused := q.Op == OpMov && q.Dst == a4 && q.A.IsReg(a5)
			if reused != tc.reused || !reused && (q.Op != interp.OpFLTD || !q.F.Quiet) {
				t.Errorf("quiet compare became %v; want a copy of a5: %v\n%v", q, tc.reused, f)
			}
		})
	}
}
