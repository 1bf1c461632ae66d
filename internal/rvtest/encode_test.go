// Tests of the encoder: Encode and interp.Decode are inverses on random instructions of every operation.

package rvtest

import (
	"math/rand/v2"
	"testing"

	"rvdyn/interp"
)

// TestEncodeRoundTrip checks interp.Decode(Encode(in)) == in for random
// operands of every operation.
func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for op := interp.OpLUI; op.IsBase(); op++ { // the RV64IM operations Encode knows
		for k := 0; k < 200; k++ {
			in := RandomInst(rng, op)
			w := Encode(in)
			got := interp.Decode(w)
			got.Raw = 0
			if got != in {
				t.Fatalf("%v: interp.Decode(Encode(%+v)) = %+v (word %08x)", op, in, got, w)
			}
		}
	}
}

// TestEncodeFloatRoundTrip checks that every F and D instruction Encode
// produces decodes to its operation and encodes back to the same word.
func TestEncodeFloatRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 0
	for op := interp.OpFLW; op < interp.NumOps; op++ {
		if !op.IsFloat() {
			continue
		}
		n++
		for k := 0; k < 200; k++ {
			in := interp.Inst{Op: op, Rd: uint8(rng.IntN(32)), Rs1: uint8(rng.IntN(32)), Rs2: uint8(rng.IntN(32))}
			switch op {
			case interp.OpFLW, interp.OpFLD, interp.OpFSW, interp.OpFSD:
				in.Imm = int64(rng.IntN(4096) - 2048)
			default:
				in.Imm = int64([]int{0, 1, 2, 3, 4, 7}[rng.IntN(6)]) | int64(rng.IntN(32))<<8
			}
			w := Encode(in)
			got := interp.Decode(w)
			if got.Op != op || Encode(got) != w {
				t.Fatalf("%v: Encode gives %08x, which decodes to %v (%+v)", op, w, got.Op, got)
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d floating-point operations", n)
	}
}

// TestEncodeAtomicRoundTrip checks that every atomic Encode produces
// decodes to its operation and registers.
func TestEncodeAtomicRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for op := interp.OpLRW; op <= interp.OpAMOMAXUD; op++ {
		for k := 0; k < 50; k++ {
			in := interp.Inst{Op: op, Rd: uint8(rng.IntN(32)), Rs1: uint8(rng.IntN(32)), Rs2: uint8(rng.IntN(32))}
			if op == interp.OpLRW || op == interp.OpLRD {
				in.Rs2 = 0
			}
			got := interp.Decode(Encode(in))
			if got.Op != op || got.Rd != in.Rd || got.Rs1 != in.Rs1 || got.Rs2 != in.Rs2 {
				t.Fatalf("%v: Encode gives %08x, which decodes to %+v", op, Encode(in), got)
			}
		}
	}
}
