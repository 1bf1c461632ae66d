// Assembler interface: our instruction calls -> golang-asm Progs -> x86-64 bytes.

package fragment

import (
	"fmt"
	"sync"

	"github.com/twitchyliquid64/golang-asm/asm/arch"
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"
)

// Host registers, in golang-asm numbering.
const (
	rAX  = x86.REG_AX
	rCX  = x86.REG_CX
	rDX  = x86.REG_DX
	rBX  = x86.REG_BX
	rSI  = x86.REG_SI
	rDI  = x86.REG_DI
	rR8  = x86.REG_R8
	rR9  = x86.REG_R9
	rR10 = x86.REG_R10
	rR11 = x86.REG_R11
	rR12 = x86.REG_R12
	rR13 = x86.REG_R13
	rMem = x86.REG_R14 // host address of guest address 0
	rSt  = x86.REG_R15 // *State
)

// operand constructors
func reg(r int16) obj.Addr { return obj.Addr{Type: obj.TYPE_REG, Reg: r} }
func imm(v int64) obj.Addr { return obj.Addr{Type: obj.TYPE_CONST, Offset: v} }
func mem(base int16, off int64) obj.Addr {
	return obj.Addr{Type: obj.TYPE_MEM, Reg: base, Offset: off}
}
func memIdx(base, index int16, off int64) obj.Addr {
	return obj.Addr{Type: obj.TYPE_MEM, Reg: base, Index: index, Scale: 1, Offset: off}
}

var none obj.Addr

// A label is a branch target that is bound to the next instruction emitted
// after bind.
type label struct {
	at      *obj.Prog
	waiting []*obj.Prog
}

// amd64 is golang-asm's description of x86-64. golang-asm's Builder
// rebuilds it (several large maps) for every builder, which dominated
// compile time; it is immutable, so it is built once and shared.
var amd64 = sync.OnceValue(func() *arch.Arch { return arch.Set("amd64") })

// assembler assembles one fragment with golang-asm: the only place that
// knows golang-asm, so a faster encoder can replace it.
type assembler struct {
	ctxt        *obj.Link
	first, last *obj.Prog
	pending     []*label // bound to the next instruction
	progs       []obj.Prog
	err         error
}

func newAssembler() (*assembler, error) {
	ctxt := obj.Linknew(amd64().LinkArch)
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
	amd64().Init(ctxt)
	return a, nil
}

// newProg allocates Progs in blocks.
func (a *assembler) newProg() *obj.Prog {
	if len(a.progs) == 0 {
		a.progs = make([]obj.Prog, 64)
	}
	p := &a.progs[0]
	a.progs = a.progs[1:]
	p.Ctxt = a.ctxt
	return p
}

// op emits one instruction (Go assembler operand order: from, to).
func (a *assembler) op(as obj.As, from, to obj.Addr) *obj.Prog {
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
	return p
}

// jump emits a jump or conditional jump (as = x86.AJMP, x86.AJEQ, ...) to l.
func (a *assembler) jump(as obj.As, l *label) *obj.Prog {
	p := a.op(as, none, obj.Addr{Type: obj.TYPE_BRANCH})
	if l.at != nil {
		p.To.SetTarget(l.at)
	} else {
		l.waiting = append(l.waiting, p)
	}
	return p
}

// bind binds l to the next instruction emitted.
func (a *assembler) bind(l *label) { a.pending = append(a.pending, l) }

// raw emits bytes verbatim (for sequences whose layout the code cache
// patches: exit IDs and link jumps).
func (a *assembler) raw(bs ...byte) *obj.Prog {
	var first *obj.Prog
	for _, c := range bs {
		p := a.op(x86.ABYTE, imm(int64(c)), none)
		if first == nil {
			first = p
		}
	}
	return first
}

// raw32 emits a little-endian 32-bit word verbatim.
func (a *assembler) raw32(v uint32) *obj.Prog { return a.op(x86.ALONG, imm(int64(v)), none) }

// assemble encodes everything emitted; Prog.Pc then holds each offset.
func (a *assembler) assemble() ([]byte, error) {
	s := &obj.LSym{Func: &obj.FuncInfo{Text: a.first}}
	amd64().Assemble(a.ctxt, s, a.newProg)
	return s.P, a.err
}
