// Rotation recognition: a Func -> the same Func with gcc's shift-shift-or rotations computed by one rotate.

package ir

import "rvdyn/interp"

// Rotate finds the rotations gcc builds from two shifts for RV64 without
// Zbb (hash functions, ciphers, checksums: SHA-256's Σ and σ are three
// each) and computes them with one rotate:
//
//	srli a,x,k ; slli b,x,64-k ; or d,a,b   -> d = ror x, k
//	srliw a,x,k ; slliw b,x,32-k ; or d,a,b -> d = rorw x, k
//
// The combining op may be or, xor or add (the shifted halves share no
// bit), and addw too for the 32-bit form; the shifts may come in either
// order and apart. Only the combining instruction is rewritten, to read a
// register that still holds x (the shifts' source, often overwritten by
// the first shift itself, survives in gcc's copy of it): the shifts stay,
// and dce removes them when their results are overwritten before any exit
// needs them (in a self-loop, SinkToExits moves the others into the exit
// stubs). That frees their registers too, which in SHA-256's rounds
// is what the register allocator lacks most.
//
// Values are followed by number: a register's number changes at every
// write except a move, which copies it, so two registers with one number
// hold the same value.
func Rotate(f *Func) {
	var num [32]int // value number of each register's current value
	for r := range num {
		num[r] = r // the entry values; x0 is never read as a register
	}
	next := len(num)
	shifts := map[int]shift{} // value number -> the shift that computed it
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Dst != 0 && !in.A.IsConst && !in.B.IsConst && in.A.Reg != 0 && in.B.Reg != 0 {
			if op, x, k, ok := rotation(in.Op, shifts[num[in.A.Reg]], shifts[num[in.B.Reg]]); ok {
				for r := uint8(1); r < 32; r++ {
					if num[r] == x {
						in.Op, in.A, in.B = op, R(r), C(k)
						break
					}
				}
			}
		}
		if d := in.Dst; d != 0 {
			var s shift
			isShift := !in.A.IsConst && in.A.Reg != 0 && in.B.IsConst
			if isShift {
				s = shift{op: in.Op, src: num[in.A.Reg], k: in.B.Const}
			}
			if in.Op == OpMov && !in.A.IsConst {
				num[d] = num[in.A.Reg]
				continue
			}
			num[d] = next
			next++
			switch in.Op {
			case interp.OpSRL, interp.OpSLL, interp.OpSRLW, interp.OpSLLW:
				if isShift {
					shifts[num[d]] = s
				}
			}
		}
	}
}

// A shift is the computation of a value number by a shift by a constant.
type shift struct {
	op  interp.Op // SRL, SLL, SRLW or SLLW
	src int       // value number of the shifted value
	k   uint64
}

// rotation reports whether combining op applied to the results of shifts
// a and b is a rotation, and which: the rotate op, the value number it
// rotates and the amount to the right.
func rotation(op interp.Op, a, b shift) (interp.Op, int, uint64, bool) {
	if a.op == 0 || b.op == 0 || a.src != b.src {
		return 0, 0, 0, false
	}
	if a.op == interp.OpSLL || a.op == interp.OpSLLW {
		a, b = b, a // a the right shift, b the left one
	}
	switch {
	case a.op == interp.OpSRL && b.op == interp.OpSLL && a.k > 0 && a.k < 64 && a.k+b.k == 64:
		if op == interp.OpOR || op == interp.OpXOR || op == interp.OpADD {
			return OpRor, a.src, a.k, true
		}
	case a.op == interp.OpSRLW && b.op == interp.OpSLLW && a.k > 0 && a.k < 32 && a.k+b.k == 32:
		// Both halves are sign-extended 32-bit values with disjoint low
		// words, the right one non-negative: or, xor, add and addw all
		// give the sign extension of the rotated word.
		if op == interp.OpOR || op == interp.OpXOR || op == interp.OpADD || op == interp.OpADDW {
			return OpRorW, a.src, a.k, true
		}
	}
	return 0, 0, 0, false
}
