// Decoder: 32-bit RV64IM instruction word -> Inst.

package interp

// Decode decodes one 32-bit instruction word. A word that is not an RV64IM
// instruction (including every compressed, floating-point and CSR encoding)
// decodes to an Inst with Op == OpIllegal and Raw set; Decode never fails
// otherwise.
func Decode(w uint32) Inst {
	in := Inst{Raw: w}
	rd := uint8(w>>7) & 31
	rs1 := uint8(w>>15) & 31
	rs2 := uint8(w>>20) & 31
	f3 := (w >> 12) & 7
	f7 := w >> 25
	immI := int64(int32(w) >> 20)
	immS := int64(int32(w)>>25)<<5 | int64((w>>7)&31)
	immB := int64(int32(w)>>31)<<12 | int64((w>>7)&1)<<11 | int64((w>>25)&63)<<5 | int64((w>>8)&15)<<1
	immU := int64(int32(w & 0xfffff000))
	immJ := int64(int32(w)>>31)<<20 | int64((w>>12)&0xff)<<12 | int64((w>>20)&1)<<11 | int64((w>>21)&0x3ff)<<1

	switch w & 0x7f {
	case 0x37:
		in.Op, in.Rd, in.Imm = OpLUI, rd, immU
	case 0x17:
		in.Op, in.Rd, in.Imm = OpAUIPC, rd, immU
	case 0x6f:
		in.Op, in.Rd, in.Imm = OpJAL, rd, immJ
	case 0x67:
		if f3 == 0 {
			in.Op, in.Rd, in.Rs1, in.Imm = OpJALR, rd, rs1, immI
		}
	case 0x63:
		ops := [8]Op{OpBEQ, OpBNE, OpIllegal, OpIllegal, OpBLT, OpBGE, OpBLTU, OpBGEU}
		if op := ops[f3]; op != OpIllegal {
			in.Op, in.Rs1, in.Rs2, in.Imm = op, rs1, rs2, immB
		}
	case 0x03:
		ops := [8]Op{OpLB, OpLH, OpLW, OpLD, OpLBU, OpLHU, OpLWU, OpIllegal}
		if op := ops[f3]; op != OpIllegal {
			in.Op, in.Rd, in.Rs1, in.Imm = op, rd, rs1, immI
		}
	case 0x23:
		if f3 < 4 {
			in.Op, in.Rs1, in.Rs2, in.Imm = OpSB+Op(f3), rs1, rs2, immS
		}
	case 0x13:
		in.Rd, in.Rs1, in.Imm = rd, rs1, immI
		switch f3 {
		case 0:
			in.Op = OpADDI
		case 2:
			in.Op = OpSLTI
		case 3:
			in.Op = OpSLTIU
		case 4:
			in.Op = OpXORI
		case 6:
			in.Op = OpORI
		case 7:
			in.Op = OpANDI
		case 1:
			if w>>26 == 0 {
				in.Op, in.Imm = OpSLLI, int64((w>>20)&63)
			}
		case 5:
			switch w >> 26 {
			case 0:
				in.Op, in.Imm = OpSRLI, int64((w>>20)&63)
			case 0x10:
				in.Op, in.Imm = OpSRAI, int64((w>>20)&63)
			}
		}
	case 0x1b:
		in.Rd, in.Rs1, in.Imm = rd, rs1, immI
		switch {
		case f3 == 0:
			in.Op = OpADDIW
		case f3 == 1 && f7 == 0:
			in.Op, in.Imm = OpSLLIW, int64(rs2)
		case f3 == 5 && f7 == 0:
			in.Op, in.Imm = OpSRLIW, int64(rs2)
		case f3 == 5 && f7 == 0x20:
			in.Op, in.Imm = OpSRAIW, int64(rs2)
		}
	case 0x33:
		in.Rd, in.Rs1, in.Rs2 = rd, rs1, rs2
		switch f7 {
		case 0:
			in.Op = [8]Op{OpADD, OpSLL, OpSLT, OpSLTU, OpXOR, OpSRL, OpOR, OpAND}[f3]
		case 0x20:
			in.Op = [8]Op{OpSUB, OpIllegal, OpIllegal, OpIllegal, OpIllegal, OpSRA, OpIllegal, OpIllegal}[f3]
		case 1:
			in.Op = OpMUL + Op(f3)
		}
	case 0x3b:
		in.Rd, in.Rs1, in.Rs2 = rd, rs1, rs2
		switch f7 {
		case 0:
			in.Op = [8]Op{OpADDW, OpSLLW, OpIllegal, OpIllegal, OpIllegal, OpSRLW, OpIllegal, OpIllegal}[f3]
		case 0x20:
			in.Op = [8]Op{OpSUBW, OpIllegal, OpIllegal, OpIllegal, OpIllegal, OpSRAW, OpIllegal, OpIllegal}[f3]
		case 1:
			in.Op = [8]Op{OpMULW, OpIllegal, OpIllegal, OpIllegal, OpDIVW, OpDIVUW, OpREMW, OpREMUW}[f3]
		}
	case 0x0f:
		// fence (including pause and the fence.tso hint) and fence.i; the
		// reserved register fields are ignored as the ISA allows.
		switch f3 {
		case 0:
			in.Op = OpFENCE
		case 1:
			in.Op = OpFENCEI
		}
	case 0x73:
		switch w {
		case 0x00000073:
			in.Op = OpECALL
		case 0x00100073:
			in.Op = OpEBREAK
		}
	}
	if in.Op == OpIllegal {
		return Inst{Raw: w}
	}
	return in
}
