package interp

import (
	"math/rand/v2"
	"testing"
)

// TestEncodeRoundTrip checks Decode(Encode(in)) == in for random operands
// of every operation.
func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for op := OpLUI; op < NumOps; op++ {
		for k := 0; k < 200; k++ {
			in := RandomInst(rng, op)
			w := Encode(in)
			got := Decode(w)
			got.Raw = 0
			if got != in {
				t.Fatalf("%v: Decode(Encode(%+v)) = %+v (word %08x)", op, in, got, w)
			}
		}
	}
}
