// Tests of the interval profilers: promotion, shielding, reset, conservative update, retaining, the accumulator.

package profhw

import (
	"testing"
)

func cfgT5() IntervalConfig {
	// T = 5 in intervals of 100; one table of 16 counters.
	return IntervalConfig{Tables: 1, Entries: 16, Interval: 100, Threshold: 0.05, Retain: true, Shield: true}
}

// counterOf returns the value of t's counter in table k.
func counterOf(m *MultiHash, k int, t Tuple) uint32 { return m.Counter(k, m.Hash(k).Index(t)) }

// fill returns n distinct tuples that never repeat, as background noise.
func fill(n int, base uint64) []Tuple {
	out := make([]Tuple, n)
	for i := range out {
		out[i] = tup(0x9000+base, uint64(i)+base<<20)
	}
	return out
}

func TestThresholdCountAndBound(t *testing.T) {
	tests := []struct {
		interval uint64
		th       float64
		wantT    uint64
		wantAcc  int
	}{
		{10000, 0.01, 100, 100},
		{1000000, 0.001, 1000, 1000},
		{7, 0.5, 4, 2},
		{100, 0.0001, 1, 10000},
	}
	for _, tc := range tests {
		c := IntervalConfig{Interval: tc.interval, Threshold: tc.th}
		if got := c.ThresholdCount(); got != tc.wantT {
			t.Errorf("ThresholdCount(%d, %v) = %d, want %d", tc.interval, tc.th, got, tc.wantT)
		}
		if got := c.AccBound(); got != tc.wantAcc {
			t.Errorf("AccBound(%v) = %d, want %d (100/t)", tc.th, got, tc.wantAcc)
		}
	}
}

func TestPromotionAndShielding(t *testing.T) {
	a := tup(0x100, 7)
	for _, shield := range []bool{true, false} {
		cfg := cfgT5()
		cfg.Shield = shield
		m := NewMultiHash(cfg, 1)
		m.Feed(repeat(a, 4))
		if _, ok := m.AccCount(a); ok {
			t.Fatalf("promoted after 4 occurrences with T = 5")
		}
		m.Feed(repeat(a, 1))
		if n, ok := m.AccCount(a); !ok || n != 5 {
			t.Fatalf("after 5 occurrences: accumulator count %d, %v; want 5", n, ok)
		}
		m.Feed(repeat(a, 3))
		if n, _ := m.AccCount(a); n != 8 {
			t.Errorf("accumulator count %d, want exactly 8", n)
		}
		want := uint32(5) // shielded: the hash table no longer sees a
		if !shield {
			want = 8
		}
		if got := counterOf(m, 0, a); got != want {
			t.Errorf("shield=%v: hash counter %d, want %d", shield, got, want)
		}
		if m.Promotions != 1 {
			t.Errorf("Promotions = %d, want 1", m.Promotions)
		}
	}
}

func TestImmediateReset(t *testing.T) {
	a := tup(0x100, 7)
	for _, reset := range []bool{false, true} {
		cfg := cfgT5()
		cfg.Reset = reset
		m := NewMultiHash(cfg, 1)
		m.Feed(repeat(a, 5))
		want := uint32(5)
		if reset {
			want = 0
		}
		if got := counterOf(m, 0, a); got != want {
			t.Errorf("reset=%v: counter after promotion %d, want %d", reset, got, want)
		}
	}
}

// collide finds a tuple that shares a's counter in table 0 of m but not in
// table 1.
func collide(t *testing.T, m *MultiHash, a Tuple) Tuple {
	for v := uint64(1); v < 1<<20; v++ {
		b := tup(0x200, v)
		if m.Hash(0).Index(b) == m.Hash(0).Index(a) && m.Hash(1).Index(b) != m.Hash(1).Index(a) {
			return b
		}
	}
	t.Fatal("no colliding tuple found")
	return Tuple{}
}

func TestConservativeUpdate(t *testing.T) {
	a := tup(0x100, 7)
	for _, cu := range []bool{false, true} {
		cfg := IntervalConfig{Tables: 2, Entries: 16, Interval: 1000, Threshold: 0.05, Conservative: cu, Retain: true, Shield: true}
		m := NewMultiHash(cfg, 3)
		b := collide(t, m, a)
		m.Feed(repeat(b, 3)) // table 0 counter shared with a: 3; b's table 1 counter: 3
		m.Feed(repeat(a, 1))
		t0, t1 := counterOf(m, 0, a), counterOf(m, 1, a)
		// Without CU both of a's counters go up; with CU only the smallest
		// (table 1, at 0) does, so the alias in table 0 stops growing.
		if !cu && (t0 != 4 || t1 != 1) {
			t.Errorf("cu=0: counters %d, %d; want 4, 1", t0, t1)
		}
		if cu && (t0 != 3 || t1 != 1) {
			t.Errorf("cu=1: counters %d, %d; want 3, 1", t0, t1)
		}
		// Ties: when both are equal, both are incremented.
		m.Reset(0)
		m.Feed(repeat(a, 2))
		if counterOf(m, 0, a) != 2 || counterOf(m, 1, a) != 2 {
			t.Errorf("cu=%v: tied counters %d, %d; want 2, 2", cu, counterOf(m, 0, a), counterOf(m, 1, a))
		}
	}
}

func TestMultiHashNeedsEveryTable(t *testing.T) {
	// An alias pushes a's table-0 counter to T, but a is promoted only
	// when its table-1 counter gets there too (section 6.1).
	a := tup(0x100, 7)
	cfg := IntervalConfig{Tables: 2, Entries: 16, Interval: 1000, Threshold: 0.005, Retain: true, Shield: true} // T = 5
	m := NewMultiHash(cfg, 3)
	b := collide(t, m, a)
	m.Feed(repeat(b, 4))
	m.Feed(repeat(a, 1)) // table 0 at 5, table 1 at 1
	if _, ok := m.AccCount(a); ok {
		t.Fatal("a promoted on one table's say-so")
	}
	m.Feed(repeat(a, 4))
	if n, ok := m.AccCount(a); !ok || n != 5 {
		t.Fatalf("a not promoted with both counters at 5 (count %d, %v)", n, ok)
	}
}

func TestRetaining(t *testing.T) {
	a, b := tup(0x100, 7), tup(0x104, 9)
	for _, retain := range []bool{true, false} {
		cfg := cfgT5()
		cfg.Interval = 20
		cfg.Threshold = 0.25 // T = 5, accumulator bound 4
		cfg.Retain = retain
		m := NewMultiHash(cfg, 1)
		var ends int
		m.OnInterval = func(*MultiHash) { ends++ }
		m.Feed(concat(repeat(a, 6), fill(14, 1)))
		if ends != 1 || m.Intervals != 1 {
			t.Fatalf("interval of 20 tuples did not end (%d callbacks)", ends)
		}
		n, ok := m.AccCount(a)
		if retain && (!ok || n != 0) {
			t.Fatalf("retain: a kept=%v with count %d, want kept with count 0", ok, n)
		}
		if !retain && ok {
			t.Fatalf("no retain: a still in the accumulator")
		}
		// Interval 2: with retaining, a counts exactly from its first
		// occurrence and never touches the hash table.
		m.Feed(repeat(a, 3))
		if retain {
			if n, _ := m.AccCount(a); n != 3 {
				t.Errorf("retained a counts %d, want 3", n)
			}
			if got := counterOf(m, 0, a); got != 0 {
				t.Errorf("retained a reached the hash table (counter %d)", got)
			}
			cands := 0
			m.Candidates(func(Tuple, uint64) { cands++ })
			if cands != 0 {
				t.Errorf("retained a below T counted as a candidate")
			}
			m.Feed(repeat(a, 2)) // reaches T: non-replaceable
			if m.acc.lookup(a).state != accLive {
				t.Errorf("retained a at T is still replaceable")
			}
		} else if got := counterOf(m, 0, a); got != 3 {
			t.Errorf("without retaining, a's counter is %d, want 3", got)
		}
		// Interval 3: a retained entry that stays below T is flushed at
		// the end of the interval.
		m.Feed(fill(int(20-m.Pos()), 2))
		m.Feed(concat(repeat(a, 2), repeat(b, 1), fill(17, 3)))
		if _, ok := m.AccCount(a); ok {
			t.Errorf("retain=%v: a below T in the last interval was not flushed", retain)
		}
	}
}

func TestAccumulatorFullDropsAndReplacement(t *testing.T) {
	a, b, c := tup(0x100, 1), tup(0x104, 2), tup(0x108, 3)
	cfg := cfgT5()
	cfg.AccEntries = 1
	m := NewMultiHash(cfg, 1)
	m.Feed(repeat(a, 5))
	m.Feed(repeat(b, 5))
	if _, ok := m.AccCount(b); ok || m.Dropped != 1 {
		t.Fatalf("full accumulator: b promoted=%v, Dropped=%d; want refused, 1", ok, m.Dropped)
	}
	// Next interval: a is retained but replaceable, so c may take its entry.
	m.Feed(fill(int(100-m.Pos()), 1))
	m.Feed(repeat(c, 5))
	if _, ok := m.AccCount(c); !ok {
		t.Fatal("c did not replace the replaceable entry")
	}
	if _, ok := m.AccCount(a); ok {
		t.Fatal("a is still indexed after being replaced")
	}
}

func TestAccumulatorPrefersEmptyThenLowest(t *testing.T) {
	acc := newAccumulator(3)
	acc.alloc(tup(1, 1), 10)
	acc.alloc(tup(2, 2), 20)
	acc.endInterval(true, 5) // both retained, replaceable, count 0
	acc.lookup(tup(1, 1)).count = 4
	acc.lookup(tup(2, 2)).count = 2
	acc.alloc(tup(3, 3), 7) // takes the empty entry
	if acc.lookup(tup(1, 1)) == nil || acc.lookup(tup(2, 2)) == nil {
		t.Fatal("an occupied entry was replaced while an empty one was free")
	}
	acc.alloc(tup(4, 4), 7) // replaces the replaceable entry with the lowest count: tuple 2
	if acc.lookup(tup(2, 2)) != nil || acc.lookup(tup(1, 1)) == nil {
		t.Fatal("did not replace the lowest-count replaceable entry")
	}
	if acc.alloc(tup(5, 5), 7) != true { // tuple 1 is still replaceable
		t.Fatal("refused while a replaceable entry remained")
	}
	if acc.alloc(tup(6, 6), 7) {
		t.Fatal("allocated although every entry is live")
	}
}

func TestHashTablesClearedEachInterval(t *testing.T) {
	a := tup(0x100, 7)
	m := NewMultiHash(cfgT5(), 1)
	m.Feed(repeat(a, 4))
	m.Feed(fill(96, 1))
	if got := counterOf(m, 0, a); got != 0 {
		t.Errorf("counter %d after the interval ended, want 0", got)
	}
}

func TestIntervalConfigValidate(t *testing.T) {
	bad := []IntervalConfig{
		{Tables: 0, Entries: 2048, Interval: 10, Threshold: 0.1},
		{Tables: 4, Entries: 2, Interval: 10, Threshold: 0.1},
		{Tables: 1, Entries: 2048, Interval: 0, Threshold: 0.1},
		{Tables: 1, Entries: 2048, Interval: 10, Threshold: 0},
		{Tables: 1, Entries: 2048, Interval: 10, Threshold: 1.5},
		{Tables: 1, Entries: 2048, Interval: 10, Threshold: 0.1, AccEntries: -1},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := DefaultInterval.Validate(); err != nil {
		t.Error(err)
	}
}
