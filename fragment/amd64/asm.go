// Assembler: typed x86-64 instructions, labels and patchable fields -> machine code bytes (through golang-asm, used in this file only).

package amd64

import (
	"fmt"
	"sync"

	"github.com/twitchyliquid64/golang-asm/asm/arch"
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"
)

// A register is a host general-purpose register; 0 is no register.
type register int16

// Host registers.
const (
	rAX  register = x86.REG_AX
	rCX  register = x86.REG_CX
	rDX  register = x86.REG_DX
	rBX  register = x86.REG_BX
	rSI  register = x86.REG_SI
	rDI  register = x86.REG_DI
	rBP  register = x86.REG_BP // Go's frame pointer: the trampoline saves it
	rR8  register = x86.REG_R8
	rR9  register = x86.REG_R9
	rR10 register = x86.REG_R10
	rR11 register = x86.REG_R11
	rR12 register = x86.REG_R12
	rR13 register = x86.REG_R13
	rMem register = x86.REG_R14 // host address of guest address 0
	rSt  register = x86.REG_R15 // *State
	// XMM registers, for floating point (float.go): X0..X3 are scratch.
	// X15 is never touched: Go's internal ABI keeps it zero.
	rX0 register = x86.REG_X0
	rX1 register = x86.REG_X1
	rX2 register = x86.REG_X2
	rX3 register = x86.REG_X3
)

// An operand is an instruction operand: a register, an immediate or a
// memory reference [base + index + off]; the zero operand is none.
type operand struct {
	kind       operandKind
	reg, index register
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

// isImm reports whether o is an immediate.
func (o operand) isImm() bool { return o.kind == kImm }

func (o operand) addr() obj.Addr {
	switch o.kind {
	case kReg:
		return obj.Addr{Type: obj.TYPE_REG, Reg: int16(o.reg)}
	case kImm:
		return obj.Addr{Type: obj.TYPE_CONST, Offset: o.off}
	case kMem:
		if o.index != 0 {
			return obj.Addr{Type: obj.TYPE_MEM, Reg: int16(o.reg), Index: int16(o.index), Scale: 1, Offset: o.off}
		}
		return obj.Addr{Type: obj.TYPE_MEM, Reg: int16(o.reg), Offset: o.off}
	}
	return obj.Addr{}
}

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
	xJMP   // through a memory operand; jumps to labels use jmp and jcc
	xRET
	xORL
	xSETEQ
	xSETPC // parity clear: ordered, after UCOMISD
	xSETHI // above (unsigned >)
	xSETCC // above or equal (unsigned >=)
	xSTMXCSR
	xLDMXCSR
	xCMOVLLT // move if less (signed), 32 bits
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
	numInsts
)

var asOf = [numInsts]obj.As{
	xMOVQ: x86.AMOVQ, xMOVL: x86.AMOVL, xMOVW: x86.AMOVW, xMOVB: x86.AMOVB,
	xMOVBQZX: x86.AMOVBQZX, xMOVWQZX: x86.AMOVWQZX, xMOVBQSX: x86.AMOVBQSX,
	xMOVWQSX: x86.AMOVWQSX, xMOVLQSX: x86.AMOVLQSX, xLEAQ: x86.ALEAQ,
	xADDQ: x86.AADDQ, xADDL: x86.AADDL, xSUBQ: x86.ASUBQ, xSUBL: x86.ASUBL,
	xANDQ: x86.AANDQ, xANDL: x86.AANDL, xORQ: x86.AORQ, xXORQ: x86.AXORQ, xXORL: x86.AXORL,
	xIMULQ: x86.AIMULQ, xIMULL: x86.AIMULL, xMULQ: x86.AMULQ,
	xIDIVQ: x86.AIDIVQ, xIDIVL: x86.AIDIVL, xDIVQ: x86.ADIVQ, xDIVL: x86.ADIVL,
	xNEGQ: x86.ANEGQ, xNEGL: x86.ANEGL, xCQO: x86.ACQO, xCDQ: x86.ACDQ,
	xSHLQ: x86.ASHLQ, xSHRQ: x86.ASHRQ, xSARQ: x86.ASARQ,
	xSHLL: x86.ASHLL, xSHRL: x86.ASHRL, xSARL: x86.ASARL,
	xCMPQ: x86.ACMPQ, xCMPL: x86.ACMPL, xTESTQ: x86.ATESTQ, xTESTL: x86.ATESTL, xTESTB: x86.ATESTB,
	xSETLT: x86.ASETLT, xSETCS: x86.ASETCS,
	xREP: x86.AREP, xSTOSB: x86.ASTOSB, xMOVSB: x86.AMOVSB,
	xJMP: obj.AJMP, xRET: obj.ARET,
	xORL: x86.AORL, xSETEQ: x86.ASETEQ, xSETPC: x86.ASETPC, xSETHI: x86.ASETHI, xSETCC: x86.ASETCC, xSTMXCSR: x86.ASTMXCSR, xLDMXCSR: x86.ALDMXCSR, xCMOVLLT: x86.ACMOVLLT,
	xMOVSD: x86.AMOVSD, xMOVSS: x86.AMOVSS, xMOVAPS: x86.AMOVAPS,
	xADDSD: x86.AADDSD, xSUBSD: x86.ASUBSD, xMULSD: x86.AMULSD, xDIVSD: x86.ADIVSD, xSQRTSD: x86.ASQRTSD, xMINSD: x86.AMINSD, xMAXSD: x86.AMAXSD,
	xADDSS: x86.AADDSS, xSUBSS: x86.ASUBSS, xMULSS: x86.AMULSS, xDIVSS: x86.ADIVSS, xSQRTSS: x86.ASQRTSS, xMINSS: x86.AMINSS, xMAXSS: x86.AMAXSS,
	xUCOMISD: x86.AUCOMISD, xUCOMISS: x86.AUCOMISS, xCOMISD: x86.ACOMISD, xCOMISS: x86.ACOMISS,
	xANDPD: x86.AANDPD, xORPD: x86.AORPD, xXORPS: x86.AXORPS,
	xCVTTSD2SL: x86.ACVTTSD2SL, xCVTTSD2SQ: x86.ACVTTSD2SQ, xCVTSD2SL: x86.ACVTSD2SL, xCVTSD2SQ: x86.ACVTSD2SQ,
	xCVTTSS2SL: x86.ACVTTSS2SL, xCVTTSS2SQ: x86.ACVTTSS2SQ, xCVTSS2SL: x86.ACVTSS2SL, xCVTSS2SQ: x86.ACVTSS2SQ,
	xCVTSL2SD: x86.ACVTSL2SD, xCVTSQ2SD: x86.ACVTSQ2SD, xCVTSL2SS: x86.ACVTSL2SS, xCVTSQ2SS: x86.ACVTSQ2SS,
	xCVTSD2SS: x86.ACVTSD2SS, xCVTSS2SD: x86.ACVTSS2SD,
	xROUNDSD: x86.AROUNDSD, xROUNDSS: x86.AROUNDSS,
	xVFMADD231SD: x86.AVFMADD231SD, xVFMSUB231SD: x86.AVFMSUB231SD, xVFNMADD231SD: x86.AVFNMADD231SD, xVFNMSUB231SD: x86.AVFNMSUB231SD,
	xVFMADD231SS: x86.AVFMADD231SS, xVFMSUB231SS: x86.AVFMSUB231SS, xVFNMADD231SS: x86.AVFNMADD231SS, xVFNMSUB231SS: x86.AVFNMSUB231SS,
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

var jccOf = [...]obj.As{
	condEQ: x86.AJEQ, condNE: x86.AJNE, condLT: x86.AJLT, condGE: x86.AJGE,
	condGT: x86.AJGT, condLE: x86.AJLE, condB: x86.AJCS, condAE: x86.AJCC,
	condA: x86.AJHI, condBE: x86.AJLS, condPS: x86.AJPS, condPC: x86.AJPC, condOS: x86.AJOS,
}

// A label is a code position: bound (with bind) to the next instruction
// emitted, it can be jumped to before or after it is bound, and its offset
// is known once the code is assembled.
type label struct {
	at      *obj.Prog
	waiting []*obj.Prog
}

// A patchField is a field of emitted code that the code cache rewrites:
// the field starts field bytes into the instruction p.
type patchField struct {
	p     *obj.Prog
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

// amd64Arch is golang-asm's description of x86-64. golang-asm's Builder
// rebuilds it (several large maps) for every builder, which dominated
// compile time; it is immutable, so it is built once and shared.
var amd64Arch = sync.OnceValue(func() *arch.Arch { return arch.Set("amd64") })

// An assembler collects one fragment's instructions and encodes them.
// It is the only code that knows golang-asm, so a faster encoder can
// replace it without touching the lowering.
type assembler struct {
	ctxt        *obj.Link
	first, last *obj.Prog
	pending     []*label    // bound to the next instruction
	marks       []*obj.Prog // by mark: the instruction it is bound to
	pendMarks   []int       // marks bound to the next instruction
	// blocks hold the Progs, progBlock to a block; the first used of
	// them are handed out (newProg). release clears those for the next
	// fragment.
	blocks [][]obj.Prog
	used   int
	size   int // bytes, once assembled
	err    error
}

// progBlock is how many Progs the assembler allocates at once.
const progBlock = 64

// assemblers are idle assemblers that release returned: their obj.Link
// context (whose making reads the working directory and builds tables:
// about 5% of a fragment's compile time) and their Progs (allocating
// and collecting them was another tenth) serve the next fragment.
var assemblers sync.Pool

// newAssembler returns an empty assembler, reused when one is idle.
func newAssembler() *assembler {
	if a, ok := assemblers.Get().(*assembler); ok {
		return a
	}
	ctxt := obj.Linknew(amd64Arch().LinkArch)
	ctxt.Headtype = objabi.Hlinux
	// Treat the code as hand-written assembly: this turns off the padding
	// the Go toolchain inserts before jumps against an Intel erratum, which
	// bloats exit-heavy fragments with NOPs.
	ctxt.IsAsm = true
	a := &assembler{ctxt: ctxt}
	ctxt.DiagFunc = func(format string, args ...any) {
		if a.err == nil {
			a.err = fmt.Errorf("assembler: "+format, args...)
		}
	}
	amd64Arch().Init(ctxt)
	return a
}

// newProg hands out the next Prog, allocating them in blocks.
func (a *assembler) newProg() *obj.Prog {
	b := a.used / progBlock
	if b == len(a.blocks) {
		a.blocks = append(a.blocks, make([]obj.Prog, progBlock))
	}
	p := &a.blocks[b][a.used%progBlock]
	a.used++
	p.Ctxt = a.ctxt
	return p
}

// release makes a idle for the next fragment (newAssembler): its Progs
// cleared, its lists emptied. Nothing may use a, its labels or its
// marks afterwards; the code assemble returned is the caller's.
func (a *assembler) release() {
	for b := 0; b*progBlock < a.used; b++ {
		clear(a.blocks[b][:min(progBlock, a.used-b*progBlock)])
	}
	a.used = 0
	a.first, a.last = nil, nil
	clear(a.pending)
	a.pending = a.pending[:0]
	a.marks, a.pendMarks = nil, nil
	a.size, a.err = 0, nil
	assemblers.Put(a)
}

// emit appends one instruction and binds the pending labels to it.
func (a *assembler) emit(as obj.As, from, to obj.Addr) *obj.Prog {
	p := a.newProg()
	p.As, p.From, p.To = as, from, to
	if a.first == nil {
		a.first = p
	} else {
		a.last.Link = p
	}
	a.last = p
	for _, l := range a.pending {
		l.at = p
		for _, j := range l.waiting {
			j.To.SetTarget(p)
		}
		l.waiting = nil
	}
	a.pending = a.pending[:0]
	for _, m := range a.pendMarks {
		a.marks[m] = p
	}
	a.pendMarks = a.pendMarks[:0]
	return p
}

// op emits one instruction (Go assembler operand order: from, to).
func (a *assembler) op(i mnemonic, from, to operand) { a.emit(asOf[i], from.addr(), to.addr()) }

// op3 emits a three-operand instruction (Go assembler order: from, mid,
// to), e.g. ROUNDSD $mode, src, dst or VFMADD231SD c, b, a.
func (a *assembler) op3(i mnemonic, from, mid, to operand) {
	p := a.emit(asOf[i], from.addr(), to.addr())
	p.RestArgs = []obj.Addr{mid.addr()}
}

// branch emits a jump instruction as to l.
func (a *assembler) branch(as obj.As, l *label) {
	p := a.emit(as, obj.Addr{}, obj.Addr{Type: obj.TYPE_BRANCH})
	if l.at != nil {
		p.To.SetTarget(l.at)
	} else {
		l.waiting = append(l.waiting, p)
	}
}

// jcc emits a conditional jump to l.
func (a *assembler) jcc(c cond, l *label) { a.branch(jccOf[c], l) }

// jmp emits an unconditional jump to l.
func (a *assembler) jmp(l *label) { a.branch(obj.AJMP, l) }

// bind binds l to the next instruction emitted.
func (a *assembler) bind(l *label) { a.pending = append(a.pending, l) }

// reserveMarks makes room for n marks.
func (a *assembler) reserveMarks(n int) {
	a.marks = make([]*obj.Prog, 0, n)
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
func (a *assembler) moveToEnd(m int, last *obj.Prog) {
	if last == a.last {
		return
	}
	first := a.marks[m]
	var before *obj.Prog
	for p := a.first; p != first; p = p.Link {
		before = p
	}
	if before == nil {
		a.first = last.Link
	} else {
		before.Link = last.Link
	}
	a.last.Link = first
	last.Link = nil
	a.last = last
}

// raw emits bytes verbatim and returns the first one's instruction.
func (a *assembler) raw(bs ...byte) *obj.Prog {
	var first *obj.Prog
	for _, c := range bs {
		p := a.emit(x86.ABYTE, obj.Addr{Type: obj.TYPE_CONST, Offset: int64(c)}, obj.Addr{})
		if first == nil {
			first = p
		}
	}
	return first
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
	a.emit(x86.ALONG, obj.Addr{Type: obj.TYPE_CONST, Offset: int64(v)}, obj.Addr{})
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

// assemble encodes everything emitted; labels and patch fields then know
// their offsets.
func (a *assembler) assemble() ([]byte, error) {
	s := &obj.LSym{Func: &obj.FuncInfo{Text: a.first}}
	amd64Arch().Assemble(a.ctxt, s, a.newProg)
	a.size = len(s.P)
	return s.P, a.err
}

// markOffset returns the offset of mark m in the assembled code: the end
// of the code if no instruction followed it.
func (a *assembler) markOffset(m int) int {
	if a.marks[m] == nil {
		return a.size
	}
	return int(a.marks[m].Pc)
}

// offset returns the offset of the field in the assembled code.
func (f patchField) offset() int { return int(f.p.Pc) + f.field }
