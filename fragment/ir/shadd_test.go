package ir

import "testing"

func TestShAdd(t *testing.T) {
	unchanged := func(name, ir string) passCase { return passCase{name, ir, ir} }
	runPassCases(t, ShAdd, []passCase{
		{"a[i] in place, either operand order", `
			a5 = sll a5, 2
			a5 = add a5, a4
			a3 = sll a3, 3
			a3 = add a2, a3`, `
			a5 = mov a5
			a5 = shadd a5<<2, a4
			a3 = mov a3
			a3 = shadd a3<<3, a2`},
		{"the shifted value overwritten later, the index kept", `
			t0 = sll a1, 1
			a2 = add t0, a0
			t0 = mov 7`, `
			t0 = mov t0
			a2 = shadd a1<<1, a0
			t0 = mov 7`},
		{"constants added to the index and to the base go into the offset", `
			a7 = add a4, 768
			a7 = sll a7, 2
			a6 = add a6, -8
			a7 = add a7, a6
			a6 = mov 0`, `
			a7 = mov a7
			a7 = mov a7
			a6 = mov a6
			a7 = shadd a4<<2, a6, 3064
			a6 = mov 0`},
		{"a constant added after the shift, and the base's constant (fsm's stack table)", `
			a4 = sll a4, 2
			a4 = add a4, 352
			a3 = add sp, 48
			a4 = add a4, a3
			a3 = mov 0
			a4 = lw -288(a4)`, `
			a4 = mov a4
			a4 = mov a4
			a3 = mov a3
			a4 = shadd a4<<2, sp, 400
			a3 = mov 0
			a4 = lw -288(a4)`},
		{"the shift and the constant into other registers", `
			t0 = sll a1, 3
			t1 = add t0, -8
			a2 = add t1, a0
			t0 = mov 0
			t1 = mov 0`, `
			t0 = mov t0
			t1 = mov t1
			a2 = shadd a1<<3, a0, -8
			t0 = mov 0
			t1 = mov 0`},
		unchanged("the shifted value read between the shift and the constant", `
			a4 = sll a4, 2
			a5 = xor a4, 1
			a4 = add a4, 352
			a4 = add a4, a3`),
		unchanged("the index overwritten after the constant", `
			t0 = sll a1, 3
			t1 = add t0, -8
			a1 = mov 5
			a2 = add t1, a0
			t0 = mov 0
			t1 = mov 0`),
		unchanged("the shifted value still needed after the constant", `
			t0 = sll a1, 3
			t1 = add t0, -8
			a2 = add t1, a0
			t1 = mov 0`),
		{"unrelated work between the shift and the add", `
			a5 = sll a5, 2
			a1 = xor a2, a3
			a5 = add a5, a4`, `
			a5 = mov a5
			a1 = xor a2, a3
			a5 = shadd a5<<2, a4`},
		unchanged("the shifted value read before the add", `
			a5 = sll a5, 2
			a1 = xor a5, a3
			a5 = add a5, a4`),
		unchanged("the shifted value still needed after the add (at the end)", `
			t0 = sll a1, 1
			a2 = add t0, a0`),
		unchanged("an exit between the shift and the add", `
			a5 = sll a5, 2
			exit if beq a1, a2
			a5 = add a5, a4`),
		unchanged("an exit before the shifted value is overwritten", `
			t0 = sll a1, 1
			a2 = add t0, a0
			exit if beq a1, a2
			t0 = mov 7`),
		unchanged("the index changed between the shift and the add", `
			t0 = sll a1, 1
			a1 = mov 3
			a2 = add t0, a0
			t0 = mov 7`),
		unchanged("shifts x86 cannot scale by, and a shifted value added to itself", `
			a5 = sll a5, 4
			a5 = add a5, a4
			a3 = sll a3, 0
			a3 = add a3, a4
			a2 = sll a2, 2
			a2 = add a2, a2
			a1 = srl a1, 2
			a1 = add a1, a4`),
		unchanged("a 32-bit shift or add", `
			a5 = sllw a5, 2
			a5 = add a5, a4
			a3 = sll a3, 2
			a3 = addw a3, a4`),
		{"an index constant whose register changed is left in place", `
			a7 = add a4, 768
			a4 = mov 0
			a7 = sll a7, 2
			a7 = add a7, a6`, `
			a7 = add a4, 768
			a4 = mov 0
			a7 = mov a7
			a7 = shadd a7<<2, a6`},
		{"an offset that would not fit 32 bits is left in place", `
			a7 = add a4, 0x7ffff000
			a7 = sll a7, 3
			a7 = add a7, a6`, `
			a7 = add a4, 0x7ffff000
			a7 = mov a7
			a7 = shadd a7<<3, a6`},
	})
}

// TestShAddThenDCE checks that the consumed instructions leave no trace
// once dce has run, and that a table lookup's check still covers the
// load whose address now comes from a shadd (Verify follows the base).
func TestShAddThenDCE(t *testing.T) {
	runPassCases(t, func(f *Func) { CheckRange(f); ShAdd(f); DCE(f) }, []passCase{
		{"crc32's table lookup", `
			a5 = xor a5, s1
			a5 = zext.b a5
			a5 = add a5, 256
			a5 = sll a5, 2
			a5 = add a5, s2
			a7 = lw 0(a5)`, `
			a5 = xor a5, s1
			a5 = zext.b a5
			a5 = shadd a5<<2, s2, 1024
			check load 1024..2044(s2)
			a7 = lw 0(a5) nocheck`},
	})
}
