// The paper's hash: a tuple in, a substream (counter table) index out (stratified 3.5, multi-hash 5.3).

package profhw

import (
	"fmt"
	"math/bits"
)

// A Hash is the hash function of the stratified paper, section 3.5, also
// used by the multi-hash paper (section 5.3). For a tuple <pc, w>:
//
//	npc   = flip(randomize(pc))
//	nw    = randomize(w)
//	index = xor-fold(npc xor nw, index-size)
//
// randomize replaces every byte b of a word by table[b], a 256-entry random
// table; flip reverses the bytes of a word; xor-fold splits a word into
// index-size-bit chunks and xors them together. Independent hash functions,
// as the multi-hash architecture needs (section 5.3, last paragraph), differ
// only in their random table.
//
// Where we differ: the paper asks for "a 256-entry random number table"; we
// draw a random permutation of 0..255, so randomize loses no information.
// For a table size n that is not a power of two, the index is folded to
// ceil(log2 n) bits and reduced modulo n (the papers only use powers of two).
//
// Index is computed with per-byte-position lookup tables (16 loads and
// xors), which is exact because xor-fold is linear over xor and the bytes of
// a randomized word occupy disjoint bit ranges. TestHashMatchesDefinition
// pins it against the definition.
type Hash struct {
	table [256]byte
	n     uint32 // table size: indices are in [0, n)
	bits  uint   // index-size: ceil(log2 n)
	pow2  bool
	pcTab [8][256]uint32 // pcTab[i][b] = xor-fold(table[b] << 8(7-i))
	wTab  [8][256]uint32 // wTab[i][b]  = xor-fold(table[b] << 8i)
}

// MaxHashSize is the largest table a Hash indexes: 2^24 entries.
const MaxHashSize = 1 << 24

// NewHash returns a hash onto [0, n) whose random table is drawn from seed.
// It panics if n is 0 or above MaxHashSize.
func NewHash(n int, seed uint64) *Hash {
	if n < 1 || n > MaxHashSize {
		panic(fmt.Sprintf("profhw: hash table size %d out of range [1, %d]", n, MaxHashSize))
	}
	h := &Hash{n: uint32(n)}
	h.bits = uint(bits.Len(uint(n - 1)))
	h.pow2 = n&(n-1) == 0
	r := rng{seed}
	for i := range h.table {
		h.table[i] = byte(i)
	}
	for i := 255; i > 0; i-- { // Fisher-Yates
		j := r.below(uint64(i + 1))
		h.table[i], h.table[j] = h.table[j], h.table[i]
	}
	for i := 0; i < 8; i++ {
		for b := 0; b < 256; b++ {
			v := uint64(h.table[b])
			h.pcTab[i][b] = uint32(XorFold(v<<(8*(7-i)), h.bits))
			h.wTab[i][b] = uint32(XorFold(v<<(8*i), h.bits))
		}
	}
	return h
}

// Size returns n, the number of indices.
func (h *Hash) Size() int { return int(h.n) }

// Index returns the substream index of t, in [0, Size()).
func (h *Hash) Index(t Tuple) uint32 {
	pc, w := t.PC, t.Val
	x := h.pcTab[0][byte(pc)] ^ h.pcTab[1][byte(pc>>8)] ^
		h.pcTab[2][byte(pc>>16)] ^ h.pcTab[3][byte(pc>>24)] ^
		h.pcTab[4][byte(pc>>32)] ^ h.pcTab[5][byte(pc>>40)] ^
		h.pcTab[6][byte(pc>>48)] ^ h.pcTab[7][byte(pc>>56)] ^
		h.wTab[0][byte(w)] ^ h.wTab[1][byte(w>>8)] ^
		h.wTab[2][byte(w>>16)] ^ h.wTab[3][byte(w>>24)] ^
		h.wTab[4][byte(w>>32)] ^ h.wTab[5][byte(w>>40)] ^
		h.wTab[6][byte(w>>48)] ^ h.wTab[7][byte(w>>56)]
	if h.pow2 {
		return x
	}
	return x % h.n
}

// Randomize replaces every byte b of w by the random table's entry for b
// (section 3.5's randomize).
func (h *Hash) Randomize(w uint64) uint64 {
	var out uint64
	for i := 0; i < 64; i += 8 {
		out |= uint64(h.table[byte(w>>i)]) << i
	}
	return out
}

// Flip reverses the bytes of w (section 3.5's flip).
func Flip(w uint64) uint64 { return bits.ReverseBytes64(w) }

// XorFold splits w into n-bit chunks, from bit 0 up, and xors them together
// (section 3.5's xor-fold). The result has at most n bits; n = 0 gives 0.
func XorFold(w uint64, n uint) uint64 {
	if n == 0 {
		return 0
	}
	if n >= 64 {
		return w
	}
	var out uint64
	for ; w != 0; w >>= n {
		out ^= w & (1<<n - 1)
	}
	return out
}
