// The instruction table the tests share: mnemonic -> the package function that implements it.

package fpu

// An operand kind says how a case's operands and results are read and
// printed.
type operand uint8

const (
	opF64 operand = iota // a double bit pattern
	opF32                // a single bit pattern (the low 32 bits)
	opInt                // an integer register (all 64 bits)
)

// An instr is one RISC-V floating-point instruction under test.
type instr struct {
	name  string  // the assembler mnemonic, as the oracle program knows it
	arity int     // operands used: 1 to 3
	rm    bool    // takes a rounding mode
	in    operand // kind of every operand
	out   operand // kind of the result
	run   func(a, b, c uint64, rm RM) (uint64, Flags)
}

func b2u(b bool, fl Flags) (uint64, Flags) {
	if b {
		return 1, fl
	}
	return 0, fl
}

func w32(r uint32, fl Flags) (uint64, Flags) { return uint64(r), fl }

// instrs lists every instruction of F and D that computes (the moves and
// sign injections are the interpreter's own).
var instrs = []instr{
	{"fadd.d", 2, true, opF64, opF64, func(a, b, _ uint64, rm RM) (uint64, Flags) { return Add64(a, b, rm) }},
	{"fsub.d", 2, true, opF64, opF64, func(a, b, _ uint64, rm RM) (uint64, Flags) { return Sub64(a, b, rm) }},
	{"fmul.d", 2, true, opF64, opF64, func(a, b, _ uint64, rm RM) (uint64, Flags) { return Mul64(a, b, rm) }},
	{"fdiv.d", 2, true, opF64, opF64, func(a, b, _ uint64, rm RM) (uint64, Flags) { return Div64(a, b, rm) }},
	{"fsqrt.d", 1, true, opF64, opF64, func(a, _, _ uint64, rm RM) (uint64, Flags) { return Sqrt64(a, rm) }},
	{"fmadd.d", 3, true, opF64, opF64, func(a, b, c uint64, rm RM) (uint64, Flags) { return MulAdd64(a, b, c, false, false, rm) }},
	{"fmsub.d", 3, true, opF64, opF64, func(a, b, c uint64, rm RM) (uint64, Flags) { return MulAdd64(a, b, c, false, true, rm) }},
	{"fnmsub.d", 3, true, opF64, opF64, func(a, b, c uint64, rm RM) (uint64, Flags) { return MulAdd64(a, b, c, true, false, rm) }},
	{"fnmadd.d", 3, true, opF64, opF64, func(a, b, c uint64, rm RM) (uint64, Flags) { return MulAdd64(a, b, c, true, true, rm) }},
	{"fmin.d", 2, false, opF64, opF64, func(a, b, _ uint64, _ RM) (uint64, Flags) { return Min64(a, b) }},
	{"fmax.d", 2, false, opF64, opF64, func(a, b, _ uint64, _ RM) (uint64, Flags) { return Max64(a, b) }},
	{"feq.d", 2, false, opF64, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Eq64(a, b)) }},
	{"flt.d", 2, false, opF64, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Lt64(a, b)) }},
	{"fle.d", 2, false, opF64, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Le64(a, b)) }},
	{"fclass.d", 1, false, opF64, opInt, func(a, _, _ uint64, _ RM) (uint64, Flags) { return Class64(a), 0 }},
	{"fcvt.w.d", 1, true, opF64, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F64ToI32(a, rm) }},
	{"fcvt.wu.d", 1, true, opF64, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F64ToU32(a, rm) }},
	{"fcvt.l.d", 1, true, opF64, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F64ToI64(a, rm) }},
	{"fcvt.lu.d", 1, true, opF64, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F64ToU64(a, rm) }},
	{"fcvt.d.w", 1, true, opInt, opF64, func(a, _, _ uint64, rm RM) (uint64, Flags) { return I32ToF64(int32(a), rm) }},
	{"fcvt.d.wu", 1, true, opInt, opF64, func(a, _, _ uint64, rm RM) (uint64, Flags) { return U32ToF64(uint32(a), rm) }},
	{"fcvt.d.l", 1, true, opInt, opF64, func(a, _, _ uint64, rm RM) (uint64, Flags) { return I64ToF64(int64(a), rm) }},
	{"fcvt.d.lu", 1, true, opInt, opF64, func(a, _, _ uint64, rm RM) (uint64, Flags) { return U64ToF64(a, rm) }},
	{"fcvt.s.d", 1, true, opF64, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(F64ToF32(a, rm)) }},
	{"fcvt.d.s", 1, true, opF32, opF64, func(a, _, _ uint64, _ RM) (uint64, Flags) { return F32ToF64(uint32(a)) }},

	{"fadd.s", 2, true, opF32, opF32, func(a, b, _ uint64, rm RM) (uint64, Flags) { return w32(Add32(uint32(a), uint32(b), rm)) }},
	{"fsub.s", 2, true, opF32, opF32, func(a, b, _ uint64, rm RM) (uint64, Flags) { return w32(Sub32(uint32(a), uint32(b), rm)) }},
	{"fmul.s", 2, true, opF32, opF32, func(a, b, _ uint64, rm RM) (uint64, Flags) { return w32(Mul32(uint32(a), uint32(b), rm)) }},
	{"fdiv.s", 2, true, opF32, opF32, func(a, b, _ uint64, rm RM) (uint64, Flags) { return w32(Div32(uint32(a), uint32(b), rm)) }},
	{"fsqrt.s", 1, true, opF32, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(Sqrt32(uint32(a), rm)) }},
	{"fmadd.s", 3, true, opF32, opF32, func(a, b, c uint64, rm RM) (uint64, Flags) {
		return w32(MulAdd32(uint32(a), uint32(b), uint32(c), false, false, rm))
	}},
	{"fmsub.s", 3, true, opF32, opF32, func(a, b, c uint64, rm RM) (uint64, Flags) {
		return w32(MulAdd32(uint32(a), uint32(b), uint32(c), false, true, rm))
	}},
	{"fnmsub.s", 3, true, opF32, opF32, func(a, b, c uint64, rm RM) (uint64, Flags) {
		return w32(MulAdd32(uint32(a), uint32(b), uint32(c), true, false, rm))
	}},
	{"fnmadd.s", 3, true, opF32, opF32, func(a, b, c uint64, rm RM) (uint64, Flags) {
		return w32(MulAdd32(uint32(a), uint32(b), uint32(c), true, true, rm))
	}},
	{"fmin.s", 2, false, opF32, opF32, func(a, b, _ uint64, _ RM) (uint64, Flags) { return w32(Min32(uint32(a), uint32(b))) }},
	{"fmax.s", 2, false, opF32, opF32, func(a, b, _ uint64, _ RM) (uint64, Flags) { return w32(Max32(uint32(a), uint32(b))) }},
	{"feq.s", 2, false, opF32, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Eq32(uint32(a), uint32(b))) }},
	{"flt.s", 2, false, opF32, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Lt32(uint32(a), uint32(b))) }},
	{"fle.s", 2, false, opF32, opInt, func(a, b, _ uint64, _ RM) (uint64, Flags) { return b2u(Le32(uint32(a), uint32(b))) }},
	{"fclass.s", 1, false, opF32, opInt, func(a, _, _ uint64, _ RM) (uint64, Flags) { return Class32(uint32(a)), 0 }},
	{"fcvt.w.s", 1, true, opF32, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F32ToI32(uint32(a), rm) }},
	{"fcvt.wu.s", 1, true, opF32, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F32ToU32(uint32(a), rm) }},
	{"fcvt.l.s", 1, true, opF32, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F32ToI64(uint32(a), rm) }},
	{"fcvt.lu.s", 1, true, opF32, opInt, func(a, _, _ uint64, rm RM) (uint64, Flags) { return F32ToU64(uint32(a), rm) }},
	{"fcvt.s.w", 1, true, opInt, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(I32ToF32(int32(a), rm)) }},
	{"fcvt.s.wu", 1, true, opInt, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(U32ToF32(uint32(a), rm)) }},
	{"fcvt.s.l", 1, true, opInt, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(I64ToF32(int64(a), rm)) }},
	{"fcvt.s.lu", 1, true, opInt, opF32, func(a, _, _ uint64, rm RM) (uint64, Flags) { return w32(U64ToF32(a, rm)) }},
}

// instrByName indexes instrs.
var instrByName = func() map[string]*instr {
	m := make(map[string]*instr, len(instrs))
	for i := range instrs {
		m[instrs[i].name] = &instrs[i]
	}
	return m
}()
