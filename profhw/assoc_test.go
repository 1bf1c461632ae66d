// Tests of the associative counter table A_k and two-level compression.

package profhw

import "testing"

func TestAssocMergesLosslessly(t *testing.T) {
	var out recSink
	a := NewAssoc(4, 0, &out)
	in := []msg{{tup(1, 1), 256}, {tup(2, 2), 256}, {tup(1, 1), 256}, {tup(3, 3), 10}, {tup(1, 1), 5}}
	var sum uint64
	for _, m := range in {
		a.Message(m.t, m.count)
		sum += m.count
	}
	if len(out.msgs) != 0 {
		t.Fatalf("sent %v before any replacement", out.msgs)
	}
	a.Flush()
	if out.total() != sum {
		t.Errorf("flushed counts add up to %d, want %d", out.total(), sum)
	}
	if len(out.msgs) != 3 {
		t.Errorf("flushed %d entries, want 3 distinct tuples", len(out.msgs))
	}
	for _, m := range out.msgs {
		if m.t == tup(1, 1) && m.count != 517 {
			t.Errorf("tuple 1 merged to %d, want 517", m.count)
		}
	}
}

func TestAssocEvictsLRU(t *testing.T) {
	var out recSink
	a := NewAssoc(2, 0, &out)
	a.Message(tup(1, 0), 1)
	a.Message(tup(2, 0), 1)
	a.Message(tup(1, 0), 1) // 2 is now least recently used
	a.Message(tup(3, 0), 1) // evicts 2
	if len(out.msgs) != 1 || out.msgs[0] != (msg{tup(2, 0), 1}) {
		t.Fatalf("evicted %v, want tuple 2 with count 1", out.msgs)
	}
	if a.Sent != 1 {
		t.Errorf("Sent = %d, want 1", a.Sent)
	}
}

func TestAssocSendsOnSaturation(t *testing.T) {
	var out recSink
	a := NewAssoc(16, 3, &out)
	for i := 0; i < 7; i++ {
		a.Message(tup(9, 9), 256)
	}
	// Merges saturate at 3: two entries of 3 messages sent, one held.
	if len(out.msgs) != 2 || out.msgs[0].count != 768 || out.msgs[1].count != 768 {
		t.Fatalf("sent %v, want two messages of 768", out.msgs)
	}
}

func TestTwoLevelKeepsFirstLevelCounts(t *testing.T) {
	stream := zipfStream(200000, 200, 3)
	direct := NewProfile()
	NewStratified(SamplerPeriodic, 64, NewHash(256, 1), 0, direct).Feed(stream)
	merged := NewProfile()
	assoc := NewAssoc(16, 0, merged)
	two := &TwoLevel{First: NewStratified(SamplerPeriodic, 64, NewHash(256, 1), 0, assoc), Second: assoc}
	two.Feed(stream)
	two.Flush()
	// A_k is lossless (section 3.4): same counts, fewer messages.
	if merged.Total() != direct.Total() {
		t.Fatalf("two-level total %d, first level alone %d", merged.Total(), direct.Total())
	}
	direct.Each(func(v Tuple, n uint64) {
		if merged.Count(v) != n {
			t.Errorf("%v: two-level %d, first level %d", v, merged.Count(v), n)
		}
	})
	if merged.Messages() >= direct.Messages() {
		t.Errorf("A16 did not compress: %d messages vs %d", merged.Messages(), direct.Messages())
	}
}
