package ir

import (
	"math/rand/v2"
	"testing"

	"rvdyn/interp"
)

func TestRotate(t *testing.T) {
	unchanged := func(name, ir string) passCase { return passCase{name, ir, ir} }
	runPassCases(t, Rotate, []passCase{
		{"64-bit, or, in either order", `
			a0 = srl a1, 13
			a2 = sll a1, 51
			a3 = or a0, a2
			a4 = sll a1, 8
			a5 = srl a1, 56
			a4 = or a4, a5`, `
			a0 = srl a1, 13
			a2 = sll a1, 51
			a3 = ror a1, 13
			a4 = sll a1, 8
			a5 = srl a1, 56
			a4 = ror a1, 56`},
		{"32-bit with or, xor, add and addw", `
			t0 = srlw a1, 6
			t1 = sllw a1, 26
			a2 = or t0, t1
			a3 = xor t1, t0
			a4 = add t0, t1
			a5 = addw t0, t1`, `
			t0 = srlw a1, 6
			t1 = sllw a1, 26
			a2 = rorw a1, 6
			a3 = rorw a1, 6
			a4 = rorw a1, 6
			a5 = rorw a1, 6`},
		{"the source overwritten by the first shift, read from its copy", `
			a3 = mov a0
			t3 = sllw a0, 26
			a0 = srlw a0, 6
			a0 = or a0, t3`, `
			a3 = mov a0
			t3 = sllw a0, 26
			a0 = srlw a0, 6
			a0 = rorw a3, 6`},
		unchanged("no copy of the source left", `
			t3 = sllw a0, 26
			a0 = srlw a0, 6
			a0 = or a0, t3`),
		unchanged("not rotations: amounts, ops, sources, widths", `
			a0 = srl a1, 13
			a2 = sll a1, 50
			a3 = or a0, a2
			a0 = srlw a1, 6
			a2 = sllw a1, 26
			a3 = and a0, a2
			a3 = sub a0, a2
			a0 = srl a1, 6
			a3 = or a0, a2
			a0 = srlw a1, 6
			a2 = sllw a4, 26
			a3 = or a0, a2
			a0 = sra a1, 13
			a2 = sll a1, 51
			a3 = or a0, a2
			a0 = srl a1, 13
			a2 = sll a1, 51
			a3 = addw a0, a2`),
		unchanged("a half recomputed after the source changed", `
			a0 = srl a1, 13
			a1 = add a1, 1
			a2 = sll a1, 51
			a3 = or a0, a2`),
		unchanged("a load gives a new value", `
			a0 = srl a1, 13
			a2 = sll a1, 51
			a2 = ld 0(sp)
			a3 = or a0, a2`),
	})
}

// TestRotateThenDCE checks that the shifts a rotation no longer reads go
// when their results are overwritten before the end.
func TestRotateThenDCE(t *testing.T) {
	runPassCases(t, func(f *Func) { Rotate(f); DCE(f) }, []passCase{
		{"SHA-256's Σ1", `
			a3 = mov a0
			t3 = sllw a0, 26
			a0 = srlw a0, 6
			a0 = or a0, t3
			t1 = srlw a3, 11
			a1 = sllw a3, 21
			t1 = or t1, a1
			a0 = xor a0, t1
			t3 = mov 0
			a1 = mov 0
			t1 = mov 0`, `
			a3 = mov a0
			a0 = rorw a3, 6
			t1 = rorw a3, 11
			a0 = xor a0, t1
			t3 = mov 0
			a1 = mov 0
			t1 = mov 0`},
	})
}

// TestRotatedMatchesShifts checks the rotation semantics against the
// interpreter's shifts and or, for the amounts the pass accepts.
func TestRotatedMatchesShifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := rng.Uint64()
		k := uint64(1 + rng.IntN(63))
		r, _ := interp.ALU(interp.OpSRL, x, k)
		l, _ := interp.ALU(interp.OpSLL, x, 64-k)
		if want, _ := interp.ALU(interp.OpOR, r, l); Rotated(OpRor, x, k) != want {
			t.Fatalf("ror %#x, %d = %#x, want %#x", x, k, Rotated(OpRor, x, k), want)
		}
		k &= 31
		if k == 0 {
			continue
		}
		r, _ = interp.ALU(interp.OpSRLW, x, k)
		l, _ = interp.ALU(interp.OpSLLW, x, 32-k)
		for _, op := range []interp.Op{interp.OpOR, interp.OpXOR, interp.OpADD, interp.OpADDW} {
			if want, _ := interp.ALU(op, r, l); Rotated(OpRorW, x, k) != want {
				t.Fatalf("rorw %#x, %d = %#x, want %#x (%v)", x, k, Rotated(OpRorW, x, k), want, op)
			}
		}
	}
}
