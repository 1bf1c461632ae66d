// Random instructions: an operation and a random source -> a well-formed Inst (for tests and fuzzing).

package interp

import "math/rand/v2"

// RandomInst returns an instruction of operation op with random registers
// and an immediate drawn from op's immediate range; fields op does not use
// are zero, so Decode(Encode(RandomInst(r, op))) equals it (Raw aside).
func RandomInst(r *rand.Rand, op Op) Inst {
	reg := func() uint8 { return uint8(r.IntN(32)) }
	simm := func(bits int) int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
	in := Inst{Op: op}
	switch {
	case op == OpLUI || op == OpAUIPC:
		in.Rd, in.Imm = reg(), simm(20)<<12
	case op == OpJAL:
		in.Rd, in.Imm = reg(), simm(20)*2
	case op == OpJALR || op.Class() == ClassLoad || (op >= OpADDI && op <= OpANDI) || op == OpADDIW:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), simm(12)
	case op.Class() == ClassBranch:
		in.Rs1, in.Rs2, in.Imm = reg(), reg(), simm(12)*2
	case op.Class() == ClassStore:
		in.Rs1, in.Rs2, in.Imm = reg(), reg(), simm(12)
	case op == OpSLLI || op == OpSRLI || op == OpSRAI:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), r.Int64N(64)
	case op == OpSLLIW || op == OpSRLIW || op == OpSRAIW:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), r.Int64N(32)
	case op >= OpADD && op <= OpREMUW:
		in.Rd, in.Rs1, in.Rs2 = reg(), reg(), reg()
	}
	return in
}
