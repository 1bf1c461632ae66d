// Strength reduction: a Func -> the same Func with gcc's idioms rewritten into cheaper equivalent instructions.

package ir

import (
	"math/bits"

	"rvdyn/interp"
)

// Strength rewrites idioms gcc emits for RV64 into what x86-64 does in one
// instruction, or shortens dependency chains. Each rewrite computes the
// same value from operands that still hold the same values, so the
// instruction whose result it bypasses stays (dce removes it when nothing
// needs it):
//
//	slli r,x,32 ; srli d,r,32     -> d = zext.w x   (also 48 -> zext.h, 56 -> zext.b)
//	slli r,x,32 ; srai d,r,32     -> d = sext.w x   (also 48, 56)
//	addiw d,x,0                   -> d = sext.w x   (a no-op after a 32-bit op or load)
//	andi d,x,0xff (0xffff, 2^32-1)-> d = zext.b x   (zext.h, zext.w)
//	mul(w) d,x,2^k                -> sll(w) d,x,k
//	divu/remu d,x,2^k             -> srl d,x,k / and d,x,2^k-1
//	sub d,x,c                     -> add d,x,-c
//	addi r,x,c1 ; addi d,r,c2     -> add d,x,c1+c2  (also addiw chains)
//	addi r,x,c ; ld d,k(r)        -> ld d,k+c(x)    (address arithmetic)
func Strength(f *Func) {
	var ver [32]int
	type def struct {
		in   Inst // the instruction that gave the register its value
		aVer int  // the version of in.A then
		ok   bool
	}
	var defs [32]def
	// source returns the defining instruction of v when v is a register
	// whose definition's operand A still holds the value it had then.
	source := func(v Val) (Inst, bool) {
		if v.IsConst {
			return Inst{}, false
		}
		d := defs[v.Reg]
		if !d.ok || !d.in.A.IsConst && ver[d.in.A.Reg] != d.aVer {
			return Inst{}, false
		}
		return d.in, true
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		if IsALU(in.Op) {
			reduceALU(in, source)
		}
		switch {
		case in.Op == OpSext32:
			if s, ok := source(in.A); ok && sext32Result(s.Op) {
				in.Op = OpMov
			}
		case IsLoad(in.Op) || IsStore(in.Op):
			if s, ok := source(in.A); ok && s.Op == interp.OpADD && s.B.IsConst && FitsInt32(int64(s.B.Const)+in.Off) {
				in.A, in.Off = s.A, int64(s.B.Const)+in.Off
			}
		}
		if d := in.Dst; d != 0 {
			ver[d]++
			defs[d] = def{}
			if !in.A.IsReg(d) {
				defs[d] = def{in: *in, ok: true}
				if !in.A.IsConst {
					defs[d].aVer = ver[in.A.Reg]
				}
			}
		}
	}
}

// reduceALU applies the ALU rewrites to in.
func reduceALU(in *Inst, source func(Val) (Inst, bool)) {
	if !in.B.IsConst {
		if in.A.IsConst && (in.Op == interp.OpMUL || in.Op == interp.OpMULW) {
			in.A, in.B = in.B, in.A
		} else {
			return
		}
	}
	if in.A.IsConst {
		return // constfold's job
	}
	k := in.B.Const
	ext := func(op interp.Op) { in.Op, in.B = op, Val{} }
	pow2 := k != 0 && k&(k-1) == 0
	log := uint64(bits.TrailingZeros64(k))
	switch in.Op {
	case interp.OpSRL, interp.OpSRA:
		s, ok := source(in.A)
		if !ok || s.Op != interp.OpSLL || !s.B.IsConst || s.B.Const != k {
			break
		}
		ops := map[uint64][2]interp.Op{32: {OpZext32, OpSext32}, 48: {OpZext16, OpSext16}, 56: {OpZext8, OpSext8}}[k]
		if ops[0] == 0 {
			break
		}
		in.A = s.A
		if in.Op == interp.OpSRL {
			ext(ops[0])
		} else {
			ext(ops[1])
		}
	case interp.OpADDW:
		if k == 0 {
			ext(OpSext32)
			break
		}
		if s, ok := source(in.A); ok && (s.Op == interp.OpADDW || s.Op == interp.OpADD) && s.B.IsConst {
			// addw only sees the low 32 bits, which both forms agree on
			in.A, in.B = s.A, C(uint64(int64(int32(s.B.Const+k))))
		}
	case interp.OpADD:
		if s, ok := source(in.A); ok && s.Op == interp.OpADD && s.B.IsConst && FitsInt32(int64(s.B.Const+k)) {
			in.A, in.B = s.A, C(s.B.Const+k)
		}
	case interp.OpSUB:
		if FitsInt32(-int64(k)) {
			in.Op, in.B = interp.OpADD, C(-k)
		}
	case interp.OpAND:
		switch k {
		case 0xff:
			ext(OpZext8)
		case 0xffff:
			ext(OpZext16)
		case 0xffffffff:
			ext(OpZext32)
		}
	case interp.OpMUL:
		if pow2 {
			in.Op, in.B = interp.OpSLL, C(log)
		}
	case interp.OpMULW:
		if pow2 && log < 32 {
			in.Op, in.B = interp.OpSLLW, C(log)
		}
	case interp.OpDIVU:
		if pow2 {
			in.Op, in.B = interp.OpSRL, C(log)
		}
	case interp.OpREMU:
		if pow2 {
			in.Op, in.B = interp.OpAND, C(k-1)
		}
	}
}

// sext32Result reports whether op's result is already a sign-extended
// 32-bit value, so sext.w of it is a copy.
func sext32Result(op interp.Op) bool {
	switch op {
	case interp.OpADDW, interp.OpSUBW, interp.OpSLLW, interp.OpSRLW, interp.OpSRAW,
		interp.OpMULW, interp.OpDIVW, interp.OpDIVUW, interp.OpREMW, interp.OpREMUW,
		interp.OpLB, interp.OpLBU, interp.OpLH, interp.OpLHU, interp.OpLW,
		OpSext8, OpSext16, OpSext32, OpZext8, OpZext16:
		return true
	}
	return false
}

// FitsInt32 reports whether v fits a sign-extended 32-bit immediate, the
// widest most x86-64 instructions take.
func FitsInt32(v int64) bool { return v == int64(int32(v)) }
