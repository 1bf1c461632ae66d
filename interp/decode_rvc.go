// Compressed decoder: a 16-bit RVC parcel -> the Inst of the 32-bit instruction it expands to.

package interp

// DecodeCompressed decodes a 16-bit RV64C instruction into the base
// instruction it expands to (the ISA manual's "RVC instruction set
// listings", RV64 column): Raw keeps the parcel, so Len is 2. The
// all-zero parcel, reserved encodings and RV32-only or RV128-only forms
// decode to OpIllegal; the HINTs decode to their (harmless) expansion.
func DecodeCompressed(h uint16) Inst {
	w := uint32(h)
	in := Inst{Raw: w}
	bit := func(i uint) uint32 { return (w >> i) & 1 }
	bits := func(hi, lo uint) uint32 { return (w >> lo) & (1<<(hi-lo+1) - 1) }
	rdP := uint8(8 + bits(4, 2)) // rd' / rs2' (x8..x15, f8..f15)
	rs1P := uint8(8 + bits(9, 7))
	rd := uint8(bits(11, 7)) // rd / rs1
	rs2 := uint8(bits(6, 2))
	// The 6-bit immediate of CI forms: imm[5] at 12, imm[4:0] at 6:2.
	ci := int64(int32(bit(12)<<31|bits(6, 2)<<26) >> 26)
	shamt := int64(bit(12)<<5 | bits(6, 2))
	f3 := bits(15, 13)

	set := func(op Op, rd, rs1, rs2 uint8, imm int64) {
		in.Op, in.Rd, in.Rs1, in.Rs2, in.Imm = op, rd, rs1, rs2, imm
	}
	switch w & 3 {
	case 0:
		// Loads and stores off rd'/rs1': uimm[5:3] at 12:10, then the
		// word forms put uimm[2|6] at 6:5 and the doubleword forms
		// uimm[7:6].
		uw := int64(bits(12, 10)<<3 | bit(6)<<2 | bit(5)<<6)
		ud := int64(bits(12, 10)<<3 | bits(6, 5)<<6)
		switch f3 {
		case 0: // c.addi4spn: nzuimm[5:4|9:6|2|3] at 12:5
			imm := int64(bits(12, 11)<<4 | bits(10, 7)<<6 | bit(6)<<2 | bit(5)<<3)
			if imm != 0 {
				set(OpADDI, rdP, 2, 0, imm)
			}
		case 1:
			set(OpFLD, rdP, rs1P, 0, ud)
		case 2:
			set(OpLW, rdP, rs1P, 0, uw)
		case 3:
			set(OpLD, rdP, rs1P, 0, ud)
		case 5:
			set(OpFSD, 0, rs1P, rdP, ud)
		case 6:
			set(OpSW, 0, rs1P, rdP, uw)
		case 7:
			set(OpSD, 0, rs1P, rdP, ud)
		}
	case 1:
		switch f3 {
		case 0: // c.addi (c.nop when rd is x0)
			set(OpADDI, rd, rd, 0, ci)
		case 1: // c.addiw; rd = x0 is reserved
			if rd != 0 {
				set(OpADDIW, rd, rd, 0, ci)
			}
		case 2: // c.li
			set(OpADDI, rd, 0, 0, ci)
		case 3:
			if rd == 2 { // c.addi16sp: nzimm[9] at 12, [4|6|8:7|5] at 6:2
				imm := int64(int32(bit(12)<<31|bits(4, 3)<<29|bit(5)<<28|bit(2)<<27|bit(6)<<26) >> 22)
				if imm != 0 {
					set(OpADDI, 2, 2, 0, imm)
				}
			} else if ci != 0 { // c.lui: nzimm[17:12]
				set(OpLUI, rd, 0, 0, ci<<12)
			}
		case 4:
			r := rs1P
			switch bits(11, 10) {
			case 0:
				set(OpSRLI, r, r, 0, shamt)
			case 1:
				set(OpSRAI, r, r, 0, shamt)
			case 2:
				set(OpANDI, r, r, 0, ci)
			case 3:
				ops := [2][4]Op{{OpSUB, OpXOR, OpOR, OpAND}, {OpSUBW, OpADDW, OpIllegal, OpIllegal}}
				if op := ops[bit(12)][bits(6, 5)]; op != OpIllegal {
					set(op, r, r, rdP, 0)
				}
			}
		case 5: // c.j: offset[11|4|9:8|10|6|7|3:1|5] at 12:2
			set(OpJAL, 0, 0, 0, cjOffset(w))
		case 6, 7: // c.beqz, c.bnez: offset[8|4:3] at 12:10, [7:6|2:1|5] at 6:2
			off := int64(int32(bit(12)<<31|bits(6, 5)<<29|bit(2)<<28|bits(11, 10)<<26|bits(4, 3)<<24) >> 23)
			set([2]Op{OpBEQ, OpBNE}[f3-6], 0, rs1P, 0, off)
		}
	case 2:
		// Stack-pointer relative: loads take uimm[5] at 12 and the rest
		// at 6:2; stores take it all at 12:7.
		lw := int64(bit(12)<<5 | bits(6, 4)<<2 | bits(3, 2)<<6)
		ld := int64(bit(12)<<5 | bits(6, 5)<<3 | bits(4, 2)<<6)
		sw := int64(bits(12, 9)<<2 | bits(8, 7)<<6)
		sd := int64(bits(12, 10)<<3 | bits(9, 7)<<6)
		switch f3 {
		case 0:
			set(OpSLLI, rd, rd, 0, shamt)
		case 1:
			set(OpFLD, rd, 2, 0, ld)
		case 2:
			if rd != 0 {
				set(OpLW, rd, 2, 0, lw)
			}
		case 3:
			if rd != 0 {
				set(OpLD, rd, 2, 0, ld)
			}
		case 4:
			switch {
			case bit(12) == 0 && rs2 == 0: // c.jr; rs1 = x0 is reserved
				if rd != 0 {
					set(OpJALR, 0, rd, 0, 0)
				}
			case bit(12) == 0: // c.mv
				set(OpADD, rd, 0, rs2, 0)
			case rd == 0 && rs2 == 0:
				set(OpEBREAK, 0, 0, 0, 0)
			case rs2 == 0: // c.jalr
				set(OpJALR, 1, rd, 0, 0)
			default: // c.add
				set(OpADD, rd, rd, rs2, 0)
			}
		case 5:
			set(OpFSD, 0, 2, rs2, sd)
		case 6:
			set(OpSW, 0, 2, rs2, sw)
		case 7:
			set(OpSD, 0, 2, rs2, sd)
		}
	}
	if in.Op == OpIllegal {
		return Inst{Raw: w}
	}
	return in
}

// cjOffset returns the sign-extended jump offset of c.j (and RV32's
// c.jal): offset[11|4|9:8|10|6|7|3:1|5] in bits 12:2.
func cjOffset(w uint32) int64 {
	b := func(i uint) uint32 { return (w >> i) & 1 }
	v := b(12)<<11 | b(11)<<4 | (w>>9&3)<<8 | b(8)<<10 | b(7)<<6 | b(6)<<7 | (w>>3&7)<<1 | b(2)<<5
	return int64(int32(v<<20) >> 20)
}
