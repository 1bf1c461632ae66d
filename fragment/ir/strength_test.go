package ir

import "testing"

func TestStrength(t *testing.T) {
	runPassCases(t, Strength, []passCase{
		{"slli/srli pairs zero-extend", `
			a0 = sll a1, 32
			a0 = srl a0, 32
			t0 = sll a1, 48
			t1 = srl t0, 48
			t2 = sll a1, 40
			t2 = srl t2, 40`, `
			a0 = sll a1, 32
			a0 = zext.w a1
			t0 = sll a1, 48
			t1 = zext.h a1
			t2 = sll a1, 40
			t2 = srl t2, 40`},
		{"slli/srai pairs sign-extend", `
			a0 = sll a1, 56
			a0 = sra a0, 56`, `
			a0 = sll a1, 56
			a0 = sext.b a1`},
		{"the pair needs the source unchanged", `
			a0 = sll a1, 32
			a1 = mov 0
			a0 = srl a0, 32`, `
			a0 = sll a1, 32
			a1 = mov 0
			a0 = srl a0, 32`},
		{"sext.w, and a no-op sext.w", `
			a0 = addw a1, 0
			a2 = addw a1, a3
			a2 = addw a2, 0`, `
			a0 = sext.w a1
			a2 = addw a1, a3
			a2 = mov a2`},
		{"andi masks", `
			a0 = and a1, 255
			a0 = and a1, 0xffffffff
			a0 = and a1, 254`, `
			a0 = zext.b a1
			a0 = zext.w a1
			a0 = and a1, 254`},
		{"multiplies and unsigned divides by powers of two", `
			a0 = mul a1, 8
			a0 = mul 16, a1
			a0 = mulw a1, 4
			a0 = divu a1, 32
			a0 = remu a1, 32
			a0 = div a1, 32`, `
			a0 = sll a1, 3
			a0 = sll a1, 4
			a0 = sllw a1, 2
			a0 = srl a1, 5
			a0 = and a1, 31
			a0 = div a1, 32`},
		{"addi and addiw chains", `
			a0 = add a1, 5
			a0 = add a0, 7
			a2 = addw a3, 1
			a2 = addw a2, 1
			a4 = sub a5, 3`, `
			a0 = add a1, 5
			a0 = add a1, 12
			a2 = addw a3, 1
			a2 = addw a3, 2
			a4 = add a5, -3`},
		{"address arithmetic folds into the offset", `
			a0 = add sp, 16
			a1 = ld 8(a0)
			sd a1, -16(a0)`, `
			a0 = add sp, 16
			a1 = ld 24(sp)
			sd a1, 0(sp)`},
	})
}
