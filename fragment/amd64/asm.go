// Assembler: typed x86-64 instructions, labels and patchable fields -> machine code bytes (encode.go encodes each instruction).

package amd64

import (
	"errors"
	"sync"
)

// A register is a host register; 0 is no register. The general-purpose
// registers come first, in their hardware order, then the XMM registers.
type register int16

// Host registers.
const (
	rAX register = iota + 1
	rCX
	rDX
	rBX
	rSP
	rBP // Go's frame pointer: the trampoline saves it
	rSI
	rDI
	rR8
	rR9
	rR10
	rR11
	rR12
	rR13
	rR14
	rR15
	// XMM registers, for floating point (float.go): X0..X3 are scratch,
	// X4..X15 hold f registers (fregalloc.go).
	rX0
	rX1
	rX2
	rX3

	rMem = rR14 // host address of guest address 0
	rSt  = rR15 // *State
)

// An operand is an instruction operand: a register, an immediate or a
// memory reference [base + index<<scale + off]; the zero operand is none.
type operand struct {
	kind       operandKind
	reg, index register
	scale      uint8 // log2 of the index's multiplier: 0..3 (memScaled)
	off        int64
}

type operandKind uint8

const (
	kNone operandKind = iota
	kReg
	kImm
	kMem
)

var none operand

func reg(r register) operand { return operand{kind: kReg, reg: r} }
func imm(v int64) operand    { return operand{kind: kImm, off: v} }
func mem(base register, off int64) operand {
	return operand{kind: kMem, reg: base, off: off}
}
func memIdx(base, index register, off int64) operand {
	return operand{kind: kMem, reg: base, index: index, off: off}
}

// memScaled is the memory reference [base + index<<scale + off], scale
// 0..3 (x86's multipliers 1, 2, 4 and 8); index is never SP.
func memScaled(base, index register, scale uint8, off int64) operand {
	return operand{kind: kMem, reg: base, index: index, scale: scale & 3, off: off}
}

// isImm reports whether o is an immediate.
func (o operand) isImm() bool { return o.kind == kImm }

// A mnemonic is an x86-64 instruction, named as in Go assembler syntax
// (operand order: source, destination).
type mnemonic uint8

const (
	xMOVQ mnemonic = iota + 1
	xMOVL
	xMOVW
	xMOVB
	xMOVBQZX
	xMOVWQZX
	xMOVBQSX
	xMOVWQSX
	xMOVLQSX
	xLEAQ
	xADDQ
	xADDL
	xSUBQ
	xSUBL
	xANDQ
	xANDL
	xORQ
	xXORQ
	xXORL
	xIMULQ
	xIMULL
	xMULQ
	xIDIVQ
	xIDIVL
	xDIVQ
	xDIVL
	xNEGQ
	xNEGL
	xCQO
	xCDQ
	xSHLQ
	xSHRQ
	xSARQ
	xSHLL
	xSHRL
	xSARL
	xRORQ
	xRORL
	xCMPQ
	xCMPL
	xTESTQ
	xTESTL
	xTESTB
	xSETLT
	xSETCS
	xREP   // the prefix of the string instruction that follows
	xSTOSB // byte [DI] = AL, DI++ (DF is clear)
	xMOVSB // byte [DI] = [SI], SI++, DI++
	xSTOSQ // word [DI] = RAX, DI += 8
	xJMP   // through a memory operand; jumps to labels use jmp and jcc
	xRET
	xORL
	xSETEQ
	xSETPC // parity clear: ordered, after UCOMISD
	xSETHI // above (unsigned >)
	xSETCC // above or equal (unsigned >=)
	xSTMXCSR
	xLDMXCSR
	xCMOVLLT   // move if less (signed), 32 bits
	xPREFETCHW // fetch a line for writing (its operand is the address)
	// Scalar floating point (SSE2, SSE4.1 and FMA3; Go operand order,
	// source first). The comparisons UCOMISx/COMISx x, y set the flags
	// of comparing y with x, as Intel's "ucomisd y, x" does.
	xMOVSD // 64 bits between XMM registers and memory
	xMOVSS
	xMOVAPS // all 128 bits, between XMM registers
	xADDSD
	xSUBSD
	xMULSD
	xDIVSD
	xSQRTSD
	xMINSD
	xADDSS
	xSUBSS
	xMULSS
	xDIVSS
	xSQRTSS
	xMINSS
	xMAXSD
	xMAXSS
	xUCOMISD
	xUCOMISS
	xCOMISD
	xCOMISS
	xANDPD
	xORPD
	xXORPS
	xPCMPEQL
	xCVTTSD2SL
	xCVTTSD2SQ
	xCVTSD2SL
	xCVTSD2SQ
	xCVTTSS2SL
	xCVTTSS2SQ
	xCVTSS2SL
	xCVTSS2SQ
	xCVTSL2SD
	xCVTSQ2SD
	xCVTSL2SS
	xCVTSQ2SS
	xCVTSD2SS
	xCVTSS2SD
	xROUNDSD // three operands (op3): $mode, source, destination
	xROUNDSS
	xVFMADD231SD // three operands (op3): c, b, a: a = b*c + a
	xVFMSUB231SD
	xVFNMADD231SD
	xVFNMSUB231SD
	xVFMADD231SS
	xVFMSUB231SS
	xVFNMADD231SS
	xVFNMSUB231SS
	xVFMADD213SD // three operands (op3): c, b, a: a = b*a + c
	xVFMSUB213SD
	xVFNMADD213SD
	xVFNMSUB213SD
	xVFMADD213SS
	xVFMSUB213SS
	xVFNMADD213SS
	xVFNMSUB213SS
	xVADDSD // three operands (op3, AVX): b, a, d: d = a + b
	xVSUBSD // d = a - b
	xVMULSD
	xVDIVSD
	xVADDSS // the same for singles: d[31:0] = a op b, d[127:32] = a[127:32]
	xVSUBSS
	xVMULSS
	xVDIVSS
	xSHLXQ // three operands (op3, BMI2): count, src, dst: dst = src << count
	xSHLXL
	xSHRXQ // dst = src >> count, logical
	xSHRXL
	xSARXQ // dst = src >> count, arithmetic
	xSARXL
	xRORXQ // three operands (op3, BMI2): $n, src, dst: dst = src rotated right by n
	xRORXL
	// 16-bit forms, which leave the register's upper 48 bits as they
	// were: the sampling countdown in R12's low half (regAlloc.packed).
	xADDW
	xSUBW
	xLEAW
	numInsts
)

// mnemonicNames are the mnemonics' names, as in Go assembler syntax.
var mnemonicNames = [numInsts]string{
	xMOVQ: "MOVQ", xMOVL: "MOVL", xMOVW: "MOVW", xMOVB: "MOVB", xMOVBQZX: "MOVBQZX",
	xMOVWQZX: "MOVWQZX", xMOVBQSX: "MOVBQSX", xMOVWQSX: "MOVWQSX", xMOVLQSX: "MOVLQSX", xLEAQ: "LEAQ",
	xADDQ: "ADDQ", xADDL: "ADDL", xSUBQ: "SUBQ", xSUBL: "SUBL", xANDQ: "ANDQ", xANDL: "ANDL",
	xORQ: "ORQ", xXORQ: "XORQ", xXORL: "XORL", xIMULQ: "IMULQ", xIMULL: "IMULL", xMULQ: "MULQ",
	xIDIVQ: "IDIVQ", xIDIVL: "IDIVL", xDIVQ: "DIVQ", xDIVL: "DIVL", xNEGQ: "NEGQ", xNEGL: "NEGL",
	xCQO: "CQO", xCDQ: "CDQ", xSHLQ: "SHLQ", xSHRQ: "SHRQ", xSARQ: "SARQ", xSHLL: "SHLL",
	xSHRL: "SHRL", xSARL: "SARL", xRORQ: "RORQ", xRORL: "RORL", xCMPQ: "CMPQ", xCMPL: "CMPL", xTESTQ: "TESTQ", xTESTL: "TESTL",
	xTESTB: "TESTB", xSETLT: "SETLT", xSETCS: "SETCS", xREP: "REP", xSTOSB: "STOSB", xMOVSB: "MOVSB", xSTOSQ: "STOSQ",
	xJMP: "JMP", xRET: "RET", xORL: "ORL", xSETEQ: "SETEQ", xSETPC: "SETPC", xSETHI: "SETHI",
	xSETCC: "SETCC", xSTMXCSR: "STMXCSR", xLDMXCSR: "LDMXCSR", xCMOVLLT: "CMOVLLT", xPREFETCHW: "PREFETCHW", xMOVSD: "MOVSD",
	xMOVSS: "MOVSS", xMOVAPS: "MOVAPS", xADDSD: "ADDSD", xSUBSD: "SUBSD", xMULSD: "MULSD",
	xDIVSD: "DIVSD", xSQRTSD: "SQRTSD", xMINSD: "MINSD", xADDSS: "ADDSS", xSUBSS: "SUBSS",
	xMULSS: "MULSS", xDIVSS: "DIVSS", xSQRTSS: "SQRTSS", xMINSS: "MINSS", xMAXSD: "MAXSD",
	xMAXSS: "MAXSS", xUCOMISD: "UCOMISD", xUCOMISS: "UCOMISS", xCOMISD: "COMISD", xCOMISS: "COMISS",
	xANDPD: "ANDPD", xORPD: "ORPD", xXORPS: "XORPS", xPCMPEQL: "PCMPEQL", xCVTTSD2SL: "CVTTSD2SL", xCVTTSD2SQ: "CVTTSD2SQ",
	xCVTSD2SL: "CVTSD2SL", xCVTSD2SQ: "CVTSD2SQ", xCVTTSS2SL: "CVTTSS2SL", xCVTTSS2SQ: "CVTTSS2SQ",
	xCVTSS2SL: "CVTSS2SL", xCVTSS2SQ: "CVTSS2SQ", xCVTSL2SD: "CVTSL2SD", xCVTSQ2SD: "CVTSQ2SD",
	xCVTSL2SS: "CVTSL2SS", xCVTSQ2SS: "CVTSQ2SS", xCVTSD2SS: "CVTSD2SS", xCVTSS2SD: "CVTSS2SD",
	xROUNDSD: "ROUNDSD", xROUNDSS: "ROUNDSS", xVFMADD231SD: "VFMADD231SD",
	xVFMSUB231SD: "VFMSUB231SD", xVFNMADD231SD: "VFNMADD231SD", xVFNMSUB231SD: "VFNMSUB231SD",
	xVFMADD231SS: "VFMADD231SS", xVFMSUB231SS: "VFMSUB231SS", xVFNMADD231SS: "VFNMADD231SS",
	xVFNMSUB231SS: "VFNMSUB231SS", xVFMADD213SD: "VFMADD213SD", xVFMSUB213SD: "VFMSUB213SD",
	xVFNMADD213SD: "VFNMADD213SD", xVFNMSUB213SD: "VFNMSUB213SD", xVFMADD213SS: "VFMADD213SS",
	xVFMSUB213SS: "VFMSUB213SS", xVFNMADD213SS: "VFNMADD213SS", xVFNMSUB213SS: "VFNMSUB213SS", xVADDSD: "VADDSD", xVSUBSD: "VSUBSD", xVMULSD: "VMULSD", xVDIVSD: "VDIVSD",
	xVADDSS: "VADDSS", xVSUBSS: "VSUBSS", xVMULSS: "VMULSS", xVDIVSS: "VDIVSS",
	xSHLXQ: "SHLXQ", xSHLXL: "SHLXL", xSHRXQ: "SHRXQ", xSHRXL: "SHRXL", xSARXQ: "SARXQ", xSARXL: "SARXL",
	xRORXQ: "RORXQ", xRORXL: "RORXL", xADDW: "ADDW", xSUBW: "SUBW", xLEAW: "LEAW",
}

// mnemonicName returns i's name ("MOVQ").
func mnemonicName(i mnemonic) string {
	if i == 0 || i >= numInsts {
		return "?"
	}
	return mnemonicNames[i]
}

// A cond is the condition of a conditional jump, after a CMP x, y (Go
// operand order) that compares x with y.
type cond uint8

const (
	condEQ cond = iota // x == y
	condNE             // x != y
	condLT             // x < y, signed
	condGE             // x >= y, signed
	condGT             // x > y, signed
	condLE             // x <= y, signed
	condB              // x < y, unsigned (carry set)
	condAE             // x >= y, unsigned (carry clear)
	condA              // x > y, unsigned
	condBE             // x <= y, unsigned
	condPS             // parity set: unordered, after UCOMISx/COMISx
	condPC             // parity clear: ordered
	condOS             // overflow set
)

// ccOf is each condition's x86 condition code (the low nibble of Jcc).
var ccOf = [...]byte{
	condEQ: 0x4, condNE: 0x5, condLT: 0xc, condGE: 0xd,
	condGT: 0xf, condLE: 0xe, condB: 0x2, condAE: 0x3,
	condA: 0x7, condBE: 0x6, condPS: 0xa, condPC: 0xb, condOS: 0x0,
}

// condAlways marks an unconditional jump.
const condAlways cond = 0xff

// A label is a code position: bound (with bind) to the next instruction
// emitted, it can be jumped to before or after it is bound, and its offset
// is known once the code is assembled.
type label struct {
	at *inst
}

// A patchField is a field of emitted code that the code cache rewrites:
// the field starts field bytes into the instruction p.
type patchField struct {
	p     *inst
	field int
}

// Encodings the code cache patches, and where their patchable fields are.
const (
	// jmpRel32 is "JMP rel32" (E9 rel32), emitted as raw bytes so the
	// assembler cannot shorten it; rel32 starts at linkRel32Field.
	jmpRel32       = 0xe9
	linkRel32Field = 1
	// "MOVL $imm32, disp32(R15)" is 41 C7 87 disp32 imm32: the exit ID
	// (imm32) starts at exitIDField.
	exitIDField = 7
)

// An instKind says what an inst is.
type instKind uint8

const (
	iCode instKind = iota // an encoded instruction or raw bytes: code[start:start+n]
	iJump                 // a jump to a label: 2 bytes, or 5 (JMP) or 6 (Jcc) when long
)

// An inst is one emitted instruction.
type inst struct {
	kind     instKind
	start, n int32  // iCode: its bytes in assembler.code
	cond     cond   // iJump: the condition, or condAlways
	target   *label // iJump
	long     bool   // iJump: rel32, once short does not reach
	pc       int    // offset in the assembled code
}

// An assembler collects one fragment's instructions and encodes them:
// each instruction as it is emitted (encode.go), and the jumps, whose
// length depends on where their labels land, at assemble.
type assembler struct {
	enc     encoder // the bytes of every iCode inst, in emission order
	order   []*inst // the code's layout
	last    *inst   // the instruction emitted last
	pending []*label
	marks   []*inst // by mark: the instruction it is bound to
	// pendMarks are the marks bound to the next instruction.
	pendMarks []int
	// blocks hold the insts, instBlock to a block; the first used of
	// them are handed out (newInst). release clears those for the next
	// fragment.
	blocks [][]inst
	used   int
	size   int // bytes, once assembled
}

// instBlock is how many insts the assembler allocates at once.
const instBlock = 64

// assemblers are idle assemblers that release returned, with their
// buffers and insts, for the next fragment.
var assemblers sync.Pool

// newAssembler returns an empty assembler, reused when one is idle.
func newAssembler() *assembler {
	if a, ok := assemblers.Get().(*assembler); ok {
		return a
	}
	return &assembler{}
}

// release makes a idle for the next fragment (newAssembler). Nothing may
// use a, its labels or its marks afterwards; the code assemble returned
// is the caller's.
func (a *assembler) release() {
	for b := 0; b*instBlock < a.used; b++ {
		clear(a.blocks[b][:min(instBlock, a.used-b*instBlock)])
	}
	a.used = 0
	a.enc.buf, a.enc.err = a.enc.buf[:0], nil
	clear(a.order)
	a.order = a.order[:0]
	a.last = nil
	clear(a.pending)
	a.pending = a.pending[:0]
	a.marks, a.pendMarks = nil, nil
	a.size = 0
	assemblers.Put(a)
}

// newInst appends a new instruction to the layout and binds the pending
// labels and marks to it.
func (a *assembler) newInst(kind instKind) *inst {
	b := a.used / instBlock
	if b == len(a.blocks) {
		a.blocks = append(a.blocks, make([]inst, instBlock))
	}
	p := &a.blocks[b][a.used%instBlock]
	a.used++
	p.kind = kind
	a.order = append(a.order, p)
	a.last = p
	for _, l := range a.pending {
		l.at = p
	}
	a.pending = a.pending[:0]
	for _, m := range a.pendMarks {
		a.marks[m] = p
	}
	a.pendMarks = a.pendMarks[:0]
	return p
}

// code starts an iCode instruction whose bytes the encoder appends next;
// done ends it.
func (a *assembler) code() *inst {
	p := a.newInst(iCode)
	p.start = int32(len(a.enc.buf))
	return p
}

func (a *assembler) done(p *inst) { p.n = int32(len(a.enc.buf)) - p.start }

// op emits one instruction (Go assembler operand order: from, to).
func (a *assembler) op(i mnemonic, from, to operand) {
	p := a.code()
	a.enc.encode(i, from, none, to)
	a.done(p)
}

// op3 emits a three-operand instruction (Go assembler order: from, mid,
// to), e.g. ROUNDSD $mode, src, dst or VFMADD231SD c, b, a.
func (a *assembler) op3(i mnemonic, from, mid, to operand) {
	p := a.code()
	a.enc.encode(i, from, mid, to)
	a.done(p)
}

// jcc emits a conditional jump to l.
func (a *assembler) jcc(c cond, l *label) {
	p := a.newInst(iJump)
	p.cond, p.target = c, l
}

// jmp emits an unconditional jump to l.
func (a *assembler) jmp(l *label) { a.jcc(condAlways, l) }

// bind binds l to the next instruction emitted.
func (a *assembler) bind(l *label) { a.pending = append(a.pending, l) }

// reserveMarks makes room for n marks.
func (a *assembler) reserveMarks(n int) {
	a.marks = make([]*inst, 0, n)
	a.pendMarks = make([]int, 0, 4)
}

// mark returns a mark bound to the next instruction emitted: a label
// that cannot be jumped to, only asked for its offset (markOffset), and
// costs no allocation.
func (a *assembler) mark() int {
	a.marks = append(a.marks, nil)
	a.pendMarks = append(a.pendMarks, len(a.marks)-1)
	return len(a.marks) - 1
}

// moveToEnd moves the instructions from the one mark m is bound to
// through last to the end of the code, keeping their order, labels and
// marks: code lowered early that belongs at the end (a looping
// fragment's prologue, see LoopAlign). Nothing may be pending (bound to
// the next instruction) when it is called. If last is the end already,
// nothing moves.
func (a *assembler) moveToEnd(m int, last *inst) {
	if last == a.last {
		return
	}
	first := a.marks[m]
	i, j := -1, -1
	for k, p := range a.order {
		if p == first {
			i = k
		}
		if p == last {
			j = k
			break
		}
	}
	if i < 0 || j < i {
		a.enc.fail("moveToEnd: mark after the last instruction moved")
		return
	}
	moved := append([]*inst(nil), a.order[i:j+1]...)
	n := copy(a.order[i:], a.order[j+1:])
	copy(a.order[i+n:], moved)
	a.last = last
}

// raw emits bytes verbatim and returns their instruction.
func (a *assembler) raw(bs ...byte) *inst {
	p := a.code()
	a.enc.put(bs...)
	a.done(p)
	return p
}

// nopSeqs are the recommended multi-byte NOPs (Intel SDM vol. 2B, NOP), by
// length.
var nopSeqs = [...][]byte{
	1: {0x90},
	2: {0x66, 0x90},
	3: {0x0f, 0x1f, 0x00},
	4: {0x0f, 0x1f, 0x40, 0x00},
	5: {0x0f, 0x1f, 0x44, 0x00, 0x00},
	6: {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
	7: {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
	8: {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	9: {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
}

// nops emits n bytes of NOP instructions, as few as the encodings allow.
func (a *assembler) nops(n int) {
	for n > 0 {
		k := min(n, len(nopSeqs)-1)
		a.raw(nopSeqs[k]...)
		n -= k
	}
}

// raw32 emits a little-endian 32-bit word verbatim.
func (a *assembler) raw32(v uint32) {
	p := a.code()
	a.enc.put32(int32(v))
	a.done(p)
}

// jmpPatchable emits "JMP rel32" with rel32 = 0 (it falls through to the
// next instruction) and returns its rel32 field, which the code cache
// patches to link the jump to a fragment.
func (a *assembler) jmpPatchable() patchField {
	p := a.raw(jmpRel32)
	a.raw32(0)
	return patchField{p, linkRel32Field}
}

// movExitID emits "MOVL $0, disp(R15)" and returns its imm32 field, which
// the code cache patches to the exit's ID.
func (a *assembler) movExitID(disp int32) patchField {
	p := a.raw(0x41, 0xc7, 0x87)
	a.raw32(uint32(disp))
	a.raw32(0)
	return patchField{p, exitIDField}
}

// jumpLen is a jump's length: 2 bytes short, 5 (JMP) or 6 (Jcc) long.
func jumpLen(p *inst) int {
	switch {
	case !p.long:
		return 2
	case p.cond == condAlways:
		return 5
	}
	return 6
}

// assemble lays the code out and returns it; labels and patch fields
// then know their offsets. Jumps start short (rel8) and become long
// (rel32) where their target is out of reach, until none changes: the
// lengths only grow, so this ends, with every jump as short as the
// layout lets it be.
func (a *assembler) assemble() ([]byte, error) {
	if a.enc.err != nil {
		return nil, a.enc.err
	}
	for _, p := range a.order {
		if p.kind == iJump && (p.target == nil || p.target.at == nil) {
			return nil, errUnboundLabel
		}
	}
	for {
		pc := 0
		for _, p := range a.order {
			p.pc = pc
			if p.kind == iJump {
				pc += jumpLen(p)
			} else {
				pc += int(p.n)
			}
		}
		a.size = pc
		grew := false
		for _, p := range a.order {
			if p.kind == iJump && !p.long && !fits8(int64(p.target.at.pc-(p.pc+2))) {
				p.long, grew = true, true
			}
		}
		if !grew {
			break
		}
	}
	out := make([]byte, 0, a.size)
	for _, p := range a.order {
		if p.kind == iCode {
			out = append(out, a.enc.buf[p.start:p.start+p.n]...)
			continue
		}
		n := jumpLen(p)
		rel := int32(p.target.at.pc - (p.pc + n))
		switch {
		case !p.long && p.cond == condAlways:
			out = append(out, 0xeb, byte(rel))
		case !p.long:
			out = append(out, 0x70|ccOf[p.cond], byte(rel))
		case p.cond == condAlways:
			out = append(out, 0xe9, byte(rel), byte(rel>>8), byte(rel>>16), byte(rel>>24))
		default:
			out = append(out, 0x0f, 0x80|ccOf[p.cond], byte(rel), byte(rel>>8), byte(rel>>16), byte(rel>>24))
		}
	}
	return out, nil
}

// errUnboundLabel is assemble's error for a jump to a label no
// instruction was bound to (a bug in the lowering).
var errUnboundLabel = errors.New("assembler: a jump's label is bound to no instruction")

// markOffset returns the offset of mark m in the assembled code: the end
// of the code if no instruction followed it.
func (a *assembler) markOffset(m int) int {
	if a.marks[m] == nil {
		return a.size
	}
	return a.marks[m].pc
}

// offset returns the offset of the field in the assembled code.
func (f patchField) offset() int { return f.p.pc + f.field }
