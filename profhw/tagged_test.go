// Tests of the tagged compressor: every transition of Figure 6, count conservation, LRU ways.

package profhw

import (
	"testing"
)

// One direct-mapped entry (every tuple maps to it), 8-bit tags so that
// A, B, C below never alias, trigger threshold 8 (Should-Evict: hits >= 2
// and misses*hits >= 8).
var oneEntry = TaggedConfig{TagBits: 8, Threshold: 8, Entries: 1, Ways: 1, MissMax: 7}

var (
	tA = tup(0, 1) // tag 1
	tB = tup(0, 2) // tag 2
	tC = tup(0, 3) // tag 3
)

func seq(parts ...any) []Tuple {
	var out []Tuple
	for i := 0; i < len(parts); i += 2 {
		out = append(out, repeat(parts[i].(Tuple), parts[i+1].(int))...)
	}
	return out
}

func TestTaggedTransitions(t *testing.T) {
	type counts map[Transition]uint64
	tests := []struct {
		name   string
		cfg    TaggedConfig
		stream []Tuple
		want   counts // transitions taken (others must be 0)
		msgs   []msg
		entry  taggedEntry // final state of entry 0 (stamp ignored)
	}{
		{"E1 allocate", oneEntry, seq(tA, 1), counts{E1: 1}, nil,
			taggedEntry{hits: 1, tag: 1, state: stateValid}},
		{"E3 hit", oneEntry, seq(tA, 3), counts{E1: 1, E3: 2}, nil,
			taggedEntry{hits: 3, tag: 1, state: stateValid}},
		{"E2 saturate", oneEntry, seq(tA, 8), counts{E1: 1, E3: 6, E2: 1}, []msg{{tA, 8}},
			taggedEntry{}},
		{"E2 then E1 again", oneEntry, seq(tA, 9), counts{E1: 2, E3: 6, E2: 1}, []msg{{tA, 8}},
			taggedEntry{hits: 1, tag: 1, state: stateValid}},
		{"E4 miss in valid", oneEntry, seq(tA, 1, tB, 1), counts{E1: 1, E4: 1}, nil,
			taggedEntry{hits: 1, misses: 1, tag: 1, state: stateEvict}},
		{"E5 replace, hits == 1", oneEntry, seq(tA, 1, tB, 1, tC, 1), counts{E1: 1, E4: 1, E5: 1}, nil,
			taggedEntry{hits: 3, tag: 3, state: stateValid}},
		{"E5a then E5, hits < 2*misses", oneEntry, seq(tA, 4, tB, 4), counts{E1: 1, E3: 3, E4: 1, E5a: 2, E5: 1}, nil,
			taggedEntry{hits: 8, tag: 2, state: stateValid}},
		{"E6a hit in evict, too few misses", oneEntry, seq(tA, 2, tB, 1, tA, 1), counts{E1: 1, E3: 1, E4: 1, E6a: 1}, nil,
			taggedEntry{hits: 3, misses: 1, tag: 1, state: stateEvict}},
		{"E6 evict, then E1 takes the misses", oneEntry, seq(tA, 4, tB, 2, tA, 1, tC, 1),
			counts{E1: 2, E3: 3, E4: 1, E5a: 1, E6: 1}, []msg{{tA, 5}},
			taggedEntry{hits: 3, tag: 3, state: stateValid}},
		{"E5 when the miss counter saturates",
			TaggedConfig{TagBits: 8, Threshold: 64, Entries: 1, Ways: 1, MissMax: 7},
			seq(tA, 40, tB, 8), counts{E1: 1, E3: 39, E4: 1, E5a: 6, E5: 1}, nil,
			taggedEntry{hits: 48, tag: 2, state: stateValid}},
		{"E2 after E5 sends the carried count", oneEntry, seq(tA, 4, tB, 4, tB, 1),
			counts{E1: 1, E3: 3, E4: 1, E5a: 2, E5: 1, E2: 1}, []msg{{tB, 9}},
			taggedEntry{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s recSink
			c := NewTagged(tc.cfg, 1, &s)
			c.Feed(tc.stream)
			for tr := Transition(0); tr < NumTransitions; tr++ {
				if c.Transitions[tr] != tc.want[tr] {
					t.Errorf("%v taken %d times, want %d", tr, c.Transitions[tr], tc.want[tr])
				}
			}
			if len(s.msgs) != len(tc.msgs) {
				t.Fatalf("messages %v, want %v", s.msgs, tc.msgs)
			}
			for i := range tc.msgs {
				if s.msgs[i] != tc.msgs[i] {
					t.Errorf("message %d = %v, want %v", i, s.msgs[i], tc.msgs[i])
				}
			}
			e := c.entries[0]
			e.stamp = 0
			if e != tc.entry {
				t.Errorf("entry = %+v, want %+v", e, tc.entry)
			}
			if got := s.total() + c.Held(); got != uint64(len(tc.stream)) {
				t.Errorf("sent %d + held %d != %d tuples", s.total(), c.Held(), len(tc.stream))
			}
		})
	}
}

func TestTaggedConservesCount(t *testing.T) {
	// Every occurrence is either sent or held: the "exact stream size"
	// of section 4.1.
	for _, cfg := range []TaggedConfig{DefaultTagged, {TagBits: 2, Threshold: 16, Entries: 64, Ways: 1, MissMax: 7},
		{TagBits: 1, Threshold: 256, Entries: 256, Ways: 4, MissMax: 3}} {
		stream := zipfStream(300000, 5000, 6)
		var s recSink
		c := NewTagged(cfg, 3, &s)
		feedInBatches(c, stream, 4096, 3)
		if got := s.total() + c.Held(); got != uint64(len(stream)) {
			t.Errorf("%+v: sent %d + held %d = %d, want %d", cfg, s.total(), c.Held(), got, len(stream))
		}
		var taken uint64
		for _, n := range c.Transitions {
			taken += n
		}
		if taken != uint64(len(stream)) {
			t.Errorf("%+v: %d transitions for %d tuples", cfg, taken, len(stream))
		}
	}
}

func TestTaggedTagMatchesDefinition(t *testing.T) {
	for _, bits := range []uint{1, 2, 3, 8, 13, 32} {
		cfg := DefaultTagged
		cfg.TagBits = bits
		c := NewTagged(cfg, 1, &recSink{})
		r := rng{uint64(bits)}
		for i := 0; i < 1000; i++ {
			tp := Tuple{PC: r.next(), Val: r.next()}
			if got, want := c.tag(tp), uint32(XorFold(tp.PC^tp.Val, bits)); got != want {
				t.Fatalf("%d-bit tag of %v = %#x, want %#x", bits, tp, got, want)
			}
		}
	}
}

func TestTaggedMissGoesToLRUWay(t *testing.T) {
	cfg := TaggedConfig{TagBits: 8, Threshold: 100, Entries: 2, Ways: 2, MissMax: 7}
	c := NewTagged(cfg, 1, &recSink{})
	c.Feed(seq(tA, 1, tB, 1, tA, 1, tC, 1)) // B is least recently used when C misses
	if c.Transitions[E4] != 1 {
		t.Fatalf("E4 taken %d times, want 1", c.Transitions[E4])
	}
	for _, e := range c.entries {
		if e.tag == 1 && e.state != stateValid {
			t.Errorf("the recently used way (A) left Valid: %+v", e)
		}
		if e.tag == 2 && e.state != stateEvict {
			t.Errorf("the LRU way (B) is not in Evict: %+v", e)
		}
	}
}

func TestTaggedConfigValidate(t *testing.T) {
	bad := []TaggedConfig{
		{TagBits: 0, Threshold: 256, Entries: 2048, Ways: 2, MissMax: 7},
		{TagBits: 2, Threshold: 0, Entries: 2048, Ways: 2, MissMax: 7},
		{TagBits: 2, Threshold: 256, Entries: 2047, Ways: 2, MissMax: 7},
		{TagBits: 2, Threshold: 256, Entries: 2048, Ways: 0, MissMax: 7},
		{TagBits: 2, Threshold: 256, Entries: 2048, Ways: 2, MissMax: 0},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := DefaultTagged.Validate(); err != nil {
		t.Errorf("DefaultTagged: %v", err)
	}
}
