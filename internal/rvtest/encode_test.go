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
