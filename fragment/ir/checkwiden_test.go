package ir

import (
	"testing"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

func TestCheckWiden(t *testing.T) {
	runPassCases(t, CheckWiden, []passCase{
		{"one check covers every offset off a base", `
			a0 = ld 8(s0)
			a1 = ld 0(s0)
			a2 = lw 24(s0)`, `
			a0 = ld 8(s0) ; load check 0..24(s0)
			a1 = ld 0(s0) nocheck
			a2 = lw 24(s0) nocheck`},
		{"a store in the group makes it a store check", `
			a0 = ld 0(s0)
			sd a0, 16(s0)`, `
			a0 = ld 0(s0) ; store check 0..16(s0)
			sd a0, 16(s0) nocheck`},
		{"the same offset at another width", `
			sw a1, 4(sp)
			a2 = lbu 4(sp)`, `
			sw a1, 4(sp)
			a2 = lbu 4(sp) nocheck`},
		{"redefining the base starts a new group", `
			a0 = ld 0(s0)
			s0 = xor s0, a1
			a1 = ld 0(s0)
			a2 = ld 8(s0)`, `
			a0 = ld 0(s0)
			s0 = xor s0, a1
			a1 = ld 0(s0) ; load check 0..8(s0)
			a2 = ld 8(s0) nocheck`},
		{"adding a constant to the base keeps its value", `
			a0 = ld 0(s0)
			s0 = add s0, 8
			a1 = ld 0(s0)
			a2 = ld 8(s0)`, `
			a0 = ld 0(s0) ; load check 0..16(s0)
			s0 = add s0, 8
			a1 = ld 0(s0) nocheck
			a2 = ld 8(s0) nocheck`},
		{"a read-modify-write through a stepped pointer (matmul)", `
			a4 = ld 0(a5)
			a5 = add a5, 8
			a4 = add a4, a3
			sd a4, -8(a5)`, `
			a4 = ld 0(a5) ; store check 0..0(a5)
			a5 = add a5, 8
			a4 = add a4, a3
			sd a4, -8(a5) nocheck`},
		{"through a copy and an offset copy", `
			t0 = mov a0
			t1 = add a0, -16
			a1 = lw 0(t0)
			a2 = lw 0(t1)
			a3 = lw 4(a0)`, `
			t0 = mov a0
			t1 = add a0, -16
			a1 = lw 0(t0) ; load check -16..4(t0)
			a2 = lw 0(t1) nocheck
			a3 = lw 4(a0) nocheck`},
		{"a load into its own base ends the group after it", `
			s0 = ld 0(s0)
			a1 = ld 8(s0)`, `
			s0 = ld 0(s0)
			a1 = ld 8(s0)`},
		{"the check covers accesses behind a side exit", `
			a0 = lbu 0(a1)
			exit if beq a0, 0
			a2 = lbu 1(a1)`, `
			a0 = lbu 0(a1) ; load check 0..1(a1)
			exit if beq a0, 0
			a2 = lbu 1(a1) nocheck`},
		{"different bases keep their checks", `
			a0 = lw 0(t5)
			a1 = lw 0(s0)`, `
			a0 = lw 0(t5)
			a1 = lw 0(s0)`},
		{"a span too wide for one check splits the group", `
			a0 = ld 0(s0)
			a1 = ld 70000(s0)
			a2 = ld 70008(s0)
			a3 = ld 8(s0)`, `
			a0 = ld 0(s0) ; load check 0..8(s0)
			a1 = ld 70000(s0) ; load check 70000..70008(s0)
			a2 = ld 70008(s0) nocheck
			a3 = ld 8(s0) nocheck`},
		{"a covered load into zero goes", `
			a0 = ld 0(s0)
			zero = ld 8(s0)
			a1 = ld 16(s0)`, `
			a0 = ld 0(s0) ; load check 0..16(s0)
			a1 = ld 16(s0) nocheck`},
	})
}

// TestCheckWidenStack: accesses recorded in the stack and in the data
// interval off the same base get one check each, so neither fails
// because the other hit the other interval.
func TestCheckWidenStack(t *testing.T) {
	f := build(t, "a0 = ld 0(s0)\na1 = ld 8(s0)\na2 = ld 16(s0)")
	f.Insts[1].Stack = true
	CheckWiden(f)
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	if got := text(f); got != "a0 = ld 0(s0) ; load check 0..16(s0)\na1 = ld 8(s0)\na2 = ld 16(s0) nocheck\n" {
		t.Errorf("got:\n%s", got)
	}
}

// TestVerifyCoverage: the verifier rejects an access without a check
// that no earlier check of the same base value covers.
func TestVerifyCoverage(t *testing.T) {
	cases := []struct {
		name, src string
		drop      int // instruction whose check is dropped
		cover     Cover
		ok        bool
	}{
		{"covered", "a0 = ld 0(s0)\na1 = ld 8(s0)", 1, Cover{0, 8, false}, true},
		{"outside the range", "a0 = ld 0(s0)\na1 = ld 16(s0)", 1, Cover{0, 8, false}, false},
		{"base redefined", "a0 = ld 0(s0)\ns0 = sub s0, a1\na1 = ld 8(s0)", 2, Cover{0, 8, false}, false},
		{"base moved by a constant", "a0 = ld 0(s0)\ns0 = add s0, 4\na1 = ld 4(s0)", 2, Cover{0, 8, false}, true},
		{"base moved out of the range", "a0 = ld 0(s0)\ns0 = add s0, 8\na1 = ld 4(s0)", 2, Cover{0, 8, false}, false},
		{"a load check does not cover a store", "a0 = ld 0(s0)\nsd a0, 8(s0)", 1, Cover{0, 8, false}, false},
		{"a store check covers a load", "sd a0, 0(s0)\na1 = ld 8(s0)", 1, Cover{0, 8, true}, true},
		{"the check must come first", "a0 = ld 0(s0)\na1 = ld 8(s0)", 0, Cover{}, false},
		{"a cover must hold its own access", "a0 = ld 16(s0)\na1 = ld 8(s0)", 1, Cover{0, 8, false}, false},
		{"a cover must fit an interval", "a0 = ld 0(s0)\na1 = ld 8(s0)", 1, Cover{0, 1 << 20, false}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, tc.src)
			if tc.drop > 0 {
				f.Insts[0].Cover = tc.cover
			}
			f.Insts[tc.drop].Exit = -1
			if err := Verify(f); (err == nil) != tc.ok {
				t.Errorf("Verify = %v, want ok %v\n%v", err, tc.ok, f)
			}
		})
	}
}

// TestCheckWidenFloat: floating-point loads and stores off one base share
// one widened check with the integer ones, a store making it a store
// check, as the integer accesses do.
func TestCheckWidenFloat(t *testing.T) {
	const s0, a0 = 8, 10
	f := &Func{Head: 0x1000, env: testEnv}
	insts := []Inst{
		{Op: interp.OpFLD, A: R(s0), Off: 0, F: FloatArgs{D: 1}},
		{Op: interp.OpLD, Dst: a0, A: R(s0), Off: 16},
		{Op: interp.OpFSD, A: R(s0), Off: 8, F: FloatArgs{B: 1}},
		{Op: interp.OpFLW, A: R(s0), Off: 24, F: FloatArgs{D: 2}},
	}
	for i, in := range insts {
		in.PC, in.Step, in.Len = 0x1000+4*uint64(i), i, 4
		in.Exit = f.newExit(exit.Interp, in.PC, in.PC, i)
		f.Insts = append(f.Insts, in)
	}
	f.Guest = len(f.Insts)
	f.Insts = append(f.Insts, Inst{Op: OpExit, PC: 0x1000 + 4*uint64(f.Guest), Step: f.Guest, Exit: f.newExit(exit.Branch, 0x2000, 0x1000, f.Guest)})
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	CheckWiden(f)
	if err := Verify(f); err != nil {
		t.Fatalf("after the pass: %v\n%v", err, f)
	}
	first := f.Insts[0]
	if first.Exit < 0 || first.Cover != (Cover{Lo: 0, Hi: 24, Store: true}) {
		t.Errorf("first access: exit %d, cover %+v; want a store check over 0..24", first.Exit, first.Cover)
	}
	for _, in := range f.Insts[1:4] {
		if in.Exit >= 0 {
			t.Errorf("%v kept its own check", in)
		}
	}
}
