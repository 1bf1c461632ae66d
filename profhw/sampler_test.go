// Tests of P_r, R_r, C, CR_r and H[X]_n on hand-made streams.

package profhw

import (
	"testing"
)

// feedInBatches feeds ts to c in batches of the given sizes, cycling.
func feedInBatches(c Compressor, ts []Tuple, sizes ...int) {
	for i := 0; len(ts) > 0; i++ {
		k := min(sizes[i%len(sizes)], len(ts))
		c.Feed(ts[:k])
		ts = ts[k:]
	}
}

func TestPeriodicSelectsEveryRth(t *testing.T) {
	stream := make([]Tuple, 1000)
	for i := range stream {
		stream[i] = tup(0x100, uint64(i))
	}
	for _, tc := range []struct {
		name    string
		r       uint64
		batches []int
	}{
		{"r1", 1, []int{1000}},
		{"r10 one batch", 10, []int{1000}},
		{"r10 odd batches", 10, []int{3, 7, 1, 13}},
		{"r256", 256, []int{5, 250, 1}},
		{"r7 batch of 1", 7, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s recSink
			feedInBatches(NewPeriodic(tc.r, &s), stream, tc.batches...)
			if want := 1000 / int(tc.r); len(s.msgs) != want {
				t.Fatalf("%d messages, want %d", len(s.msgs), want)
			}
			for i, m := range s.msgs {
				// The k-th message carries element k*r-1 with count r.
				if want := uint64((i+1)*int(tc.r) - 1); m.t.Val != want || m.count != tc.r {
					t.Fatalf("message %d = (%v, %d), want element %d with count %d", i, m.t, m.count, want, tc.r)
				}
			}
		})
	}
}

func TestPeriodicReset(t *testing.T) {
	var s recSink
	p := NewPeriodic(4, &s)
	p.Feed(repeat(tup(1, 1), 3))
	p.Reset(0)
	p.Feed(repeat(tup(1, 1), 3))
	if len(s.msgs) != 0 {
		t.Fatalf("Reset did not restart the period: %d messages", len(s.msgs))
	}
}

func TestRandomRateAndDeterminism(t *testing.T) {
	stream := repeat(tup(1, 2), 200000)
	run := func(seed uint64) []msg {
		var s recSink
		NewRandom(10, seed, &s).Feed(stream)
		return s.msgs
	}
	a, b, c := run(1), run(1), run(2)
	if len(a) != len(b) {
		t.Fatalf("same seed gave %d and %d messages", len(a), len(b))
	}
	if len(a) == len(c) {
		t.Errorf("different seeds gave the same number of messages (%d)", len(a))
	}
	// 20000 expected, sd ~134.
	if len(a) < 19400 || len(a) > 20600 {
		t.Errorf("R10 sent %d messages of 200000 tuples, want about 20000", len(a))
	}
	for _, m := range a {
		if m.count != 10 {
			t.Fatalf("R10 message count %d, want the implied 10", m.count)
		}
	}
}

func TestRandomRateOneSelectsAll(t *testing.T) {
	var s recSink
	NewRandom(1, 5, &s).Feed(repeat(tup(1, 2), 1000))
	if len(s.msgs) != 1000 {
		t.Errorf("R1 sent %d of 1000", len(s.msgs))
	}
}

func TestCountedRandomCountsStreamLength(t *testing.T) {
	stream := make([]Tuple, 100000)
	for i := range stream {
		stream[i] = tup(0x200, uint64(i))
	}
	var s recSink
	NewCountedRandom(16, 3, &s).Feed(stream)
	// Each message's count is the distance from the previous sample, so
	// the counts add up to the position of the last sample + 1.
	last := s.msgs[len(s.msgs)-1].t.Val
	if got := s.total(); got != last+1 {
		t.Errorf("counts add up to %d, want %d (last sample at %d)", got, last+1, last)
	}
	prev := int64(-1)
	for _, m := range s.msgs {
		if int64(m.t.Val)-prev != int64(m.count) {
			t.Fatalf("message for element %d has count %d, want %d", m.t.Val, m.count, int64(m.t.Val)-prev)
		}
		prev = int64(m.t.Val)
	}
}

func TestCounter(t *testing.T) {
	var c Counter
	c.Add(3)
	c.Add(4)
	if got := c.Take(); got != 7 {
		t.Errorf("Take = %d, want 7", got)
	}
	if got := c.Take(); got != 0 {
		t.Errorf("second Take = %d, want 0", got)
	}
}

func TestStratifiedPeriodicMatchesReference(t *testing.T) {
	// H[P_r]_n is n independent P_r samplers, one per hash bucket: check
	// against a reference that keeps one counter per bucket in a map.
	stream := zipfStream(50000, 3000, 4)
	for _, tc := range []struct {
		r uint64
		n int
	}{{256, 2048}, {10, 2048}, {4, 8}, {3, 1}, {16, 1000}} {
		h := NewHash(tc.n, 99)
		var s recSink
		feedInBatches(NewStratified(SamplerPeriodic, tc.r, h, 0, &s), stream, 1000, 17)
		var want []msg
		counts := map[uint32]uint64{}
		for _, tp := range stream {
			x := h.Index(tp)
			counts[x]++
			if counts[x] == tc.r {
				counts[x] = 0
				want = append(want, msg{tp, tc.r})
			}
		}
		if len(s.msgs) != len(want) {
			t.Fatalf("H[P%d]%d: %d messages, reference %d", tc.r, tc.n, len(s.msgs), len(want))
		}
		for i := range want {
			if s.msgs[i] != want[i] {
				t.Fatalf("H[P%d]%d: message %d = %v, reference %v", tc.r, tc.n, i, s.msgs[i], want[i])
			}
		}
	}
}

func TestStratifiedPureSubstreamIsExact(t *testing.T) {
	// Section 3.3: a fully biased substream conveys exact counts. Two
	// tuples in different buckets, 800 and 1600 times, r = 8: exactly 100
	// and 200 messages.
	h := NewHash(2048, 1)
	a, b := tup(0x1000, 1), tup(0x1000, 0)
	for h.Index(a) == h.Index(b) {
		b.Val++
	}
	stream := concat(repeat(a, 800), repeat(b, 1600))
	r := rng{5}
	for i := len(stream) - 1; i > 0; i-- {
		j := r.below(uint64(i + 1))
		stream[i], stream[j] = stream[j], stream[i]
	}
	for _, kind := range []SamplerKind{SamplerPeriodic, SamplerCountedRandom} {
		p := NewProfile()
		NewStratified(kind, 8, h, 3, p).Feed(stream)
		if kind == SamplerPeriodic && (p.Count(a) != 800 || p.Count(b) != 1600) {
			t.Errorf("H[P8]: counts %d, %d, want 800, 1600", p.Count(a), p.Count(b))
		}
		// CR: each count is exact up to the unsampled tail of the substream.
		if kind == SamplerCountedRandom && (p.Count(a) > 800 || p.Count(b) > 1600 || p.Count(a) < 700 || p.Count(b) < 1500) {
			t.Errorf("H[CR8]: counts %d, %d, want just under 800, 1600", p.Count(a), p.Count(b))
		}
	}
}

func TestStratifiedRandomAndCountedRandom(t *testing.T) {
	stream := zipfStream(100000, 500, 8)
	for _, kind := range []SamplerKind{SamplerRandom, SamplerCountedRandom} {
		var s recSink
		NewStratified(kind, 10, NewHash(64, 2), 1, &s).Feed(stream)
		if len(s.msgs) < 9500 || len(s.msgs) > 10500 {
			t.Errorf("H[%v10]64 sent %d messages of 100000, want about 10000", kind, len(s.msgs))
		}
		if kind == SamplerCountedRandom && s.total() > 100000 {
			t.Errorf("H[CR10]64 counts add up to %d > stream length", s.total())
		}
	}
}
