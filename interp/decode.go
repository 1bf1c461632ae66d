// Decoder: an RV64GC instruction (a 32-bit word or a 16-bit compressed parcel) -> Inst.

package interp

// Decode decodes the instruction whose first bytes, little-endian, are w.
// If the low two bits of w are not 11 it is a compressed instruction and
// only the low 16 bits are read (see DecodeCompressed); otherwise w is a
// 32-bit instruction. A word that is not an RV64GC instruction decodes to
// an Inst with Op == OpIllegal and Raw set; Decode never fails otherwise.
// Reserved encodings and rounding modes 5 and 6 are illegal; HINTs (for
// example an integer operation writing x0) decode as the operation.
func Decode(w uint32) Inst {
	if w&3 != 3 {
		return DecodeCompressed(uint16(w))
	}
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
		switch {
		case w == 0x00000073:
			in.Op = OpECALL
		case w == 0x00100073:
			in.Op = OpEBREAK
		case f3 != 0 && f3 != 4:
			in.Op = [8]Op{0, OpCSRRW, OpCSRRS, OpCSRRC, 0, OpCSRRWI, OpCSRRSI, OpCSRRCI}[f3]
			in.Rd, in.Rs1, in.Imm = rd, rs1, int64(w>>20)
		}
	case 0x2f:
		in = decodeAtomic(w, rd, rs1, rs2, f3)
	case 0x07, 0x27:
		if f3 == 2 || f3 == 3 {
			if w&0x7f == 0x07 {
				in.Op, in.Rd, in.Rs1, in.Imm = [2]Op{OpFLW, OpFLD}[f3-2], rd, rs1, immI
			} else {
				in.Op, in.Rs1, in.Rs2, in.Imm = [2]Op{OpFSW, OpFSD}[f3-2], rs1, rs2, immS
			}
		}
	case 0x43, 0x47, 0x4b, 0x4f:
		if fmt := f7 & 3; fmt < 2 && validRM(f3) {
			ops := [2][4]Op{{OpFMADDS, OpFMSUBS, OpFNMSUBS, OpFNMADDS}, {OpFMADDD, OpFMSUBD, OpFNMSUBD, OpFNMADDD}}
			in.Op, in.Rd, in.Rs1, in.Rs2 = ops[fmt][(w>>2)&3], rd, rs1, rs2
			in.Imm = int64(f3) | int64(w>>27)<<8
		}
	case 0x53:
		in = decodeOpFP(w, rd, rs1, rs2, f3, f7)
	}
	if in.Op == OpIllegal {
		return Inst{Raw: w}
	}
	return in
}

// validRM reports whether a rounding-mode field is one the ISA defines:
// 0..4, or 7 (dynamic).
func validRM(rm uint32) bool { return rm <= 4 || rm == 7 }

// amoOps maps the funct5 field of an AMO (bits 31:27) to the word
// operation; the doubleword one is its .D twin, a fixed distance on.
var amoOps = [32]Op{
	0x00: OpAMOADDW, 0x01: OpAMOSWAPW, 0x02: OpLRW, 0x03: OpSCW, 0x04: OpAMOXORW,
	0x08: OpAMOORW, 0x0c: OpAMOANDW, 0x10: OpAMOMINW, 0x14: OpAMOMAXW,
	0x18: OpAMOMINUW, 0x1c: OpAMOMAXUW,
}

// decodeAtomic decodes the A extension (opcode AMO).
func decodeAtomic(w uint32, rd, rs1, rs2 uint8, f3 uint32) Inst {
	op := amoOps[w>>27]
	if op == OpIllegal || f3 != 2 && f3 != 3 || op == OpLRW && rs2 != 0 {
		return Inst{Raw: w}
	}
	if f3 == 3 {
		op += OpLRD - OpLRW
	}
	return Inst{Op: op, Rd: rd, Rs1: rs1, Rs2: rs2, Raw: w}
}

// decodeOpFP decodes the F and D extensions' OP-FP opcode. funct7's low
// bit is the format (0 single, 1 double); the register fields that a
// form does not use (rs2 of fsqrt, fcvt and fmv) must hold the values
// the ISA gives them.
func decodeOpFP(w uint32, rd, rs1, rs2 uint8, f3, f7 uint32) Inst {
	in := Inst{Raw: w, Rd: rd, Rs1: rs1, Rs2: rs2, Imm: int64(f3)}
	d := f7 & 1
	pick := func(s, dbl Op) Op {
		if d == 1 {
			return dbl
		}
		return s
	}
	arith := validRM(f3)
	switch f7 &^ 1 {
	case 0x00, 0x04, 0x08, 0x0c:
		if arith {
			ops := [4][2]Op{{OpFADDS, OpFADDD}, {OpFSUBS, OpFSUBD}, {OpFMULS, OpFMULD}, {OpFDIVS, OpFDIVD}}
			in.Op = ops[f7>>2][d]
		}
	case 0x2c:
		if arith && rs2 == 0 {
			in.Op, in.Rs2 = pick(OpFSQRTS, OpFSQRTD), 0
		}
	case 0x10:
		if f3 < 3 {
			in.Op = [3][2]Op{{OpFSGNJS, OpFSGNJD}, {OpFSGNJNS, OpFSGNJND}, {OpFSGNJXS, OpFSGNJXD}}[f3][d]
		}
	case 0x14:
		if f3 < 2 {
			in.Op = [2][2]Op{{OpFMINS, OpFMIND}, {OpFMAXS, OpFMAXD}}[f3][d]
		}
	case 0x20:
		// fcvt.s.d (f7 0x20, rs2 1) and fcvt.d.s (f7 0x21, rs2 0).
		if arith && uint32(rs2) == 1-d {
			in.Op, in.Rs2 = pick(OpFCVTSD, OpFCVTDS), 0
		}
	case 0x50:
		if f3 < 3 {
			in.Op = [3][2]Op{{OpFLES, OpFLED}, {OpFLTS, OpFLTD}, {OpFEQS, OpFEQD}}[f3][d]
		}
	case 0x60:
		if arith && rs2 < 4 {
			in.Op, in.Rs2 = [4][2]Op{{OpFCVTWS, OpFCVTWD}, {OpFCVTWUS, OpFCVTWUD}, {OpFCVTLS, OpFCVTLD}, {OpFCVTLUS, OpFCVTLUD}}[rs2][d], 0
		}
	case 0x68:
		if arith && rs2 < 4 {
			in.Op, in.Rs2 = [4][2]Op{{OpFCVTSW, OpFCVTDW}, {OpFCVTSWU, OpFCVTDWU}, {OpFCVTSL, OpFCVTDL}, {OpFCVTSLU, OpFCVTDLU}}[rs2][d], 0
		}
	case 0x70:
		if rs2 == 0 && f3 < 2 {
			in.Op = [2][2]Op{{OpFMVXW, OpFMVXD}, {OpFCLASSS, OpFCLASSD}}[f3][d]
		}
	case 0x78:
		if rs2 == 0 && f3 == 0 {
			in.Op = pick(OpFMVWX, OpFMVDX)
		}
	}
	if in.Op == OpIllegal { // including the H and Q formats (funct7 bit 1)
		return Inst{Raw: w}
	}
	if !hasRM(in.Op) {
		in.Imm = 0
	}
	return in
}
