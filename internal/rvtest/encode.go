// Encoder: interp.Inst -> 32-bit instruction word, the inverse of interp.Decode.

package rvtest

import "rvdyn/interp"

// Encode returns the instruction word for in, using its Op, registers and
// Imm (Raw is ignored). Immediates are truncated to their field widths.
// F and D instructions (encode_float.go), CSR accesses (Imm the CSR,
// Rs1 the register or immediate) and atomics (aq and rl clear) are
// encoded too. For interp.OpIllegal it returns 0, which is not a
// valid instruction.
func Encode(in interp.Inst) uint32 {
	rd, rs1, rs2 := uint32(in.Rd&31), uint32(in.Rs1&31), uint32(in.Rs2&31)
	imm := uint32(in.Imm)
	r := func(opc, f3, f7 uint32) uint32 { return f7<<25 | rs2<<20 | rs1<<15 | f3<<12 | rd<<7 | opc }
	i := func(opc, f3 uint32) uint32 { return (imm&0xfff)<<20 | rs1<<15 | f3<<12 | rd<<7 | opc }
	s := func(f3 uint32) uint32 {
		return (imm>>5&0x7f)<<25 | rs2<<20 | rs1<<15 | f3<<12 | (imm&31)<<7 | 0x23
	}
	b := func(f3 uint32) uint32 {
		return (imm>>12&1)<<31 | (imm>>5&0x3f)<<25 | rs2<<20 | rs1<<15 | f3<<12 | (imm>>1&15)<<8 | (imm>>11&1)<<7 | 0x63
	}
	sh := func(opc, f3, f6 uint32) uint32 { return f6<<26 | (imm&63)<<20 | rs1<<15 | f3<<12 | rd<<7 | opc }
	switch op := in.Op; {
	case op == interp.OpLUI:
		return imm&0xfffff000 | rd<<7 | 0x37
	case op == interp.OpAUIPC:
		return imm&0xfffff000 | rd<<7 | 0x17
	case op == interp.OpJAL:
		return (imm>>20&1)<<31 | (imm>>1&0x3ff)<<21 | (imm>>11&1)<<20 | (imm>>12&0xff)<<12 | rd<<7 | 0x6f
	case op == interp.OpJALR:
		return i(0x67, 0)
	case op >= interp.OpBEQ && op <= interp.OpBGEU:
		return b([6]uint32{0, 1, 4, 5, 6, 7}[op-interp.OpBEQ])
	case op >= interp.OpLB && op <= interp.OpLWU:
		return i(0x03, [7]uint32{0, 1, 2, 3, 4, 5, 6}[op-interp.OpLB])
	case op >= interp.OpSB && op <= interp.OpSD:
		return s(uint32(op - interp.OpSB))
	case op == interp.OpSLLI:
		return sh(0x13, 1, 0)
	case op == interp.OpSRLI:
		return sh(0x13, 5, 0)
	case op == interp.OpSRAI:
		return sh(0x13, 5, 0x10)
	case op >= interp.OpADDI && op <= interp.OpANDI:
		return i(0x13, [6]uint32{0, 2, 3, 4, 6, 7}[op-interp.OpADDI])
	case op == interp.OpADDIW:
		return i(0x1b, 0)
	case op == interp.OpSLLIW:
		return sh(0x1b, 1, 0) &^ (1 << 25)
	case op == interp.OpSRLIW:
		return sh(0x1b, 5, 0) &^ (1 << 25)
	case op == interp.OpSRAIW:
		return sh(0x1b, 5, 0x10) &^ (1 << 25)
	case op >= interp.OpADD && op <= interp.OpAND:
		f3 := [10]uint32{0, 0, 1, 2, 3, 4, 5, 5, 6, 7}[op-interp.OpADD]
		var f7 uint32
		if op == interp.OpSUB || op == interp.OpSRA {
			f7 = 0x20
		}
		return r(0x33, f3, f7)
	case op >= interp.OpADDW && op <= interp.OpSRAW:
		f3 := [5]uint32{0, 0, 1, 5, 5}[op-interp.OpADDW]
		var f7 uint32
		if op == interp.OpSUBW || op == interp.OpSRAW {
			f7 = 0x20
		}
		return r(0x3b, f3, f7)
	case op >= interp.OpMUL && op <= interp.OpREMU:
		return r(0x33, uint32(op-interp.OpMUL), 1)
	case op >= interp.OpMULW && op <= interp.OpREMUW:
		return r(0x3b, [5]uint32{0, 4, 5, 6, 7}[op-interp.OpMULW], 1)
	case op == interp.OpFENCE:
		return 0x0ff0000f
	case op == interp.OpFENCEI:
		return 0x0000100f
	case op == interp.OpECALL:
		return 0x00000073
	case op == interp.OpEBREAK:
		return 0x00100073
	case op >= interp.OpCSRRW && op <= interp.OpCSRRC:
		return i(0x73, uint32(1+op-interp.OpCSRRW))
	case op >= interp.OpCSRRWI && op <= interp.OpCSRRCI:
		return i(0x73, uint32(5+op-interp.OpCSRRWI))
	case op >= interp.OpLRW && op <= interp.OpAMOMAXUD:
		f3, k := uint32(2), op-interp.OpLRW
		if op >= interp.OpLRD {
			f3, k = 3, op-interp.OpLRD
		}
		f5 := [...]uint32{2, 3, 1, 0, 4, 0xc, 8, 0x10, 0x14, 0x18, 0x1c}[k]
		if k == 0 {
			rs2 = 0
		}
		return f5<<27 | rs2<<20 | rs1<<15 | f3<<12 | rd<<7 | 0x2f
	}
	w, _ := encodeFloat(in)
	return w
}

// EncodeAll encodes a program, one word per instruction.
func EncodeAll(prog []interp.Inst) []uint32 {
	words := make([]uint32, len(prog))
	for i, in := range prog {
		words[i] = Encode(in)
	}
	return words
}
