// Random instructions: an operation and a random source -> a well-formed interp.Inst.

package rvtest

import (
	"math/rand/v2"

	"rvdyn/interp"
)

// RandomInst returns an instruction of operation op with random registers
// and an immediate drawn from op's immediate range; fields op does not use
// are zero, so interp.Decode(Encode(RandomInst(r, op))) equals it (Raw
// aside).
func RandomInst(r *rand.Rand, op interp.Op) interp.Inst {
	reg := func() uint8 { return uint8(r.IntN(32)) }
	simm := func(bits int) int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
	in := interp.Inst{Op: op}
	switch {
	case op == interp.OpLUI || op == interp.OpAUIPC:
		in.Rd, in.Imm = reg(), simm(20)<<12
	case op == interp.OpJAL:
		in.Rd, in.Imm = reg(), simm(20)*2
	case op == interp.OpJALR || op.Class() == interp.ClassLoad || (op >= interp.OpADDI && op <= interp.OpANDI) || op == interp.OpADDIW:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), simm(12)
	case op.Class() == interp.ClassBranch:
		in.Rs1, in.Rs2, in.Imm = reg(), reg(), simm(12)*2
	case op.Class() == interp.ClassStore:
		in.Rs1, in.Rs2, in.Imm = reg(), reg(), simm(12)
	case op == interp.OpSLLI || op == interp.OpSRLI || op == interp.OpSRAI:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), r.Int64N(64)
	case op == interp.OpSLLIW || op == interp.OpSRLIW || op == interp.OpSRAIW:
		in.Rd, in.Rs1, in.Imm = reg(), reg(), r.Int64N(32)
	case op >= interp.OpADD && op <= interp.OpREMUW:
		in.Rd, in.Rs1, in.Rs2 = reg(), reg(), reg()
	}
	return in
}
