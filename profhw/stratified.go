// The hash splitter H[X]_n: tuples in, split into n substreams by the paper's hash, each sampled by its own X_r, messages out (stratified 3.2, 3.5).

package profhw

import "fmt"

// A SamplerKind names the sampler X applied to each substream of H[X]_n,
// or used alone.
type SamplerKind uint8

// The samplers of Figure 3 of the stratified paper.
const (
	SamplerPeriodic      SamplerKind = iota // P_r
	SamplerRandom                           // R_r
	SamplerCountedRandom                    // CR_r
)

var samplerNames = [...]string{"P", "R", "CR"}

// String returns the paper's letter(s): "P", "R" or "CR".
func (k SamplerKind) String() string {
	if int(k) < len(samplerNames) {
		return samplerNames[k]
	}
	return fmt.Sprintf("SamplerKind(%d)", uint8(k))
}

// Stratified is the hash splitter H[X_r]_n of the stratified paper,
// sections 3.2 and 3.5 (Figure 5): the paper's Hash splits the input into n
// disjoint substreams and each substream is sampled by its own X_r. For
// X = P this is the stratified periodic sampler: one counter per substream,
// and when a counter reaches r it is reset and the tuple that made it reach
// r is sent with the implied count r. For X = R and X = CR every substream
// has its own generator (and, for CR, its own counter C).
//
// Where we differ: the paper puts a tuple queue in front to absorb bursts
// and processes one tuple per cycle; a software model needs neither.
// Counters are 32 bits wide; for P they never exceed r.
type Stratified struct {
	kind   SamplerKind
	r      uint64
	hash   *Hash
	counts []uint32 // per substream: elements since the last sample (P, CR)
	rands  []rng    // per substream generators (R, CR)
	limit  uint64
	sink   Sink
}

// NewStratified returns H[X_r]_n with X = kind, hashing with h (n =
// h.Size()), its substream generators seeded from seed, sending to sink.
// It panics if r is 0 or, for X = P, above 2^32-1.
func NewStratified(kind SamplerKind, r uint64, h *Hash, seed uint64, sink Sink) *Stratified {
	mustRate(r)
	if kind == SamplerPeriodic && r > 1<<32-1 {
		panic(fmt.Sprintf("profhw: H[P_r] rate %d above 2^32-1", r))
	}
	s := &Stratified{kind: kind, r: r, hash: h, limit: sampleLimit(r), sink: sink}
	s.counts = make([]uint32, h.Size())
	if kind != SamplerPeriodic {
		s.rands = make([]rng, h.Size())
	}
	s.Reset(seed)
	return s
}

// Hash returns the splitter's hash function.
func (s *Stratified) Hash() *Hash { return s.hash }

// Feed consumes ts.
func (s *Stratified) Feed(ts []Tuple) {
	h, counts := s.hash, s.counts
	switch s.kind {
	case SamplerPeriodic:
		r := uint32(s.r)
		for i := range ts {
			x := h.Index(ts[i])
			c := counts[x] + 1
			if c == r {
				c = 0
				s.sink.Message(ts[i], s.r)
			}
			counts[x] = c
		}
	case SamplerRandom:
		for i := range ts {
			x := h.Index(ts[i])
			if s.rands[x].next() <= s.limit {
				s.sink.Message(ts[i], s.r)
			}
		}
	case SamplerCountedRandom:
		for i := range ts {
			x := h.Index(ts[i])
			counts[x]++
			if s.rands[x].next() <= s.limit {
				s.sink.Message(ts[i], uint64(counts[x]))
				counts[x] = 0
			}
		}
	}
}

// Reset clears the counters and reseeds every substream's generator from
// seed.
func (s *Stratified) Reset(seed uint64) {
	clear(s.counts)
	base := rng{seed}
	for i := range s.rands {
		s.rands[i] = rng{base.next()}
	}
}
