// Arithmetic semantics shared by the interpreter loops: operands -> result.

package interp

import "math/bits"

func sext32(v uint64) uint64 { return uint64(int64(int32(v))) }

func mulh(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	if int64(a) < 0 {
		hi -= b
	}
	if int64(b) < 0 {
		hi -= a
	}
	return hi
}

func mulhsu(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	if int64(a) < 0 {
		hi -= b
	}
	return hi
}

func mulhu(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	return hi
}

// Division follows the RISC-V M extension: division by zero gives all ones
// (quotient) or the dividend (remainder); the one signed overflow,
// MinInt / -1, gives the dividend (quotient) and 0 (remainder).

func div(a, b uint64) uint64 {
	switch {
	case b == 0:
		return ^uint64(0)
	case int64(b) == -1:
		return -a // also right for MinInt64, whose negation is itself
	}
	return uint64(int64(a) / int64(b))
}

func divu(a, b uint64) uint64 {
	if b == 0 {
		return ^uint64(0)
	}
	return a / b
}

func rem(a, b uint64) uint64 {
	switch {
	case b == 0:
		return a
	case int64(b) == -1:
		return 0
	}
	return uint64(int64(a) % int64(b))
}

func remu(a, b uint64) uint64 {
	if b == 0 {
		return a
	}
	return a % b
}

func divw(a, b uint64) uint64 {
	x, y := int32(a), int32(b)
	switch {
	case y == 0:
		return ^uint64(0)
	case y == -1:
		return uint64(int64(-x))
	}
	return uint64(int64(x / y))
}

func divuw(a, b uint64) uint64 {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return ^uint64(0)
	}
	return sext32(uint64(x / y))
}

func remw(a, b uint64) uint64 {
	x, y := int32(a), int32(b)
	switch {
	case y == 0:
		return uint64(int64(x))
	case y == -1:
		return 0
	}
	return uint64(int64(x % y))
}

func remuw(a, b uint64) uint64 {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return sext32(uint64(x))
	}
	return sext32(uint64(x % y))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ALU computes the result of a register-register or register-immediate
// ALU or M-extension operation on operands a (rs1) and b (rs2 or the
// immediate). It is the reference semantics the native code generator is
// tested against. ok is false for any other op.
func ALU(op Op, a, b uint64) (r uint64, ok bool) {
	switch op {
	case OpADD, OpADDI:
		r = a + b
	case OpSUB:
		r = a - b
	case OpSLL, OpSLLI:
		r = a << (b & 63)
	case OpSLT, OpSLTI:
		r = b2u(int64(a) < int64(b))
	case OpSLTU, OpSLTIU:
		r = b2u(a < b)
	case OpXOR, OpXORI:
		r = a ^ b
	case OpSRL, OpSRLI:
		r = a >> (b & 63)
	case OpSRA, OpSRAI:
		r = uint64(int64(a) >> (b & 63))
	case OpOR, OpORI:
		r = a | b
	case OpAND, OpANDI:
		r = a & b
	case OpADDW, OpADDIW:
		r = sext32(a + b)
	case OpSUBW:
		r = sext32(a - b)
	case OpSLLW, OpSLLIW:
		r = sext32(a << (b & 31))
	case OpSRLW, OpSRLIW:
		r = sext32(uint64(uint32(a) >> (b & 31)))
	case OpSRAW, OpSRAIW:
		r = uint64(int64(int32(a) >> (b & 31)))
	case OpMUL:
		r = a * b
	case OpMULH:
		r = mulh(a, b)
	case OpMULHSU:
		r = mulhsu(a, b)
	case OpMULHU:
		r = mulhu(a, b)
	case OpDIV:
		r = div(a, b)
	case OpDIVU:
		r = divu(a, b)
	case OpREM:
		r = rem(a, b)
	case OpREMU:
		r = remu(a, b)
	case OpMULW:
		r = sext32(a * b)
	case OpDIVW:
		r = divw(a, b)
	case OpDIVUW:
		r = divuw(a, b)
	case OpREMW:
		r = remw(a, b)
	case OpREMUW:
		r = remuw(a, b)
	default:
		return 0, false
	}
	return r, true
}

// BranchTaken reports whether conditional branch op is taken for operands
// a (rs1) and b (rs2). It returns false for any other op.
func BranchTaken(op Op, a, b uint64) bool {
	switch op {
	case OpBEQ:
		return a == b
	case OpBNE:
		return a != b
	case OpBLT:
		return int64(a) < int64(b)
	case OpBGE:
		return int64(a) >= int64(b)
	case OpBLTU:
		return a < b
	case OpBGEU:
		return a >= b
	}
	return false
}
