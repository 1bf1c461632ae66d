// Hand-checked corner cases for every instruction: mnemonic, rm, operands -> result and flags, from the ISA manual's rules.

package fpu

import (
	"testing"
)

// Doubles.
const (
	dZero    = 0x0000000000000000
	dNegZero = 0x8000000000000000
	dOne     = 0x3ff0000000000000
	dNegOne  = 0xbff0000000000000
	dTwo     = 0x4000000000000000
	dHalf    = 0x3fe0000000000000
	dNegHalf = 0xbfe0000000000000
	dOneUlp  = 0x3ff0000000000001 // 1 + 2^-52
	dBelow1  = 0x3fefffffffffffff // 1 - 2^-53
	dHalfUlp = 0x3ca0000000000000 // 2^-53, half an ulp of 1
	dMax     = 0x7fefffffffffffff
	dNegMax  = 0xffefffffffffffff
	dMinNorm = 0x0010000000000000
	dMaxSub  = 0x000fffffffffffff
	dMinSub  = 0x0000000000000001
	dInf     = 0x7ff0000000000000
	dNegInf  = 0xfff0000000000000
	dQNaN    = 0x7ff8000000000000
	dNegQNaN = 0xfff8000000000000 // the x86 default NaN: not canonical here
	dPayload = 0x7ffc000000000123 // a quiet NaN with a payload
	dSNaN    = 0x7ff0000000000001
	d2p31    = 0x41e0000000000000 // 2^31
	d2p63    = 0x43e0000000000000
	d2p64    = 0x43f0000000000000
)

// Singles.
const (
	sZero    = 0x00000000
	sNegZero = 0x80000000
	sOne     = 0x3f800000
	sNegOne  = 0xbf800000
	sHalf    = 0x3f000000
	sNegHalf = 0xbf000000
	sThree   = 0x40400000
	sMax     = 0x7f7fffff
	sMinNorm = 0x00800000
	sMaxSub  = 0x007fffff
	sMinSub  = 0x00000001
	sInf     = 0x7f800000
	sNegInf  = 0xff800000
	sQNaN    = 0x7fc00000
	sSNaN    = 0x7f800001
	sPayload = 0x7fe00123
	s2p31    = 0x4f000000
	s2p63    = 0x5f000000
	s2p64    = 0x5f800000
)

const (
	m1     = 0xffffffffffffffff
	minI32 = 0xffffffff80000000 // -2^31, sign-extended
	maxI32 = 0x7fffffff
	minI64 = 0x8000000000000000
	maxI64 = 0x7fffffffffffffff
)

// A unitCase is one instruction applied to hand-picked operands.
type unitCase struct {
	note    string
	op      string // mnemonic, as in instrs
	rm      RM
	a, b, c uint64
	want    uint64
	fl      Flags
}

var unitCases = []unitCase{
	// Addition: ties in every mode, signed zeros, overflow per mode.
	{"1+half-ulp ties to even", "fadd.d", RNE, dOne, dHalfUlp, 0, dOne, NX},
	{"1+half-ulp rtz", "fadd.d", RTZ, dOne, dHalfUlp, 0, dOne, NX},
	{"1+half-ulp rdn", "fadd.d", RDN, dOne, dHalfUlp, 0, dOne, NX},
	{"1+half-ulp rup", "fadd.d", RUP, dOne, dHalfUlp, 0, dOneUlp, NX},
	{"1+half-ulp ties away", "fadd.d", RMM, dOne, dHalfUlp, 0, dOneUlp, NX},
	{"odd+half-ulp ties to even, up", "fadd.d", RNE, dOneUlp, dHalfUlp, 0, dOneUlp + 1, NX},
	{"-1-half-ulp rdn", "fadd.d", RDN, dNegOne, dHalfUlp | 1<<63, 0, dNegOne + 1, NX},
	{"-1-half-ulp rup", "fadd.d", RUP, dNegOne, dHalfUlp | 1<<63, 0, dNegOne, NX},
	{"1-1 is +0", "fadd.d", RNE, dOne, dNegOne, 0, dZero, 0},
	{"1-1 is -0 under rdn", "fadd.d", RDN, dOne, dNegOne, 0, dNegZero, 0},
	{"1-1 is +0 under rup", "fadd.d", RUP, dOne, dNegOne, 0, dZero, 0},
	{"-0+-0", "fadd.d", RNE, dNegZero, dNegZero, 0, dNegZero, 0},
	{"+0+-0", "fadd.d", RNE, dZero, dNegZero, 0, dZero, 0},
	{"+0+-0 rdn", "fadd.d", RDN, dZero, dNegZero, 0, dNegZero, 0},
	{"x+0 keeps a subnormal, no UF", "fadd.d", RNE, dMinSub, dZero, 0, dMinSub, 0},
	{"subnormals add exactly", "fadd.d", RNE, dMaxSub, dMinSub, 0, dMinNorm, 0},
	{"inf-inf", "fadd.d", RNE, dInf, dNegInf, 0, dQNaN, NV},
	{"inf+1", "fadd.d", RNE, dInf, dOne, 0, dInf, 0},
	{"qNaN is quiet", "fadd.d", RNE, dQNaN, dOne, 0, dQNaN, 0},
	{"payload not propagated", "fadd.d", RNE, dOne, dPayload, 0, dQNaN, 0},
	{"negative NaN made canonical", "fadd.d", RNE, dNegQNaN, dOne, 0, dQNaN, 0},
	{"sNaN", "fadd.d", RNE, dSNaN, dOne, 0, dQNaN, NV},
	{"sNaN+qNaN", "fadd.d", RNE, dQNaN, dSNaN, 0, dQNaN, NV},
	{"max+max rne", "fadd.d", RNE, dMax, dMax, 0, dInf, OF | NX},
	{"max+max rtz", "fadd.d", RTZ, dMax, dMax, 0, dMax, OF | NX},
	{"max+max rdn", "fadd.d", RDN, dMax, dMax, 0, dMax, OF | NX},
	{"max+max rup", "fadd.d", RUP, dMax, dMax, 0, dInf, OF | NX},
	{"max+max rmm", "fadd.d", RMM, dMax, dMax, 0, dInf, OF | NX},
	{"-max-max rdn", "fadd.d", RDN, dNegMax, dNegMax, 0, dNegInf, OF | NX},
	{"-max-max rup", "fadd.d", RUP, dNegMax, dNegMax, 0, dNegMax, OF | NX},
	{"max+half-ulp ties up to overflow", "fadd.d", RNE, dMax, 0x7c90000000000000, 0, dInf, OF | NX},
	{"max+half-ulp rtz is no overflow", "fadd.d", RTZ, dMax, 0x7c90000000000000, 0, dMax, NX},
	{"max+ulp rtz overflows: 2^1024 is exact", "fadd.d", RTZ, dMax, 0x7ca0000000000000, 0, dMax, OF | NX},
	{"max+tiny rne", "fadd.d", RNE, dMax, dOne, 0, dMax, NX},
	{"max+tiny rup overflows", "fadd.d", RUP, dMax, dOne, 0, dInf, OF | NX},
	{"1-1 sub", "fsub.d", RNE, dOne, dOne, 0, dZero, 0},
	{"1-1 sub rdn", "fsub.d", RDN, dOne, dOne, 0, dNegZero, 0},
	{"0-0 sub", "fsub.d", RNE, dZero, dZero, 0, dZero, 0},
	{"-0-0 sub", "fsub.d", RNE, dNegZero, dZero, 0, dNegZero, 0},
	{"inf-inf sub", "fsub.d", RNE, dInf, dInf, 0, dQNaN, NV},
	{"1-2^-53 needs no rounding", "fsub.d", RNE, dOne, dHalfUlp, 0, dBelow1, 0},

	// Multiplication: tininess after rounding, underflow to zero.
	{"exact subnormal: no UF", "fmul.d", RNE, dMinNorm, dHalf, 0, 0x0008000000000000, 0},
	{"rounds up to min normal, tiny after rounding too", "fmul.d", RNE, dBelow1, dMinNorm, 0, dMinNorm, UF | NX},
	{"same, rtz", "fmul.d", RTZ, dBelow1, dMinNorm, 0, dMaxSub, UF | NX},
	// 2^-1022 × (1 - 2^-60): below the smallest normal before rounding,
	// but not after rounding to 53 bits; only RTZ and RDN stay tiny.
	{"not tiny after rounding: no UF", "fmul.d", RNE, 0x3fefffffff800000, 0x0010000000400000, 0, dMinNorm, NX},
	{"not tiny after rounding up", "fmul.d", RUP, 0x3fefffffff800000, 0x0010000000400000, 0, dMinNorm, NX},
	{"not tiny after ties-away", "fmul.d", RMM, 0x3fefffffff800000, 0x0010000000400000, 0, dMinNorm, NX},
	{"tiny after rounding down", "fmul.d", RDN, 0x3fefffffff800000, 0x0010000000400000, 0, dMaxSub, UF | NX},
	{"tiny after rtz", "fmul.d", RTZ, 0x3fefffffff800000, 0x0010000000400000, 0, dMaxSub, UF | NX},
	{"half the min subnormal ties to 0", "fmul.d", RNE, dMinSub, dHalf, 0, dZero, UF | NX},
	{"half the min subnormal rmm", "fmul.d", RMM, dMinSub, dHalf, 0, dMinSub, UF | NX},
	{"half the min subnormal rup", "fmul.d", RUP, dMinSub, dHalf, 0, dMinSub, UF | NX},
	{"-half the min subnormal rdn", "fmul.d", RDN, dMinSub | 1<<63, dHalf, 0, dMinSub | 1<<63, UF | NX},
	{"-half the min subnormal rup", "fmul.d", RUP, dMinSub | 1<<63, dHalf, 0, dNegZero, UF | NX},
	{"min sub squared", "fmul.d", RNE, dMinSub, dMinSub, 0, dZero, UF | NX},
	{"0×inf", "fmul.d", RNE, dZero, dInf, 0, dQNaN, NV},
	{"-0×5", "fmul.d", RNE, dNegZero, 0x4014000000000000, 0, dNegZero, 0},
	{"-inf×-1", "fmul.d", RNE, dNegInf, dNegOne, 0, dInf, 0},
	{"sNaN×0", "fmul.d", RNE, dSNaN, dZero, 0, dQNaN, NV},
	{"max×2 rtz", "fmul.d", RTZ, dMax, dTwo, 0, dMax, OF | NX},
	{"-max×2 rup", "fmul.d", RUP, dNegMax, dTwo, 0, dNegMax, OF | NX},
	{"max×2 rmm", "fmul.d", RMM, dMax, dTwo, 0, dInf, OF | NX},

	// Division.
	{"1/0", "fdiv.d", RNE, dOne, dZero, 0, dInf, DZ},
	{"-1/0", "fdiv.d", RNE, dNegOne, dZero, 0, dNegInf, DZ},
	{"1/-0", "fdiv.d", RNE, dOne, dNegZero, 0, dNegInf, DZ},
	{"0/0", "fdiv.d", RNE, dZero, dZero, 0, dQNaN, NV},
	{"inf/inf", "fdiv.d", RNE, dInf, dNegInf, 0, dQNaN, NV},
	{"inf/0 is not DZ", "fdiv.d", RNE, dInf, dZero, 0, dInf, 0},
	{"0/inf", "fdiv.d", RNE, dZero, dNegInf, 0, dNegZero, 0},
	{"1/inf", "fdiv.d", RNE, dOne, dInf, 0, dZero, 0},
	{"1/3 rne", "fdiv.d", RNE, dOne, 0x4008000000000000, 0, 0x3fd5555555555555, NX},
	{"1/3 rup", "fdiv.d", RUP, dOne, 0x4008000000000000, 0, 0x3fd5555555555556, NX},
	{"1/3 rtz", "fdiv.d", RTZ, dOne, 0x4008000000000000, 0, 0x3fd5555555555555, NX},
	{"2/3 rne rounds up", "fdiv.d", RNE, dTwo, 0x4008000000000000, 0, 0x3fe5555555555555, NX},
	{"min normal/2 exact", "fdiv.d", RNE, dMinNorm, dTwo, 0, 0x0008000000000000, 0},
	{"min sub/2", "fdiv.d", RNE, dMinSub, dTwo, 0, dZero, UF | NX},
	{"max/0.5", "fdiv.d", RNE, dMax, dHalf, 0, dInf, OF | NX},
	{"sNaN/1", "fdiv.d", RNE, dSNaN, dOne, 0, dQNaN, NV},
	{"qNaN/0 is not DZ", "fdiv.d", RNE, dQNaN, dZero, 0, dQNaN, 0},

	// Square root.
	{"sqrt 4", "fsqrt.d", RNE, 0x4010000000000000, 0, 0, dTwo, 0},
	{"sqrt 2 rne", "fsqrt.d", RNE, dTwo, 0, 0, 0x3ff6a09e667f3bcd, NX},
	{"sqrt 2 rtz", "fsqrt.d", RTZ, dTwo, 0, 0, 0x3ff6a09e667f3bcc, NX},
	{"sqrt 2 rup", "fsqrt.d", RUP, dTwo, 0, 0, 0x3ff6a09e667f3bcd, NX},
	{"sqrt -0", "fsqrt.d", RNE, dNegZero, 0, 0, dNegZero, 0},
	{"sqrt -1", "fsqrt.d", RNE, dNegOne, 0, 0, dQNaN, NV},
	{"sqrt -min sub", "fsqrt.d", RNE, dMinSub | 1<<63, 0, 0, dQNaN, NV},
	{"sqrt -inf", "fsqrt.d", RNE, dNegInf, 0, 0, dQNaN, NV},
	{"sqrt inf", "fsqrt.d", RNE, dInf, 0, 0, dInf, 0},
	{"sqrt min sub = 2^-537", "fsqrt.d", RNE, dMinSub, 0, 0, 0x1e60000000000000, 0},
	{"sqrt -qNaN", "fsqrt.d", RNE, dNegQNaN, 0, 0, dQNaN, 0},
	{"sqrt sNaN", "fsqrt.d", RNE, dSNaN, 0, 0, dQNaN, NV},
	{"sqrt max", "fsqrt.d", RNE, dMax, 0, 0, 0x5fefffffffffffff, NX},

	// Fused multiply-add: one rounding, 0×inf, signs of exact zeros.
	{"inf×0+qNaN is still invalid", "fmadd.d", RNE, dInf, dZero, dQNaN, dQNaN, NV},
	{"0×inf+1", "fmadd.d", RNE, dZero, dNegInf, dOne, dQNaN, NV},
	{"1×1-1", "fmadd.d", RNE, dOne, dOne, dNegOne, dZero, 0},
	{"1×1-1 rdn", "fmadd.d", RDN, dOne, dOne, dNegOne, dNegZero, 0},
	{"0×1-0", "fmadd.d", RNE, dZero, dOne, dNegZero, dZero, 0},
	{"-0×1-0", "fmadd.d", RNE, dNegZero, dOne, dNegZero, dNegZero, 0},
	{"0×1+5 exact", "fmadd.d", RUP, dZero, dOne, 0x4014000000000000, 0x4014000000000000, 0},
	// (1+2^-52)(1-2^-53) - 1 = 2^-53 - 2^-105 exactly; rounding the
	// product first would give 1, and 0 in the end.
	{"one rounding, not two", "fmadd.d", RNE, dOneUlp, dBelow1, dNegOne, 0x3c9ffffffffffffe, 0},
	{"max×2-max: no intermediate overflow", "fmadd.d", RNE, dMax, dTwo, dNegMax, dMax, 0},
	{"inf×1-inf", "fmadd.d", RNE, dInf, dOne, dNegInf, dQNaN, NV},
	{"inf×1+inf", "fmadd.d", RNE, dInf, dOne, dInf, dInf, 0},
	{"1×1+inf", "fmadd.d", RNE, dOne, dOne, dNegInf, dNegInf, 0},
	{"qNaN×1+1", "fmadd.d", RNE, dQNaN, dOne, dOne, dQNaN, 0},
	{"1×1+sNaN", "fmadd.d", RNE, dOne, dOne, dSNaN, dQNaN, NV},
	{"fmsub 1×2-3", "fmsub.d", RNE, dOne, dTwo, 0x4008000000000000, dNegOne, 0},
	{"fmsub 1×1-1", "fmsub.d", RNE, dOne, dOne, dOne, dZero, 0},
	{"fnmsub -(1×2)+3", "fnmsub.d", RNE, dOne, dTwo, 0x4008000000000000, dOne, 0},
	{"fnmadd -(1×2)-3", "fnmadd.d", RNE, dOne, dTwo, 0x4008000000000000, 0xc014000000000000, 0},
	{"fnmadd -(1×1)-(-1) is +0, not -(+0)", "fnmadd.d", RNE, dOne, dOne, dNegOne, dZero, 0},
	{"fnmadd -(1×1)-(-1) rdn", "fnmadd.d", RDN, dOne, dOne, dNegOne, dNegZero, 0},
	{"fnmadd -(0×1)-0", "fnmadd.d", RNE, dZero, dOne, dZero, dNegZero, 0},
	{"tiny product under a large addend rup", "fmadd.d", RUP, dMinSub, dMinSub, dOne, dOneUlp, NX},
	{"tiny product under a large addend rdn", "fmadd.d", RDN, dMinSub | 1<<63, dMinSub, dOne, dBelow1, NX},
	{"product underflow", "fmadd.d", RNE, dMinSub, dHalf, dZero, dZero, UF | NX},

	// fmin/fmax.
	{"min -0,+0", "fmin.d", RNE, dZero, dNegZero, 0, dNegZero, 0},
	{"max -0,+0", "fmax.d", RNE, dNegZero, dZero, 0, dZero, 0},
	{"max +0,-0", "fmax.d", RNE, dZero, dNegZero, 0, dZero, 0},
	{"min 1,2", "fmin.d", RNE, dOne, dTwo, 0, dOne, 0},
	{"max -inf,inf", "fmax.d", RNE, dNegInf, dInf, 0, dInf, 0},
	{"min -1,-inf", "fmin.d", RNE, dNegOne, dNegInf, 0, dNegInf, 0},
	{"min qNaN,1", "fmin.d", RNE, dQNaN, dOne, 0, dOne, 0},
	{"max 1,qNaN", "fmax.d", RNE, dOne, dPayload, 0, dOne, 0},
	{"min sNaN,1", "fmin.d", RNE, dSNaN, dOne, 0, dOne, NV},
	{"min NaNs", "fmin.d", RNE, dPayload, dNegQNaN, 0, dQNaN, 0},
	{"max sNaN,qNaN", "fmax.d", RNE, dSNaN, dQNaN, 0, dQNaN, NV},

	// Comparisons.
	{"eq qNaN", "feq.d", RNE, dQNaN, dQNaN, 0, 0, 0},
	{"eq sNaN", "feq.d", RNE, dSNaN, dOne, 0, 0, NV},
	{"eq +0,-0", "feq.d", RNE, dZero, dNegZero, 0, 1, 0},
	{"eq 1,1", "feq.d", RNE, dOne, dOne, 0, 1, 0},
	{"eq 1,1+ulp", "feq.d", RNE, dOne, dOneUlp, 0, 0, 0},
	{"lt qNaN is signalling", "flt.d", RNE, dQNaN, dOne, 0, 0, NV},
	{"le qNaN is signalling", "fle.d", RNE, dOne, dQNaN, 0, 0, NV},
	{"lt -0,+0", "flt.d", RNE, dNegZero, dZero, 0, 0, 0},
	{"le -0,+0", "fle.d", RNE, dNegZero, dZero, 0, 1, 0},
	{"lt -inf,inf", "flt.d", RNE, dNegInf, dInf, 0, 1, 0},
	{"lt 1,1", "flt.d", RNE, dOne, dOne, 0, 0, 0},
	{"le 1,1", "fle.d", RNE, dOne, dOne, 0, 1, 0},
	{"lt -2,-1", "flt.d", RNE, 0xc000000000000000, dNegOne, 0, 1, 0},
	{"lt -1,-2", "flt.d", RNE, dNegOne, 0xc000000000000000, 0, 0, 0},

	// fclass.
	{"class -inf", "fclass.d", RNE, dNegInf, 0, 0, 1 << 0, 0},
	{"class -1", "fclass.d", RNE, dNegOne, 0, 0, 1 << 1, 0},
	{"class -sub", "fclass.d", RNE, dMaxSub | 1<<63, 0, 0, 1 << 2, 0},
	{"class -0", "fclass.d", RNE, dNegZero, 0, 0, 1 << 3, 0},
	{"class +0", "fclass.d", RNE, dZero, 0, 0, 1 << 4, 0},
	{"class +sub", "fclass.d", RNE, dMinSub, 0, 0, 1 << 5, 0},
	{"class min normal", "fclass.d", RNE, dMinNorm, 0, 0, 1 << 6, 0},
	{"class inf", "fclass.d", RNE, dInf, 0, 0, 1 << 7, 0},
	{"class sNaN", "fclass.d", RNE, dSNaN, 0, 0, 1 << 8, 0},
	{"class -sNaN", "fclass.d", RNE, dSNaN | 1<<63, 0, 0, 1 << 8, 0},
	{"class qNaN", "fclass.d", RNE, dQNaN, 0, 0, 1 << 9, 0},
	{"class -qNaN", "fclass.d", RNE, dNegQNaN, 0, 0, 1 << 9, 0},

	// Double to integer: saturation, NV without NX, rounding near the
	// limits, sign extension of the W forms.
	{"w 2^31-1", "fcvt.w.d", RNE, 0x41dfffffffc00000, 0, 0, maxI32, 0},
	{"w 2^31", "fcvt.w.d", RTZ, d2p31, 0, 0, maxI32, NV},
	{"w -2^31", "fcvt.w.d", RNE, d2p31 | 1<<63, 0, 0, minI32, 0},
	{"w -2^31-1", "fcvt.w.d", RNE, 0xc1e0000000200000, 0, 0, minI32, NV},
	{"w -2^31-0.5 rtz", "fcvt.w.d", RTZ, 0xc1e0000000100000, 0, 0, minI32, NX},
	{"w -2^31-0.5 rne ties to even", "fcvt.w.d", RNE, 0xc1e0000000100000, 0, 0, minI32, NX},
	{"w -2^31-0.5 rdn", "fcvt.w.d", RDN, 0xc1e0000000100000, 0, 0, minI32, NV},
	{"w -2^31-0.5 rmm", "fcvt.w.d", RMM, 0xc1e0000000100000, 0, 0, minI32, NV},
	{"w 2^31-0.5 rne ties to even, out of range", "fcvt.w.d", RNE, 0x41dfffffffe00000, 0, 0, maxI32, NV},
	{"w 2^31-0.5 rtz", "fcvt.w.d", RTZ, 0x41dfffffffe00000, 0, 0, maxI32, NX},
	{"w NaN", "fcvt.w.d", RNE, dQNaN, 0, 0, maxI32, NV},
	{"w -NaN is still the maximum", "fcvt.w.d", RNE, dNegQNaN, 0, 0, maxI32, NV},
	{"w inf", "fcvt.w.d", RNE, dInf, 0, 0, maxI32, NV},
	{"w -inf", "fcvt.w.d", RNE, dNegInf, 0, 0, minI32, NV},
	{"w 0.5 rne", "fcvt.w.d", RNE, dHalf, 0, 0, 0, NX},
	{"w 0.5 rmm", "fcvt.w.d", RMM, dHalf, 0, 0, 1, NX},
	{"w 0.5 rup", "fcvt.w.d", RUP, dHalf, 0, 0, 1, NX},
	{"w -0.5 rdn", "fcvt.w.d", RDN, dNegHalf, 0, 0, m1, NX},
	{"w 2.5 rne", "fcvt.w.d", RNE, 0x4004000000000000, 0, 0, 2, NX},
	{"w 2.5 rmm", "fcvt.w.d", RMM, 0x4004000000000000, 0, 0, 3, NX},
	{"w -2.5 rmm", "fcvt.w.d", RMM, 0xc004000000000000, 0, 0, 0xfffffffffffffffd, NX},
	{"w -0", "fcvt.w.d", RNE, dNegZero, 0, 0, 0, 0},
	{"w min sub rup", "fcvt.w.d", RUP, dMinSub, 0, 0, 1, NX},
	{"w -1", "fcvt.w.d", RNE, dNegOne, 0, 0, m1, 0},
	{"wu -0.5 rtz", "fcvt.wu.d", RTZ, dNegHalf, 0, 0, 0, NX},
	{"wu -0.5 rne", "fcvt.wu.d", RNE, dNegHalf, 0, 0, 0, NX},
	{"wu -0.5 rdn", "fcvt.wu.d", RDN, dNegHalf, 0, 0, 0, NV},
	{"wu -1", "fcvt.wu.d", RTZ, dNegOne, 0, 0, 0, NV},
	{"wu 2^32-1 sign-extends", "fcvt.wu.d", RNE, 0x41efffffffe00000, 0, 0, m1, 0},
	{"wu 2^31 sign-extends", "fcvt.wu.d", RNE, d2p31, 0, 0, minI32, 0},
	{"wu 2^32-0.5 rne", "fcvt.wu.d", RNE, 0x41effffffff00000, 0, 0, m1, NV},
	{"wu 2^32-0.5 rtz", "fcvt.wu.d", RTZ, 0x41effffffff00000, 0, 0, m1, NX},
	{"wu 2^32", "fcvt.wu.d", RNE, 0x41f0000000000000, 0, 0, m1, NV},
	{"wu NaN", "fcvt.wu.d", RNE, dQNaN, 0, 0, m1, NV},
	{"wu -inf", "fcvt.wu.d", RNE, dNegInf, 0, 0, 0, NV},
	{"l 2^63", "fcvt.l.d", RNE, d2p63, 0, 0, maxI64, NV},
	{"l -2^63", "fcvt.l.d", RNE, d2p63 | 1<<63, 0, 0, minI64, 0},
	{"l 2^63-1024", "fcvt.l.d", RNE, 0x43dfffffffffffff, 0, 0, 0x7ffffffffffffc00, 0},
	{"l NaN", "fcvt.l.d", RNE, dSNaN, 0, 0, maxI64, NV},
	{"l -inf", "fcvt.l.d", RNE, dNegInf, 0, 0, minI64, NV},
	{"l -2^64", "fcvt.l.d", RNE, d2p64 | 1<<63, 0, 0, minI64, NV},
	{"lu 2^64", "fcvt.lu.d", RNE, d2p64, 0, 0, m1, NV},
	{"lu 2^64-2048", "fcvt.lu.d", RNE, 0x43efffffffffffff, 0, 0, 0xfffffffffffff800, 0},
	{"lu 2^63", "fcvt.lu.d", RNE, d2p63, 0, 0, minI64, 0},
	{"lu -1", "fcvt.lu.d", RNE, dNegOne, 0, 0, 0, NV},
	{"lu -0.5 rtz", "fcvt.lu.d", RTZ, dNegHalf, 0, 0, 0, NX},
	{"lu -0.5 rmm", "fcvt.lu.d", RMM, dNegHalf, 0, 0, 0, NV},
	{"lu NaN", "fcvt.lu.d", RNE, dQNaN, 0, 0, m1, NV},

	// Integer to double.
	{"d.w -2^31", "fcvt.d.w", RNE, minI32, 0, 0, 0xc1e0000000000000, 0},
	{"d.w ignores the upper half", "fcvt.d.w", RNE, 0x12345678_00000001, 0, 0, dOne, 0},
	{"d.wu 2^32-1", "fcvt.d.wu", RTZ, 0xffffffff, 0, 0, 0x41efffffffe00000, 0},
	{"d.l 0", "fcvt.d.l", RDN, 0, 0, 0, dZero, 0},
	{"d.l 2^53+1 ties to even", "fcvt.d.l", RNE, 1<<53 + 1, 0, 0, 0x4340000000000000, NX},
	{"d.l 2^53+1 rup", "fcvt.d.l", RUP, 1<<53 + 1, 0, 0, 0x4340000000000001, NX},
	{"d.l 2^53+3 ties to even, up", "fcvt.d.l", RNE, 1<<53 + 3, 0, 0, 0x4340000000000002, NX},
	{"d.l max rne", "fcvt.d.l", RNE, maxI64, 0, 0, d2p63, NX},
	{"d.l max rtz", "fcvt.d.l", RTZ, maxI64, 0, 0, 0x43dfffffffffffff, NX},
	{"d.l min", "fcvt.d.l", RNE, minI64, 0, 0, d2p63 | 1<<63, 0},
	{"d.l -(2^53+1) rdn", "fcvt.d.l", RDN, -(1<<53 + 1) & m1, 0, 0, 0xc340000000000001, NX},
	{"d.lu max rne", "fcvt.d.lu", RNE, m1, 0, 0, d2p64, NX},
	{"d.lu max rtz", "fcvt.d.lu", RTZ, m1, 0, 0, 0x43efffffffffffff, NX},

	// Between the formats.
	{"d.s sNaN", "fcvt.d.s", RNE, sSNaN, 0, 0, dQNaN, NV},
	{"d.s payload", "fcvt.d.s", RNE, sPayload, 0, 0, dQNaN, 0},
	{"d.s 1", "fcvt.d.s", RNE, sOne, 0, 0, dOne, 0},
	{"d.s min sub", "fcvt.d.s", RNE, sMinSub, 0, 0, 0x36a0000000000000, 0},
	{"d.s -0", "fcvt.d.s", RNE, sNegZero, 0, 0, dNegZero, 0},
	{"d.s -inf", "fcvt.d.s", RNE, sNegInf, 0, 0, dNegInf, 0},
	{"s.d 1+2^-24 ties to even", "fcvt.s.d", RNE, 0x3ff0000010000000, 0, 0, sOne, NX},
	{"s.d 1+2^-24 rup", "fcvt.s.d", RUP, 0x3ff0000010000000, 0, 0, sOne + 1, NX},
	{"s.d max", "fcvt.s.d", RNE, dMax, 0, 0, sInf, OF | NX},
	{"s.d max rtz", "fcvt.s.d", RTZ, dMax, 0, 0, sMax, OF | NX},
	{"s.d 2^-149", "fcvt.s.d", RNE, 0x36a0000000000000, 0, 0, sMinSub, 0},
	{"s.d 2^-150 ties to 0", "fcvt.s.d", RNE, 0x3690000000000000, 0, 0, sZero, UF | NX},
	{"s.d 2^-150 rup", "fcvt.s.d", RUP, 0x3690000000000000, 0, 0, sMinSub, UF | NX},
	{"s.d -min normal rdn", "fcvt.s.d", RDN, dMinNorm | 1<<63, 0, 0, sMinSub | sNegZero, UF | NX},
	{"s.d sNaN", "fcvt.s.d", RNE, dSNaN, 0, 0, sQNaN, NV},
	{"s.d -qNaN", "fcvt.s.d", RNE, dNegQNaN, 0, 0, sQNaN, 0},

	// Singles.
	{"s 1+2^-24 ties to even", "fadd.s", RNE, sOne, 0x33800000, 0, sOne, NX},
	{"s 1+2^-24 rup", "fadd.s", RUP, sOne, 0x33800000, 0, sOne + 1, NX},
	{"s 1+2^-24 rmm", "fadd.s", RMM, sOne, 0x33800000, 0, sOne + 1, NX},
	{"s 1-1 rdn", "fadd.s", RDN, sOne, sNegOne, 0, sNegZero, 0},
	{"s max+max", "fadd.s", RNE, sMax, sMax, 0, sInf, OF | NX},
	{"s max+max rdn", "fadd.s", RDN, sMax, sMax, 0, sMax, OF | NX},
	{"s inf-inf", "fadd.s", RNE, sInf, sNegInf, 0, sQNaN, NV},
	{"s payload", "fadd.s", RNE, sPayload, sOne, 0, sQNaN, 0},
	{"s sNaN", "fsub.s", RNE, sOne, sSNaN, 0, sQNaN, NV},
	{"s 1-1 sub rdn", "fsub.s", RDN, sOne, sOne, 0, sNegZero, 0},
	{"s not tiny after rounding", "fmul.s", RNE, 0x3f7ff800, 0x00800400, 0, sMinNorm, NX},
	{"s tiny after rtz", "fmul.s", RTZ, 0x3f7ff800, 0x00800400, 0, sMaxSub, UF | NX},
	{"s half min sub", "fmul.s", RNE, sMinSub, sHalf, 0, sZero, UF | NX},
	{"s 0×inf", "fmul.s", RNE, sNegZero, sInf, 0, sQNaN, NV},
	{"s max×2 rtz", "fmul.s", RTZ, sMax, 0x40000000, 0, sMax, OF | NX},
	{"s 1/3", "fdiv.s", RNE, sOne, sThree, 0, 0x3eaaaaab, NX},
	{"s 1/3 rtz", "fdiv.s", RTZ, sOne, sThree, 0, 0x3eaaaaaa, NX},
	{"s 1/0", "fdiv.s", RNE, sOne, sNegZero, 0, sNegInf, DZ},
	{"s 0/0", "fdiv.s", RNE, sZero, sZero, 0, sQNaN, NV},
	{"s sqrt 2", "fsqrt.s", RNE, 0x40000000, 0, 0, 0x3fb504f3, NX},
	{"s sqrt 2 rup", "fsqrt.s", RUP, 0x40000000, 0, 0, 0x3fb504f4, NX},
	{"s sqrt -0", "fsqrt.s", RNE, sNegZero, 0, 0, sNegZero, 0},
	{"s sqrt -1", "fsqrt.s", RNE, sNegOne, 0, 0, sQNaN, NV},
	{"s sqrt 2^-148 = 2^-74", "fsqrt.s", RNE, 2, 0, 0, 0x1a800000, 0},
	{"s sqrt 2^-149", "fsqrt.s", RNE, sMinSub, 0, 0, 0x1a3504f3, NX},
	// (1+2^-12)² is a float32 midpoint; with 2^-60 added it lies just
	// above, so it rounds up. Rounding the exact sum to float64 first and
	// then to float32 would tie to even, downwards.
	{"s fma rounds once", "fmadd.s", RNE, 0x3f800800, 0x3f800800, 0x21800000, 0x3f801001, NX},
	{"s fma midpoint exact ties to even", "fmadd.s", RNE, 0x3f800800, 0x3f800800, sZero, 0x3f801000, NX},
	{"s inf×0+qNaN", "fmadd.s", RNE, sInf, sZero, sQNaN, sQNaN, NV},
	{"s fnmadd -(1×1)-(-1)", "fnmadd.s", RNE, sOne, sOne, sNegOne, sZero, 0},
	{"s fmsub 1×1-1 rdn", "fmsub.s", RDN, sOne, sOne, sOne, sNegZero, 0},
	{"s fnmsub -(1×3)+1", "fnmsub.s", RNE, sOne, sThree, sOne, 0xc0000000, 0},
	{"s min -0,+0", "fmin.s", RNE, sZero, sNegZero, 0, sNegZero, 0},
	{"s max qNaN,-1", "fmax.s", RNE, sQNaN, sNegOne, 0, sNegOne, 0},
	{"s min sNaN,sNaN", "fmin.s", RNE, sSNaN, sSNaN, 0, sQNaN, NV},
	{"s eq -0,+0", "feq.s", RNE, sNegZero, sZero, 0, 1, 0},
	{"s eq qNaN", "feq.s", RNE, sQNaN, sOne, 0, 0, 0},
	{"s lt qNaN", "flt.s", RNE, sOne, sQNaN, 0, 0, NV},
	{"s le -inf,-max", "fle.s", RNE, sNegInf, sMax | sNegZero, 0, 1, 0},
	{"s class -sub", "fclass.s", RNE, sMaxSub | sNegZero, 0, 0, 1 << 2, 0},
	{"s class sNaN", "fclass.s", RNE, sSNaN, 0, 0, 1 << 8, 0},
	{"s class qNaN", "fclass.s", RNE, sPayload, 0, 0, 1 << 9, 0},
	{"s w 2^31", "fcvt.w.s", RNE, s2p31, 0, 0, maxI32, NV},
	{"s w -2^31", "fcvt.w.s", RNE, s2p31 | sNegZero, 0, 0, minI32, 0},
	{"s w NaN", "fcvt.w.s", RNE, sQNaN, 0, 0, maxI32, NV},
	{"s wu -0.5 rtz", "fcvt.wu.s", RTZ, sNegHalf, 0, 0, 0, NX},
	{"s wu -1", "fcvt.wu.s", RTZ, sNegOne, 0, 0, 0, NV},
	{"s wu 2^32-256", "fcvt.wu.s", RNE, 0x4f7fffff, 0, 0, 0xffffffffffffff00, 0},
	{"s l 2^63", "fcvt.l.s", RNE, s2p63, 0, 0, maxI64, NV},
	{"s l -2^63", "fcvt.l.s", RNE, s2p63 | sNegZero, 0, 0, minI64, 0},
	{"s lu 2^64", "fcvt.lu.s", RNE, s2p64, 0, 0, m1, NV},
	{"s lu 2^64-2^40", "fcvt.lu.s", RNE, 0x5f7fffff, 0, 0, 0xffffff0000000000, 0},
	{"s lu -inf", "fcvt.lu.s", RNE, sNegInf, 0, 0, 0, NV},
	{"s.w max rne", "fcvt.s.w", RNE, maxI32, 0, 0, s2p31, NX},
	{"s.w max rtz", "fcvt.s.w", RTZ, maxI32, 0, 0, 0x4effffff, NX},
	{"s.w 2^24+1 ties to even", "fcvt.s.w", RNE, 1<<24 + 1, 0, 0, 0x4b800000, NX},
	{"s.w 2^24+1 rup", "fcvt.s.w", RUP, 1<<24 + 1, 0, 0, 0x4b800001, NX},
	{"s.w -2^31", "fcvt.s.w", RNE, minI32, 0, 0, s2p31 | sNegZero, 0},
	{"s.wu max", "fcvt.s.wu", RNE, 0xffffffff, 0, 0, 0x4f800000, NX},
	{"s.l min", "fcvt.s.l", RNE, minI64, 0, 0, s2p63 | sNegZero, 0},
	{"s.l -1", "fcvt.s.l", RNE, m1, 0, 0, sNegOne, 0},
	{"s.lu max rne", "fcvt.s.lu", RNE, m1, 0, 0, s2p64, NX},
	{"s.lu max rtz", "fcvt.s.lu", RTZ, m1, 0, 0, 0x5f7fffff, NX},
}

// TestUnit runs the hand-checked cases; every exported function is
// reached through the instrs table.
func TestUnit(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range unitCases {
		in := instrByName[tc.op]
		if in == nil {
			t.Fatalf("%s: no instruction %q", tc.note, tc.op)
		}
		seen[tc.op] = true
		t.Run(tc.op+"/"+tc.note, func(t *testing.T) {
			got, fl := in.run(tc.a, tc.b, tc.c, tc.rm)
			if got != tc.want || fl != tc.fl {
				t.Errorf("%s %v %#x %#x %#x = %#x %v, want %#x %v", tc.op, tc.rm, tc.a, tc.b, tc.c, got, fl, tc.want, tc.fl)
			}
		})
	}
	for _, in := range instrs {
		if !seen[in.name] {
			t.Errorf("no unit case for %s", in.name)
		}
	}
}

func TestFlagsString(t *testing.T) {
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{0, "0"},
		{NX, "NX"},
		{NV | NX, "NV|NX"},
		{OF | NX, "OF|NX"},
		{NV | DZ | OF | UF | NX, "NV|DZ|OF|UF|NX"},
		{0x20 | DZ, "DZ|0x20"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.f.String(); got != tc.want {
				t.Errorf("Flags(%#x).String() = %q, want %q", uint8(tc.f), got, tc.want)
			}
		})
	}
}

func TestRMString(t *testing.T) {
	for rm, want := range []string{"rne", "rtz", "rdn", "rup", "rmm", "rm5"} {
		if got := RM(rm).String(); got != want {
			t.Errorf("RM(%d).String() = %q, want %q", rm, got, want)
		}
	}
}

// TestCanonicalNaN pins the constants to the format descriptions the
// core uses.
func TestCanonicalNaN(t *testing.T) {
	if f64.nan != CanonicalNaN64 || f32.nan != uint64(CanonicalNaN32) {
		t.Fatal("canonical NaN mismatch")
	}
	if Class64(CanonicalNaN64) != 1<<9 || Class32(CanonicalNaN32) != 1<<9 {
		t.Fatal("canonical NaNs must be quiet")
	}
}
