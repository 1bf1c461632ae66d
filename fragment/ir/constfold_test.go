package ir

import "testing"

func TestConstFold(t *testing.T) {
	runPassCases(t, ConstFold, []passCase{
		{"lui+addi becomes one constant", `
			a5 = mov 0x21000
			a5 = add a5, -16
			a0 = add a5, a1`, `
			a5 = mov 0x21000
			a5 = mov 0x20ff0
			a0 = add a1, 0x20ff0`},
		{"W ops fold with interp's semantics", `
			a0 = mov 0x7fffffff
			a1 = addw a0, 1
			a2 = sraw a1, 4`, `
			a0 = mov 0x7fffffff
			a1 = mov 0xffffffff80000000
			a2 = mov 0xfffffffff8000000`},
		{"identities", `
			a0 = add a1, 0
			a2 = and a1, 0
			a3 = xor a4, a4
			a5 = mul 1, a6`, `
			a0 = mov a1
			a2 = mov 0
			a3 = mov 0
			a5 = mov a6`},
		{"a guard known not to exit disappears, one known to exit stays", `
			a0 = mov 3
			exit if beq a0, 4
			exit if bne a0, 4
			exit if bltu a1, 0`, `
			a0 = mov 3
			exit if bne 3, 4`},
		{"a constant address in bounds needs no check", `
			a0 = mov 0x20000
			a1 = ld 8(a0)
			sd a1, 16(a0)
			a2 = ld 0(zero)`, `
			a0 = mov 0x20000
			a1 = ld 8(0x20000) nocheck
			sd a1, 16(0x20000) nocheck
			a2 = ld 0(0)`},
		{"a store below WriteLo keeps its check", `
			a0 = mov 0x10000
			a1 = ld 0(a0)
			sd a1, 0(a0)`, `
			a0 = mov 0x10000
			a1 = ld 0(0x10000) nocheck
			sd a1, 0(0x10000)`},
		{"a guard exit-if-not-equal makes its register known", `
			exit if bne a0, 8
			a1 = add a0, a2
			exit if bne 16, a3
			a4 = srl a5, a3
			exit if beq a6, 1
			a7 = add a6, 1`, `
			exit if bne a0, 8
			a1 = add a2, 8
			exit if bne 16, a3
			a4 = srl a5, 16
			exit if beq a6, 1
			a7 = add a6, 1`},
		{"a redefinition forgets the constant", `
			a0 = mov 1
			a0 = ld 0(sp)
			a1 = add a0, 1`, `
			a0 = mov 1
			a0 = ld 0(sp)
			a1 = add a0, 1`},
	})
}
