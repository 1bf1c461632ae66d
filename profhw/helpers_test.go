// Test helpers: small stream builders and a recording sink.

package profhw

// msg is one message a compressor sent.
type msg struct {
	t     Tuple
	count uint64
}

// recSink records every message.
type recSink struct{ msgs []msg }

func (s *recSink) Message(t Tuple, count uint64) { s.msgs = append(s.msgs, msg{t, count}) }

func (s *recSink) total() uint64 {
	var n uint64
	for _, m := range s.msgs {
		n += m.count
	}
	return n
}

// tup is a short tuple constructor for hand-made streams.
func tup(pc, val uint64) Tuple { return Tuple{PC: pc, Val: val} }

// repeat returns n copies of t.
func repeat(t Tuple, n int) []Tuple {
	out := make([]Tuple, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// concat joins streams.
func concat(parts ...[]Tuple) []Tuple {
	var out []Tuple
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// zipfStream returns n tuples drawn from a skewed distribution over
// `distinct` tuples (tuple i has weight ~1/(i+1)), deterministic in seed.
func zipfStream(n, distinct int, seed uint64) []Tuple {
	r := rng{seed}
	cum := make([]float64, distinct)
	var s float64
	for i := range cum {
		s += 1 / float64(i+1)
		cum[i] = s
	}
	out := make([]Tuple, n)
	for i := range out {
		u := float64(r.next()>>11) / (1 << 53) * s
		lo, hi := 0, distinct-1
		for lo < hi {
			m := (lo + hi) / 2
			if cum[m] < u {
				lo = m + 1
			} else {
				hi = m
			}
		}
		out[i] = Tuple{PC: 0x10000 + 4*uint64(lo%97), Val: uint64(lo)}
	}
	return out
}
