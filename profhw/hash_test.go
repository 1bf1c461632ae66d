// Tests of the paper's hash: definition, fold, spread, independence and its structural collisions.

package profhw

import (
	"testing"
)

// refIndex is section 3.5's hash written as the paper words it.
func refIndex(h *Hash, t Tuple) uint32 {
	npc := Flip(h.Randomize(t.PC))
	nw := h.Randomize(t.Val)
	x := uint32(XorFold(npc^nw, h.bits))
	if !h.pow2 {
		x %= h.n
	}
	return x
}

func TestHashMatchesDefinition(t *testing.T) {
	for _, n := range []int{1, 2, 512, 1000, 2048, 4096, 1 << 16} {
		h := NewHash(n, 7)
		r := rng{3}
		for i := 0; i < 5000; i++ {
			tp := Tuple{PC: r.next(), Val: r.next()}
			if got, want := h.Index(tp), refIndex(h, tp); got != want {
				t.Fatalf("n=%d %v: Index=%d, definition gives %d", n, tp, got, want)
			}
			if int(h.Index(tp)) >= n {
				t.Fatalf("n=%d: index %d out of range", n, h.Index(tp))
			}
		}
	}
}

func TestXorFold(t *testing.T) {
	tests := []struct {
		w    uint64
		n    uint
		want uint64
	}{
		{0, 11, 0},
		{0x7ff, 11, 0x7ff},
		{0x800, 11, 1},                // bit 11 folds onto bit 0
		{0xffff_ffff_ffff_ffff, 8, 0}, // eight equal bytes cancel
		{0xffff_ffff_ffff_ffff, 11, 0x1ff ^ 0x7ff ^ 0x7ff ^ 0x7ff ^ 0x7ff ^ 0x7ff}, // 5 full chunks and one of 9 bits
		{0x1234, 64, 0x1234},
		{0x1234, 0, 0},
		{0x0102_0304_0506_0708, 16, 0x0102 ^ 0x0304 ^ 0x0506 ^ 0x0708},
	}
	for _, tc := range tests {
		if got := XorFold(tc.w, tc.n); got != tc.want {
			t.Errorf("XorFold(%#x, %d) = %#x, want %#x", tc.w, tc.n, got, tc.want)
		}
	}
}

func TestFlipAndRandomize(t *testing.T) {
	if got := Flip(0x0102030405060708); got != 0x0807060504030201 {
		t.Errorf("Flip = %#x", got)
	}
	h := NewHash(2048, 1)
	seen := map[byte]bool{}
	for b := 0; b < 256; b++ {
		seen[byte(h.Randomize(uint64(b)))] = true
	}
	if len(seen) != 256 {
		t.Errorf("randomize table is not a permutation: %d distinct bytes", len(seen))
	}
	// Byte-wise: randomize of a word is the table applied per byte.
	w := uint64(0x00ff_1000_ab00_0001)
	var want uint64
	for i := 0; i < 8; i++ {
		want |= uint64(byte(h.Randomize(uint64(byte(w>>(8*i)))))) << (8 * i)
	}
	if got := h.Randomize(w); got != want {
		t.Errorf("Randomize(%#x) = %#x, want %#x", w, got, want)
	}
}

func TestHashSeedsIndependent(t *testing.T) {
	a, b := NewHash(2048, 1), NewHash(2048, 2)
	same := 0
	r := rng{9}
	for i := 0; i < 4096; i++ {
		tp := Tuple{PC: 0x10000 + 4*r.below(4096), Val: r.below(100)}
		if a.Index(tp) == b.Index(tp) {
			same++
		}
	}
	// Independent hashes agree with probability 1/2048: ~2 of 4096.
	if same > 20 {
		t.Errorf("hashes with different seeds agree on %d of 4096 tuples", same)
	}
}

func TestHashSpreadsNearbyTuples(t *testing.T) {
	// Section 5.3 of the multi-hash paper: pcs of one program and small
	// values must spread evenly. 2048 pcs x 32 values over 2048 buckets:
	// 32 per bucket on average.
	h := NewHash(2048, 5)
	counts := make([]int, 2048)
	for pc := uint64(0); pc < 2048; pc++ {
		for v := uint64(0); v < 32; v++ {
			counts[h.Index(Tuple{PC: 0x10000 + 4*pc, Val: v})]++
		}
	}
	lo, hi := counts[0], counts[0]
	for _, c := range counts {
		lo, hi = min(lo, c), max(hi, c)
	}
	t.Logf("bucket loads %d..%d", lo, hi)
	if lo == 0 || hi > 96 {
		t.Errorf("bucket loads range %d..%d, want about 32 each", lo, hi)
	}
}

func TestNewHashPanicsOnBadSize(t *testing.T) {
	for _, n := range []int{0, -1, MaxHashSize + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewHash(%d) did not panic", n)
				}
			}()
			NewHash(n, 1)
		}()
	}
}

// TestHashStructuralCollisions pins a property of the paper's hash that
// shows in our edge profiles (docs/profilers.md): byte 1 of w and byte 6
// of pc (flipped) land 40 bits apart, so when the index width divides 40
// (256- and 1024-entry tables) equal bytes cancel whatever the random
// table. Edges whose pc and target share byte 1 then collide in every
// "independent" table.
func TestHashStructuralCollisions(t *testing.T) {
	a := MakeTuple(KindEdge, 0x11234, 0x112f0)
	b := MakeTuple(KindEdge, 0x15634, 0x156f0)
	differs := map[int]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		for _, n := range []int{256, 1024, 512, 2048} {
			h := NewHash(n, seed)
			if h.Index(a) != h.Index(b) {
				differs[n] = true
			}
		}
	}
	if differs[256] || differs[1024] {
		t.Errorf("expected a and b to collide in every 256- and 1024-entry table")
	}
	if !differs[512] || !differs[2048] {
		t.Errorf("a and b collide in every 512- or 2048-entry table too: %v", differs)
	}
}
