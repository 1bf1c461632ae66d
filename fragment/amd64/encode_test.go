package amd64

import (
	"bytes"
	"fmt"
	"golang.org/x/arch/x86/x86asm"
	"strings"
	"sync"
	"testing"

	"github.com/twitchyliquid64/golang-asm/asm/arch"
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"
)

// usedForms are the operand forms each mnemonic is emitted with by the
// lowering (recorded over the fragment and differential tests): r a
// general register, x an XMM register, m memory [base+disp], mi memory
// [base+index+disp], ms memory [base+index<<scale+disp], i8/i32/u32/i64 an immediate that fits that many
// bits, - none. TestEncodeMatchesGoAsm encodes every instance of them.
const usedForms = `
xMOVQ: i32 - m, i32 - mi, i32 - r, i64 - r, i8 - m, i8 - mi, i8 - r, m - r, mi - r, r - m, r - mi, r - r, r - x, u32 - r, x - r
xMOVL: i32 - m, i32 - mi, i32 - r, i8 - m, i8 - mi, i8 - r, m - r, mi - r, r - m, r - mi, r - r
xMOVW: i32 - m, i32 - mi, i8 - m, i8 - mi, i8 - r, r - m, r - mi, r - r
xMOVB: i8 - m, i8 - mi, r - m, r - mi
xMOVBQZX: m - r, mi - r, r - r
xMOVWQZX: m - r, mi - r, r - r
xMOVBQSX: m - r, mi - r, r - r
xMOVWQSX: m - r, mi - r, r - r
xMOVLQSX: m - r, mi - r, r - r
xLEAQ: m - r, mi - r, ms - r
xADDQ: i32 - r, i8 - m, i8 - r, m - r, r - m, r - r
xADDL: i32 - r, i8 - r, m - r, r - r
xSUBQ: i32 - m, i32 - r, i8 - m, i8 - r, m - r, r - m, r - r
xSUBL: i32 - r, i8 - r, m - r, r - r
xANDQ: i32 - r, i8 - r, m - r, r - r
xANDL: i32 - m, i32 - r, i8 - m, i8 - r, r - r, u32 - r
xORQ: i32 - r, i8 - r, m - r, r - r
xXORQ: i32 - r, i8 - r, m - r, r - r
xXORL: i8 - r, r - r, u32 - r
xIMULQ: m - r, r - -, r - r
xIMULL: m - r, r - r
xMULQ: r - -
xIDIVQ: r - -
xIDIVL: r - -
xDIVQ: r - -
xDIVL: r - -
xNEGQ: - - r
xNEGL: - - r
xCQO: - - -
xCDQ: - - -
xSHLQ: i8 - r, r - r
xSHRQ: i8 - r, r - r
xSARQ: i8 - r, r - r
xSHLL: i8 - r, r - r
xSHRL: i8 - r, r - r
xSARL: i8 - r, r - r
xRORQ: i8 - r
xRORL: i8 - r
xCMPQ: m - i32, m - i8, m - r, r - i32, r - i8, r - m, r - r
xCMPL: m - i8, r - i32, r - i8, r - r
xTESTQ: i8 - r, r - r
xTESTL: i32 - m, i8 - r, r - r
xTESTB: i8 - mi
xSETLT: - - r
xSETCS: - - r
xREP: - - -
xSTOSB: - - -
xMOVSB: - - -
xSTOSQ: - - -
xJMP: - - m
xRET: - - -
xORL: r - m, r - r
xSETEQ: - - r
xSETPC: - - r
xSETHI: - - r
xSETCC: - - r
xSTMXCSR: - - m
xLDMXCSR: m - -
xADDW: i8 - r
xSUBW: i8 - r, r - r
xLEAW: m - r
xCMOVLLT: r - r
xMOVSD: m - x, mi - x, x - m, x - mi, x - x
xMOVSS: x - mi, x - x
xMOVAPS: x - x
xADDSD: m - x, x - x
xSUBSD: m - x, x - x
xMULSD: m - x, x - x
xDIVSD: m - x, x - x
xSQRTSD: m - x, x - x
xMINSD: x - x
xADDSS: x - x
xSUBSS: x - x
xMULSS: x - x
xDIVSS: x - x
xSQRTSS: x - x
xMINSS: x - x
xMAXSD: x - x
xMAXSS: x - x
xUCOMISD: m - x, x - x
xUCOMISS: x - x
xCOMISD: x - x
xCOMISS: x - x
xANDPD: x - x
xORPD: x - x
xXORPS: x - x
xPCMPEQL: x - x
xCVTTSD2SL: m - r, x - r
xCVTTSD2SQ: m - r, x - r
xCVTSD2SL: m - r, x - r
xCVTSD2SQ: m - r, x - r
xCVTTSS2SL: x - r
xCVTTSS2SQ: x - r
xCVTSS2SL: x - r
xCVTSS2SQ: x - r
xCVTSL2SD: m - x, r - x
xCVTSQ2SD: m - x, r - x
xCVTSL2SS: m - x, r - x
xCVTSQ2SS: m - x, r - x
xCVTSD2SS: m - x, x - x
xCVTSS2SD: x - x
xROUNDSD: i8 m x, i8 x x
xROUNDSS: i8 x x
xVFMADD231SD: x x x
xVFMSUB231SD: x x x
xVFNMADD231SD: x x x
xVFNMSUB231SD: x x x
xVFMADD231SS: x x x
xVFMSUB231SS: x x x
xVFNMADD231SS: x x x
xVFNMSUB231SS: x x x
xVFMADD213SD: x x x, m x x
xVFMSUB213SD: x x x, m x x
xVFNMADD213SD: x x x, m x x
xVFNMSUB213SD: x x x, m x x
xVFMADD213SS: x x x, m x x
xVFMSUB213SS: x x x, m x x
xVFNMADD213SS: x x x, m x x
xVFNMSUB213SS: x x x, m x x
xVADDSD: x x x, m x x
xSHLXQ: r r r, r m r
xSHLXL: r r r, r m r
xSHRXQ: r r r, r m r
xSHRXL: r r r, r m r
xSARXQ: r r r, r m r
xSARXL: r r r, r m r
xRORXQ: i8 r r, i8 m r
xRORXL: i8 r r, i8 m r
xVSUBSD: x x x, m x x
xVMULSD: x x x, m x x
xVDIVSD: x x x, m x x
xVADDSS: x x x, m x x
xVSUBSS: x x x, m x x
xVMULSS: x x x, m x x
xVDIVSS: x x x, m x x
`

// TestEncodeMatchesGoAsm encodes each used form of each mnemonic with
// every register, many memory operands (each base and index register,
// displacements of 0, 8 and 32 bits) and immediates of its size class,
// with our encoder and with golang-asm, the assembler it replaced: the
// bytes must be the same wherever golang-asm encodes the instruction.
func TestEncodeMatchesGoAsm(t *testing.T) {
	names := map[string]mnemonic{}
	for i := mnemonic(1); i < numInsts; i++ {
		names["x"+mnemonicName(i)] = i
	}
	var gprs, xmms []operand
	for n := 0; n < 16; n++ {
		gprs = append(gprs, reg(rAX+register(n)))
		xmms = append(xmms, reg(rX0+register(n)))
	}
	var mems, memIdxs []operand
	for n := 0; n < 16; n++ {
		for _, off := range []int64{0, 8, -8, 127, -128, 128, -129, 0x208, -0x3fe8, 0x7fffffff, -0x80000000} {
			mems = append(mems, mem(rAX+register(n), off))
		}
	}
	for _, b := range []register{rR14, rAX, rBP, rR13, rR12, rSP} {
		for _, x := range []register{rAX, rCX, rBP, rR8, rR12, rR13} {
			for _, off := range []int64{0, 8, 0x1000} {
				memIdxs = append(memIdxs, memIdx(b, x, off))
			}
		}
	}
	var memScaleds []operand
	for _, b := range []register{rR14, rAX, rBP, rR13, rR12, rSP} {
		for _, x := range []register{rAX, rCX, rBP, rR8, rR12, rR13} {
			for scale := uint8(0); scale < 4; scale++ {
				for _, off := range []int64{0, 8, -0x400, 0x7fffffff} {
					memScaleds = append(memScaleds, memScaled(b, x, scale, off))
				}
			}
		}
	}
	imms := map[string][]int64{
		"i8":  {0, 1, -1, 2, 5, 63, 127, -128},
		"i32": {128, -129, 200, 255, 256, 1000, 0x208, 0x7fffffff, -0x80000000},
		"u32": {0x80000000, 0xffffffff},
		"i64": {0x100000000, -0x80000001, 0x7ff8000000000000, -1 << 32, -1 << 63},
	}
	instances := func(class string) []operand {
		switch class {
		case "r":
			return gprs
		case "x":
			return xmms
		case "m":
			return mems
		case "mi":
			return memIdxs
		case "ms":
			return memScaleds
		case "-":
			return []operand{none}
		}
		var out []operand
		for _, v := range imms[class] {
			out = append(out, imm(v))
		}
		return out
	}
	checked, failed := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(usedForms), "\n") {
		name, list, _ := strings.Cut(line, ": ")
		i, ok := names[name]
		if !ok {
			t.Fatalf("unknown mnemonic %s", name)
		}
		for _, form := range strings.Split(list, ", ") {
			f := strings.Fields(form)
			for _, from := range instances(f[0]) {
				for _, mid := range instances(f[1]) {
					for _, to := range instances(f[2]) {
						want, err := goAsmEncode(i, from, mid, to)
						if err != nil {
							continue // not an x86 instruction (a shift by BX, ...)
						}
						e := &encoder{}
						e.encode(i, from, mid, to)
						checked++
						if e.err != nil || !bytes.Equal(e.buf, want) {
							failed++
							if failed <= 40 {
								t.Errorf("%s %v, %v, %v: got % x (%v), golang-asm % x", name, from, mid, to, e.buf, e.err, want)
							}
						}
					}
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d encodings differ", failed, checked)
	}
	t.Logf("%d encodings checked", checked)
}

// goAsmArch is golang-asm's description of x86-64, built once.
var goAsmArch = sync.OnceValue(func() *arch.Arch { return arch.Set("amd64") })

// goAsOf is each mnemonic's golang-asm instruction.
var goAsOf = [numInsts]obj.As{
	xMOVQ: x86.AMOVQ, xMOVL: x86.AMOVL, xMOVW: x86.AMOVW, xMOVB: x86.AMOVB,
	xMOVBQZX: x86.AMOVBQZX, xMOVWQZX: x86.AMOVWQZX, xMOVBQSX: x86.AMOVBQSX,
	xMOVWQSX: x86.AMOVWQSX, xMOVLQSX: x86.AMOVLQSX, xLEAQ: x86.ALEAQ,
	xADDQ: x86.AADDQ, xADDL: x86.AADDL, xSUBQ: x86.ASUBQ, xSUBL: x86.ASUBL,
	xANDQ: x86.AANDQ, xANDL: x86.AANDL, xORQ: x86.AORQ, xXORQ: x86.AXORQ, xXORL: x86.AXORL,
	xIMULQ: x86.AIMULQ, xIMULL: x86.AIMULL, xMULQ: x86.AMULQ,
	xIDIVQ: x86.AIDIVQ, xIDIVL: x86.AIDIVL, xDIVQ: x86.ADIVQ, xDIVL: x86.ADIVL,
	xNEGQ: x86.ANEGQ, xNEGL: x86.ANEGL, xCQO: x86.ACQO, xCDQ: x86.ACDQ,
	xSHLQ: x86.ASHLQ, xSHRQ: x86.ASHRQ, xSARQ: x86.ASARQ,
	xSHLL: x86.ASHLL, xSHRL: x86.ASHRL, xSARL: x86.ASARL, xRORQ: x86.ARORQ, xRORL: x86.ARORL,
	xCMPQ: x86.ACMPQ, xCMPL: x86.ACMPL, xTESTQ: x86.ATESTQ, xTESTL: x86.ATESTL, xTESTB: x86.ATESTB,
	xSETLT: x86.ASETLT, xSETCS: x86.ASETCS,
	xREP: x86.AREP, xSTOSB: x86.ASTOSB, xMOVSB: x86.AMOVSB, xSTOSQ: x86.ASTOSQ,
	xJMP: obj.AJMP, xRET: obj.ARET,
	xORL: x86.AORL, xSETEQ: x86.ASETEQ, xSETPC: x86.ASETPC, xSETHI: x86.ASETHI, xSETCC: x86.ASETCC, xSTMXCSR: x86.ASTMXCSR, xLDMXCSR: x86.ALDMXCSR, xCMOVLLT: x86.ACMOVLLT,
	xMOVSD: x86.AMOVSD, xMOVSS: x86.AMOVSS, xMOVAPS: x86.AMOVAPS,
	xADDSD: x86.AADDSD, xSUBSD: x86.ASUBSD, xMULSD: x86.AMULSD, xDIVSD: x86.ADIVSD, xSQRTSD: x86.ASQRTSD, xMINSD: x86.AMINSD, xMAXSD: x86.AMAXSD,
	xADDSS: x86.AADDSS, xSUBSS: x86.ASUBSS, xMULSS: x86.AMULSS, xDIVSS: x86.ADIVSS, xSQRTSS: x86.ASQRTSS, xMINSS: x86.AMINSS, xMAXSS: x86.AMAXSS,
	xUCOMISD: x86.AUCOMISD, xUCOMISS: x86.AUCOMISS, xCOMISD: x86.ACOMISD, xCOMISS: x86.ACOMISS,
	xANDPD: x86.AANDPD, xORPD: x86.AORPD, xXORPS: x86.AXORPS, xPCMPEQL: x86.APCMPEQL,
	xCVTTSD2SL: x86.ACVTTSD2SL, xCVTTSD2SQ: x86.ACVTTSD2SQ, xCVTSD2SL: x86.ACVTSD2SL, xCVTSD2SQ: x86.ACVTSD2SQ,
	xCVTTSS2SL: x86.ACVTTSS2SL, xCVTTSS2SQ: x86.ACVTTSS2SQ, xCVTSS2SL: x86.ACVTSS2SL, xCVTSS2SQ: x86.ACVTSS2SQ,
	xCVTSL2SD: x86.ACVTSL2SD, xCVTSQ2SD: x86.ACVTSQ2SD, xCVTSL2SS: x86.ACVTSL2SS, xCVTSQ2SS: x86.ACVTSQ2SS,
	xCVTSD2SS: x86.ACVTSD2SS, xCVTSS2SD: x86.ACVTSS2SD,
	xROUNDSD: x86.AROUNDSD, xROUNDSS: x86.AROUNDSS,
	xVFMADD231SD: x86.AVFMADD231SD, xVFMSUB231SD: x86.AVFMSUB231SD, xVFNMADD231SD: x86.AVFNMADD231SD, xVFNMSUB231SD: x86.AVFNMSUB231SD,
	xVFMADD231SS: x86.AVFMADD231SS, xVFMSUB231SS: x86.AVFMSUB231SS, xVFNMADD231SS: x86.AVFNMADD231SS, xVFNMSUB231SS: x86.AVFNMSUB231SS,
	xVFMADD213SD: x86.AVFMADD213SD, xVFMSUB213SD: x86.AVFMSUB213SD, xVFNMADD213SD: x86.AVFNMADD213SD, xVFNMSUB213SD: x86.AVFNMSUB213SD,
	xVFMADD213SS: x86.AVFMADD213SS, xVFMSUB213SS: x86.AVFMSUB213SS, xVFNMADD213SS: x86.AVFNMADD213SS, xVFNMSUB213SS: x86.AVFNMSUB213SS,
	xVADDSD: x86.AVADDSD, xVSUBSD: x86.AVSUBSD, xVMULSD: x86.AVMULSD, xVDIVSD: x86.AVDIVSD,
	xVADDSS: x86.AVADDSS, xVSUBSS: x86.AVSUBSS, xVMULSS: x86.AVMULSS, xVDIVSS: x86.AVDIVSS,
	xSHLXQ: x86.ASHLXQ, xSHLXL: x86.ASHLXL, xSHRXQ: x86.ASHRXQ, xSHRXL: x86.ASHRXL, xSARXQ: x86.ASARXQ, xSARXL: x86.ASARXL,
	xRORXQ: x86.ARORXQ, xRORXL: x86.ARORXL,
	xADDW: x86.AADDW, xSUBW: x86.ASUBW, xLEAW: x86.ALEAW,
}

// goAsmEncode assembles one instruction with golang-asm.
func goAsmEncode(i mnemonic, from, mid, to operand) (code []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("golang-asm: %v", r)
		}
	}()
	ctxt := obj.Linknew(goAsmArch().LinkArch)
	ctxt.Headtype = objabi.Hlinux
	ctxt.IsAsm = true
	ctxt.DiagFunc = func(format string, args ...any) {
		if err == nil {
			err = fmt.Errorf(format, args...)
		}
	}
	goAsmArch().Init(ctxt)
	p := &obj.Prog{Ctxt: ctxt, As: goAsOf[i], From: goAddr(from), To: goAddr(to)}
	if mid.kind != kNone {
		p.RestArgs = []obj.Addr{goAddr(mid)}
	}
	s := &obj.LSym{Func: &obj.FuncInfo{Text: p}}
	goAsmArch().Assemble(ctxt, s, func() *obj.Prog { return &obj.Prog{Ctxt: ctxt} })
	return s.P, err
}

// goReg is register r as golang-asm numbers it.
func goReg(r register) int16 {
	if r.isXMM() {
		return int16(x86.REG_X0) + int16(r.xmm())
	}
	return int16(x86.REG_AX) + int16(r.gpr())
}

// goAddr is operand o as golang-asm's obj.Addr.
func goAddr(o operand) obj.Addr {
	switch o.kind {
	case kReg:
		return obj.Addr{Type: obj.TYPE_REG, Reg: goReg(o.reg)}
	case kImm:
		return obj.Addr{Type: obj.TYPE_CONST, Offset: o.off}
	case kMem:
		if o.index != 0 {
			return obj.Addr{Type: obj.TYPE_MEM, Reg: goReg(o.reg), Index: goReg(o.index), Scale: 1 << o.scale, Offset: o.off}
		}
		return obj.Addr{Type: obj.TYPE_MEM, Reg: goReg(o.reg), Offset: o.off}
	}
	return obj.Addr{}
}

// TestEncodePrefetchW checks PREFETCHW, which golang-asm does not know,
// against the x86asm decoder instead: every base and index register and
// displacements of each size decode back to PREFETCHW of the same
// address, the whole encoding consumed.
func TestEncodePrefetchW(t *testing.T) {
	x86Reg := func(r register) x86asm.Reg { return x86asm.RAX + x86asm.Reg(r-rAX) }
	n := 0
	for b := rAX; b < rAX+16; b++ {
		for _, off := range []int64{0, 8, -128, 0x208, -0x80000000} {
			for _, x := range []register{0, rCX, rBP, rR8, rR13} {
				o := mem(b, off)
				if x != 0 {
					o = memIdx(b, x, off)
				}
				e := &encoder{}
				e.encode(xPREFETCHW, o, none, none)
				in, err := x86asm.Decode(e.buf, 64)
				if err != nil || in.Len != len(e.buf) || in.Op != x86asm.PREFETCHW {
					t.Fatalf("PREFETCHW %v: % x decodes as %v (%v)", o, e.buf, in, err)
				}
				m, _ := in.Args[0].(x86asm.Mem)
				m.Disp = int64(int32(m.Disp)) // (x86asm gives a disp32 zero-extended)
				if m.Index == 0 {
					m.Scale = 0 // (and a SIB byte without an index scale 1)
				}
				want := x86asm.Mem{Base: x86Reg(b), Disp: off}
				if x != 0 {
					want.Index, want.Scale = x86Reg(x), 1
				}
				if m != want {
					t.Errorf("PREFETCHW %v: % x decodes to %+v, want %+v", o, e.buf, m, want)
				}
				n++
			}
		}
	}
	t.Logf("%d encodings checked", n)
}
