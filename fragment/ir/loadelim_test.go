package ir

import "testing"

func TestLoadElim(t *testing.T) {
	runPassCases(t, LoadElim, []passCase{
		{"a reload after a spill reads the register", `
			sd a0, 8(sp)
			a1 = ld 8(sp)`, `
			sd a0, 8(sp)
			a1 = mov a0`},
		{"a narrower reload extends", `
			sw a0, 8(sp)
			a1 = lw 8(sp)
			a2 = lwu 8(sp)`, `
			sw a0, 8(sp)
			a1 = sext.w a0
			a2 = zext.w a0`},
		{"the same load twice", `
			a0 = lbu 3(s0)
			a1 = add a0, 1
			a2 = lbu 3(s0)
			a3 = lb 3(s0)`, `
			a0 = lbu 3(s0)
			a1 = add a0, 1
			a2 = mov a0
			a3 = sext.b a0`},
		{"a disjoint store off the same base does not kill", `
			a0 = ld 8(sp)
			sd a1, 16(sp)
			sw a1, 4(sp)
			a2 = ld 8(sp)`, `
			a0 = ld 8(sp)
			sd a1, 16(sp)
			sw a1, 4(sp)
			a2 = mov a0`},
		{"an overlapping store kills", `
			a0 = ld 8(sp)
			sb a1, 15(sp)
			a2 = ld 8(sp)`, `
			a0 = ld 8(sp)
			sb a1, 15(sp)
			a2 = ld 8(sp)`},
		{"a store through another base kills", `
			a0 = ld 8(sp)
			sd a1, 64(s0)
			a2 = ld 8(sp)`, `
			a0 = ld 8(sp)
			sd a1, 64(s0)
			a2 = ld 8(sp)`},
		{"redefining the base or the value kills", `
			sd a0, 8(sp)
			a0 = add a0, 1
			a1 = ld 8(sp)
			sp = add sp, -16
			a2 = ld 8(sp)`, `
			sd a0, 8(sp)
			a0 = add a0, 1
			a1 = ld 8(sp)
			sp = add sp, -16
			a2 = ld 8(sp)`},
		{"a different width does not match", `
			sw a0, 8(sp)
			a1 = ld 8(sp)`, `
			sw a0, 8(sp)
			a1 = ld 8(sp)`},
		{"a stored constant forwards as a constant", `
			sh 0x12345, 0(sp)
			a1 = lh 0(sp)`, `
			sh 0x12345, 0(sp)
			a1 = mov 9029`},
		{"a load into zero after a proven one goes", `
			a1 = ld 0(sp)
			zero = ld 0(sp)`, `
			a1 = ld 0(sp)`},
	})
}
