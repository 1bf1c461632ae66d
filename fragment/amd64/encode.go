// Instruction encoding: one typed x86-64 instruction (mnemonic and operands) -> its machine code bytes.

package amd64

import "fmt"

// The encoder knows exactly the instructions the lowering emits (the
// mnemonics of asm.go, with the operand forms each takes) and encodes
// each the way the Go assembler does, shortest immediates and
// displacements first, so that a fragment's code is what golang-asm
// made of it before (TestEncodeMatchesGoAsm compares every form). It
// replaced golang-asm, whose span-dependent assembly was three quarters
// of a fragment's compile time (docs/performance.md, "Start-up").

// gpr and xmm return a register's hardware number (0..15), for a
// general-purpose and an XMM register.
func (r register) gpr() byte { return byte(r - rAX) }
func (r register) xmm() byte { return byte(r - rX0) }

// isXMM reports whether r is an XMM register.
func (r register) isXMM() bool { return r >= rX0 }

// hw returns r's hardware number, whatever its class.
func (r register) hw() byte {
	if r.isXMM() {
		return r.xmm()
	}
	return r.gpr()
}

// encoder appends instructions to buf.
type encoder struct {
	buf []byte
	err error
}

func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("assembler: "+format, args...)
	}
}

func (e *encoder) put(bs ...byte) { e.buf = append(e.buf, bs...) }

func (e *encoder) put32(v int32) {
	e.buf = append(e.buf, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func (e *encoder) put64(v int64) {
	e.put32(int32(v))
	e.put32(int32(v >> 32))
}

func fits8(v int64) bool  { return v >= -128 && v < 128 }
func fits32(v int64) bool { return v == int64(int32(v)) }

// rex returns the REX prefix for W, the ModRM reg field's register
// number reg and the r/m operand rm (its base and index), or 0 when none
// is needed; byteRegs asks for one when a byte register operand is
// SPL, BPL, SIL or DIL.
func rex(w bool, reg byte, rm operand, byteRegs bool) byte {
	var b byte
	if w {
		b |= 8
	}
	if reg&8 != 0 {
		b |= 4
	}
	switch rm.kind {
	case kReg:
		n := rm.reg.hw()
		if n&8 != 0 {
			b |= 1
		}
		if byteRegs && !rm.reg.isXMM() && n >= 4 && n < 8 {
			b |= 0x40
		}
	case kMem:
		if rm.index != 0 && rm.index.gpr()&8 != 0 {
			b |= 2
		}
		if rm.reg.gpr()&8 != 0 {
			b |= 1
		}
	}
	if byteRegs && reg >= 4 && reg < 8 {
		b |= 0x40
	}
	if b != 0 {
		return 0x40 | b
	}
	return 0
}

// modrm appends the ModRM byte (and SIB and displacement) of r/m operand
// rm with reg in the reg field.
func (e *encoder) modrm(reg byte, rm operand) {
	reg &= 7
	switch rm.kind {
	case kReg:
		e.put(0xc0 | reg<<3 | rm.reg.hw()&7)
		return
	case kMem:
	default:
		e.fail("operand %v is not a register or memory", rm)
		return
	}
	base := rm.reg.gpr() & 7
	var mod byte
	switch {
	case rm.off == 0 && base != 5: // [rbp] and [r13] need a displacement
		mod = 0
	case fits8(rm.off):
		mod = 1
	case fits32(rm.off):
		mod = 2
	default:
		e.fail("displacement %#x does not fit 32 bits", rm.off)
		return
	}
	if rm.index != 0 || base == 4 { // SIB: an index, or rsp/r12 as base
		index := byte(4) // none
		if rm.index != 0 {
			index = rm.index.gpr() & 7
		}
		e.put(mod<<6|reg<<3|4, rm.scale<<6|index<<3|base)
	} else {
		e.put(mod<<6 | reg<<3 | base)
	}
	switch mod {
	case 1:
		e.put(byte(rm.off))
	case 2:
		e.put32(int32(rm.off))
	}
}

// rm emits prefix (a mandatory prefix, or 0), REX as needed, the
// opcode bytes and the ModRM of r/m operand rm with reg in the reg field.
func (e *encoder) rm(prefix byte, w bool, opcode []byte, reg byte, rm operand, byteRegs bool) {
	if prefix != 0 {
		e.put(prefix)
	}
	if x := rex(w, reg, rm, byteRegs); x != 0 {
		e.put(x)
	}
	e.put(opcode...)
	e.modrm(reg, rm)
}

// aluOps are the binary ALU instructions: their /digit in the 80-83
// group; the r/m, reg form's opcode is 8*digit+1 (+0 for bytes) and the
// reg, r/m form's 8*digit+3.
var aluOps = [numInsts]groupOp{
	xADDQ: {0, true, true}, xADDL: {0, false, true}, xORQ: {1, true, true}, xORL: {1, false, true},
	xANDQ: {4, true, true}, xANDL: {4, false, true}, xSUBQ: {5, true, true}, xSUBL: {5, false, true},
	xXORQ: {6, true, true}, xXORL: {6, false, true}, xCMPQ: {7, true, true}, xCMPL: {7, false, true},
	xADDW: {0, false, true}, xSUBW: {5, false, true},
}

// A groupOp is an instruction of an opcode group: its /digit, REX.W,
// and ok for the mnemonics the table holds. (The tables are arrays
// indexed by mnemonic: maps keyed by a byte hashed it, a seventh of a
// fragment's compile time.)
type groupOp struct {
	digit byte
	w, ok bool
}

// sseOps are the SSE instructions "op xmm/m, xmm" (Go order: source,
// destination): mandatory prefix, REX.W, opcode after 0F.
var sseOps = [numInsts]struct {
	prefix byte
	w      bool
	op     byte
}{
	xADDSD: {0xf2, false, 0x58}, xMULSD: {0xf2, false, 0x59}, xSUBSD: {0xf2, false, 0x5c}, xMINSD: {0xf2, false, 0x5d},
	xDIVSD: {0xf2, false, 0x5e}, xMAXSD: {0xf2, false, 0x5f}, xSQRTSD: {0xf2, false, 0x51},
	xADDSS: {0xf3, false, 0x58}, xMULSS: {0xf3, false, 0x59}, xSUBSS: {0xf3, false, 0x5c}, xMINSS: {0xf3, false, 0x5d},
	xDIVSS: {0xf3, false, 0x5e}, xMAXSS: {0xf3, false, 0x5f}, xSQRTSS: {0xf3, false, 0x51},
	xUCOMISD: {0x66, false, 0x2e}, xCOMISD: {0x66, false, 0x2f}, xUCOMISS: {0, false, 0x2e}, xCOMISS: {0, false, 0x2f},
	xANDPD: {0x66, false, 0x54}, xORPD: {0x66, false, 0x56}, xXORPS: {0, false, 0x57},
	xPCMPEQL:  {0x66, false, 0x76},
	xCVTSD2SS: {0xf2, false, 0x5a}, xCVTSS2SD: {0xf3, false, 0x5a},
	// To an integer register: cvt(t)sx2si reg, xmm/m.
	xCVTTSD2SL: {0xf2, false, 0x2c}, xCVTTSD2SQ: {0xf2, true, 0x2c}, xCVTSD2SL: {0xf2, false, 0x2d}, xCVTSD2SQ: {0xf2, true, 0x2d},
	xCVTTSS2SL: {0xf3, false, 0x2c}, xCVTTSS2SQ: {0xf3, true, 0x2c}, xCVTSS2SL: {0xf3, false, 0x2d}, xCVTSS2SQ: {0xf3, true, 0x2d},
	// From an integer register: cvtsi2sx xmm, reg/m.
	xCVTSL2SD: {0xf2, false, 0x2a}, xCVTSQ2SD: {0xf2, true, 0x2a}, xCVTSL2SS: {0xf3, false, 0x2a}, xCVTSQ2SS: {0xf3, true, 0x2a},
}

// fmaOps are the FMA3 instructions' opcodes after 0F 38 (VEX.66, W1
// for doubles): the 231 forms (the addend in the destination) and the
// 213 forms (a factor in the destination), 0x10 apart.
var fmaOps = [numInsts]struct {
	w  bool
	op byte
}{
	xVFMADD231SD: {true, 0xb9}, xVFMSUB231SD: {true, 0xbb}, xVFNMADD231SD: {true, 0xbd}, xVFNMSUB231SD: {true, 0xbf},
	xVFMADD231SS: {false, 0xb9}, xVFMSUB231SS: {false, 0xbb}, xVFNMADD231SS: {false, 0xbd}, xVFNMSUB231SS: {false, 0xbf},
	xVFMADD213SD: {true, 0xa9}, xVFMSUB213SD: {true, 0xab}, xVFNMADD213SD: {true, 0xad}, xVFNMSUB213SD: {true, 0xaf},
	xVFMADD213SS: {false, 0xa9}, xVFMSUB213SS: {false, 0xab}, xVFNMADD213SS: {false, 0xad}, xVFNMSUB213SS: {false, 0xaf},
}

// avxOps are the AVX scalar arithmetic's opcodes after 0F
// (VEX.LIG.F2.0F.WIG for doubles, VEX.LIG.F3.0F.WIG for singles): three
// operands, the destination apart from both sources.
var avxOps = [numInsts]byte{xVADDSD: 0x58, xVMULSD: 0x59, xVSUBSD: 0x5c, xVDIVSD: 0x5e,
	xVADDSS: 0x58, xVMULSS: 0x59, xVSUBSS: 0x5c, xVDIVSS: 0x5e}

// avxSingle marks avxOps' single-precision forms (VEX.F3, not F2).
var avxSingle = [numInsts]bool{xVADDSS: true, xVMULSS: true, xVSUBSS: true, xVDIVSS: true}

// bmi2Ops are BMI2's shifts and rotate (VEX.LZ.pp.map.W op /r):
// SHLX, SHRX and SARX (map 0F 38, opcode F7, the count in VEX.vvvv)
// and RORX (map 0F 3A, opcode F0, an 8-bit immediate). The
// destination is apart from the source, which may be memory.
var bmi2Ops = [numInsts]struct {
	mmmmm, pp, op byte
	w             bool
}{
	xSHLXQ: {vexMap0F38, vexPP66, 0xf7, true}, xSHLXL: {vexMap0F38, vexPP66, 0xf7, false},
	xSHRXQ: {vexMap0F38, vexPPF2, 0xf7, true}, xSHRXL: {vexMap0F38, vexPPF2, 0xf7, false},
	xSARXQ: {vexMap0F38, vexPPF3, 0xf7, true}, xSARXL: {vexMap0F38, vexPPF3, 0xf7, false},
	xRORXQ: {vexMap0F3A, vexPPF2, 0xf0, true}, xRORXL: {vexMap0F3A, vexPPF2, 0xf0, false},
}

// unaryOps are the F7 group's one-operand instructions: /digit and W.
var unaryOps = [numInsts]groupOp{
	xMULQ: {4, true, true}, xNEGQ: {3, true, true}, xNEGL: {3, false, true},
	xDIVQ: {6, true, true}, xDIVL: {6, false, true}, xIDIVQ: {7, true, true}, xIDIVL: {7, false, true},
}

// shiftOps are the shifts: /digit in the C1/D1/D3 group, and W.
var shiftOps = [numInsts]groupOp{
	xSHLQ: {4, true, true}, xSHRQ: {5, true, true}, xSARQ: {7, true, true},
	xSHLL: {4, false, true}, xSHRL: {5, false, true}, xSARL: {7, false, true},
	xRORQ: {1, true, true}, xRORL: {1, false, true},
}

// setOps are the SETcc instructions' second opcode bytes (0F 9x).
var setOps = [numInsts]byte{
	xSETLT: 0x9c, xSETCS: 0x92, xSETEQ: 0x94, xSETPC: 0x9b, xSETHI: 0x97, xSETCC: 0x93,
}

// extOps are the zero and sign extensions: opcode bytes and W.
var extOps = [numInsts]struct {
	op []byte
	w  bool
}{
	xMOVBQZX: {[]byte{0x0f, 0xb6}, true}, xMOVWQZX: {[]byte{0x0f, 0xb7}, true},
	xMOVBQSX: {[]byte{0x0f, 0xbe}, true}, xMOVWQSX: {[]byte{0x0f, 0xbf}, true},
	xMOVLQSX: {[]byte{0x63}, true},
}

// encode appends instruction i with operands from, mid and to (Go
// assembler order: sources first, destination last; mid only for
// three-operand instructions).
func (e *encoder) encode(i mnemonic, from, mid, to operand) {
	if alu := aluOps[i]; alu.ok {
		e.alu(i, alu.digit, alu.w, from, to)
		return
	}
	if s := sseOps[i]; s.op != 0 {
		// reg = the destination (an XMM or, for conversions to integers, a
		// general register), r/m = the source. Go's UCOMISx x, y is
		// Intel's ucomisx y, x: the same layout.
		if to.kind != kReg {
			e.fail("%s: destination %v", mnemonicName(i), to)
			return
		}
		e.rm(s.prefix, s.w, []byte{0x0f, s.op}, to.reg.hw(), from, false)
		return
	}
	if f := fmaOps[i]; f.op != 0 {
		e.vex(vexMap0F38, vexPP66, f.w, f.op, to.reg.xmm(), mid.reg.xmm(), from)
		return
	}
	if op := avxOps[i]; op != 0 {
		pp := byte(vexPPF2)
		if avxSingle[i] {
			pp = vexPPF3
		}
		e.vex(vexMap0F, pp, false, op, to.reg.xmm(), mid.reg.xmm(), from)
		return
	}
	if b := bmi2Ops[i]; b.op != 0 {
		if to.kind != kReg || mid.kind != kReg && mid.kind != kMem {
			e.fail("%s with %v, %v, %v", mnemonicName(i), from, mid, to)
			return
		}
		if b.op == 0xf0 { // RORX $n, src, dst
			e.vex(b.mmmmm, b.pp, b.w, b.op, to.reg.hw(), 0, mid)
			e.put(byte(from.off))
			return
		}
		e.vex(b.mmmmm, b.pp, b.w, b.op, to.reg.hw(), from.reg.hw(), mid)
		return
	}
	if u := unaryOps[i]; u.ok {
		x := to // NEGQ x; but MULQ x and the divisions name x as the source
		if x.kind == kNone {
			x = from
		}
		e.rm(0, u.w, []byte{0xf7}, u.digit, x, false)
		return
	}
	if s := shiftOps[i]; s.ok {
		switch {
		case from.kind == kImm && from.off == 1:
			e.rm(0, s.w, []byte{0xd1}, s.digit, to, false)
		case from.kind == kImm:
			e.rm(0, s.w, []byte{0xc1}, s.digit, to, false)
			e.put(byte(from.off))
		case from.kind == kReg && from.reg == rCX:
			e.rm(0, s.w, []byte{0xd3}, s.digit, to, false)
		default:
			e.fail("%s by %v", mnemonicName(i), from)
		}
		return
	}
	if op := setOps[i]; op != 0 {
		e.rm(0, false, []byte{0x0f, op}, 0, to, true)
		return
	}
	if x := extOps[i]; x.op != nil {
		e.rm(0, x.w, x.op, to.reg.gpr(), from, false)
		return
	}
	switch i {
	case xMOVQ, xMOVL, xMOVW, xMOVB:
		e.mov(i, from, to)
	case xLEAQ:
		e.rm(0, true, []byte{0x8d}, to.reg.gpr(), from, false)
	case xLEAW:
		e.rm(0x66, false, []byte{0x8d}, to.reg.gpr(), from, false)
	case xIMULQ, xIMULL:
		w := i == xIMULQ
		if to.kind == kNone { // the one-operand form: DX:AX = AX * from
			e.rm(0, w, []byte{0xf7}, 5, from, false)
			return
		}
		if from.kind == kImm {
			if fits8(from.off) {
				e.rm(0, w, []byte{0x6b}, to.reg.gpr(), to, false)
				e.put(byte(from.off))
			} else {
				e.rm(0, w, []byte{0x69}, to.reg.gpr(), to, false)
				e.put32(int32(from.off))
			}
			return
		}
		e.rm(0, w, []byte{0x0f, 0xaf}, to.reg.gpr(), from, false)
	case xTESTQ, xTESTL, xTESTB:
		e.test(i, from, to)
	case xCQO:
		e.put(0x48, 0x99)
	case xCDQ:
		e.put(0x99)
	case xREP:
		e.put(0xf3)
	case xSTOSB:
		e.put(0xaa)
	case xMOVSB:
		e.put(0xa4)
	case xSTOSQ:
		e.put(0x48, 0xab)
	case xRET:
		e.put(0xc3)
	case xJMP:
		e.rm(0, false, []byte{0xff}, 4, to, false)
	case xSTMXCSR:
		e.rm(0, false, []byte{0x0f, 0xae}, 3, to, false)
	case xLDMXCSR:
		e.rm(0, false, []byte{0x0f, 0xae}, 2, from, false)
	case xCMOVLLT:
		e.rm(0, false, []byte{0x0f, 0x4c}, to.reg.gpr(), from, false)
	case xPREFETCHW:
		e.rm(0, false, []byte{0x0f, 0x0d}, 1, from, false)
	case xMOVSD, xMOVSS:
		prefix := byte(0xf2)
		if i == xMOVSS {
			prefix = 0xf3
		}
		if to.kind == kMem {
			e.rm(prefix, false, []byte{0x0f, 0x11}, from.reg.xmm(), to, false)
		} else {
			e.rm(prefix, false, []byte{0x0f, 0x10}, to.reg.xmm(), from, false)
		}
	case xMOVAPS:
		e.rm(0, false, []byte{0x0f, 0x28}, to.reg.xmm(), from, false)
	case xROUNDSD, xROUNDSS:
		op := byte(0x0b)
		if i == xROUNDSS {
			op = 0x0a
		}
		e.rm(0x66, false, []byte{0x0f, 0x3a, op}, to.reg.xmm(), mid, false)
		e.put(byte(from.off))
	default:
		e.fail("cannot encode %s", mnemonicName(i))
	}
}

// alu encodes a binary ALU instruction. Go's CMP x, y is Intel's cmp
// x, y; the others' Go "op x, y" is Intel's "op y, x".
func (e *encoder) alu(i mnemonic, digit byte, w bool, from, to operand) {
	dst, src := to, from
	if i == xCMPQ || i == xCMPL {
		dst, src = from, to
	}
	if i == xADDW || i == xSUBW {
		e.aluW(digit, src, dst)
		return
	}
	switch {
	case src.kind == kImm:
		switch {
		case fits8(src.off):
			e.rm(0, w, []byte{0x83}, digit, dst, false)
			e.put(byte(src.off))
		case dst.kind == kReg && dst.reg == rAX:
			if w {
				e.put(0x48)
			}
			e.put(8*digit + 5)
			e.put32(int32(src.off))
		default:
			e.rm(0, w, []byte{0x81}, digit, dst, false)
			e.put32(int32(src.off))
		}
	case src.kind == kReg:
		e.rm(0, w, []byte{8*digit + 1}, src.reg.gpr(), dst, false)
	case src.kind == kMem && dst.kind == kReg:
		e.rm(0, w, []byte{8*digit + 3}, dst.reg.gpr(), src, false)
	default:
		e.fail("%s with %v, %v", mnemonicName(i), from, to)
	}
}

// aluW encodes ADDW and SUBW of an 8-bit immediate or a register into a
// register: the operand-size prefix, then the 32-bit forms' opcodes (the
// lowering needs no other form).
func (e *encoder) aluW(digit byte, src, dst operand) {
	switch {
	case dst.kind != kReg:
		e.fail("16-bit ALU into %v", dst)
	case src.kind == kImm && fits8(src.off):
		e.rm(0x66, false, []byte{0x83}, digit, dst, false)
		e.put(byte(src.off))
	case src.kind == kReg:
		e.rm(0x66, false, []byte{8*digit + 1}, src.reg.gpr(), dst, false)
	default:
		e.fail("16-bit ALU with %v, %v", src, dst)
	}
}

// test encodes TEST (Go order: TEST x, y is Intel's test y, x).
func (e *encoder) test(i mnemonic, from, to operand) {
	w := i == xTESTQ
	switch {
	case i == xTESTB && from.kind == kImm:
		if to.kind == kReg && to.reg == rAX {
			e.put(0xa8, byte(from.off))
			return
		}
		e.rm(0, false, []byte{0xf6}, 0, to, true)
		e.put(byte(from.off))
	case from.kind == kImm:
		if to.kind == kReg && to.reg == rAX {
			if w {
				e.put(0x48)
			}
			e.put(0xa9)
			e.put32(int32(from.off))
			return
		}
		e.rm(0, w, []byte{0xf7}, 0, to, false)
		e.put32(int32(from.off))
	case from.kind == kReg && i == xTESTB:
		e.rm(0, false, []byte{0x84}, from.reg.gpr(), to, true)
	case from.kind == kReg:
		e.rm(0, w, []byte{0x85}, from.reg.gpr(), to, false)
	default:
		e.fail("TEST with %v, %v", from, to)
	}
}

// mov encodes MOVQ, MOVL, MOVW and MOVB, MOVQ between general and XMM
// registers included.
func (e *encoder) mov(i mnemonic, from, to operand) {
	w := i == xMOVQ
	var prefix byte
	if i == xMOVW {
		prefix = 0x66
	}
	byteOp := i == xMOVB
	op := func(o byte) byte {
		if byteOp {
			return o - 1
		}
		return o
	}
	switch {
	case from.kind == kReg && from.reg.isXMM() && to.kind == kReg && !to.reg.isXMM():
		e.rm(0x66, true, []byte{0x0f, 0x7e}, from.reg.xmm(), to, false)
	case to.kind == kReg && to.reg.isXMM():
		if from.kind == kReg && from.reg.isXMM() {
			e.rm(0xf3, false, []byte{0x0f, 0x7e}, to.reg.xmm(), from, false)
			return
		}
		e.rm(0x66, true, []byte{0x0f, 0x6e}, to.reg.xmm(), from, false)
	case from.kind == kReg:
		e.rm(prefix, w, []byte{op(0x89)}, from.reg.gpr(), to, byteOp)
	case from.kind == kMem && to.kind == kReg:
		e.rm(prefix, w, []byte{op(0x8b)}, to.reg.gpr(), from, byteOp)
	case from.kind == kImm && to.kind == kReg && !byteOp && prefix == 0:
		v := from.off
		if !w {
			v = int64(uint32(v))
		}
		n := to.reg.gpr()
		switch {
		// The Go assembler's choices: the sign-extended imm32 for int32
		// values, MOVL's zero extension for the other uint32 ones.
		case !w || !fits32(v) && v>>32 == 0:
			if n&8 != 0 {
				e.put(0x41)
			}
			e.put(0xb8 + n&7)
			e.put32(int32(v))
		case fits32(v):
			e.rm(0, true, []byte{0xc7}, 0, to, false)
			e.put32(int32(v))
		default:
			e.put(0x48 | (n>>3)&1)
			e.put(0xb8 + n&7)
			e.put64(v)
		}
	case from.kind == kImm && to.kind == kReg && prefix == 0x66:
		// MOVW $imm16, r16: B8+r iw, the Go assembler's form.
		n := to.reg.gpr()
		e.put(0x66)
		if n&8 != 0 {
			e.put(0x41)
		}
		e.put(0xb8+n&7, byte(from.off), byte(from.off>>8))
	case from.kind == kImm:
		if w && !fits32(from.off) {
			e.fail("MOVQ $%#x to memory", from.off)
			return
		}
		e.rm(prefix, w, []byte{op(0xc7)}, 0, to, byteOp)
		switch {
		case byteOp:
			e.put(byte(from.off))
		case prefix == 0x66:
			e.put(byte(from.off), byte(from.off>>8))
		default:
			e.put32(int32(from.off))
		}
	default:
		e.fail("%s with %v, %v", mnemonicName(i), from, to)
	}
}

// The VEX prefix's opcode maps (mmmmm) and implied prefixes (pp).
const (
	vexMap0F   = 1
	vexMap0F38 = 2
	vexMap0F3A = 3
	vexPP66    = 1
	vexPPF3    = 2
	vexPPF2    = 3
)

// vex encodes a VEX instruction (VEX.LIG.pp.map.W op /r): the FMA3
// instructions, AVX's scalar arithmetic and BMI2's shifts (whose L, 0
// here, must be 0), with reg, vvvv and r/m
// operand rm; the two-byte prefix where it can say everything, as
// golang-asm encodes it.
func (e *encoder) vex(mmmmm, pp byte, w bool, op, reg, vvvv byte, rm operand) {
	b1 := mmmmm
	if reg&8 == 0 {
		b1 |= 0x80
	}
	switch rm.kind {
	case kReg:
		if rm.reg.hw()&8 == 0 {
			b1 |= 0x20
		}
		b1 |= 0x40 // no index
	case kMem:
		if rm.index == 0 || rm.index.gpr()&8 == 0 {
			b1 |= 0x40
		}
		if rm.reg.gpr()&8 == 0 {
			b1 |= 0x20
		}
	}
	b2 := (^vvvv&15)<<3 | pp
	if w {
		b2 |= 0x80
	}
	if mmmmm == vexMap0F && !w && b1&0x60 == 0x60 { // no X, B or W: the two-byte form
		e.put(0xc5, b1&0x80|b2, op)
		e.modrm(reg, rm)
		return
	}
	e.put(0xc4, b1, b2, op)
	e.modrm(reg, rm)
}
