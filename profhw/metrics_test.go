// Tests of the invariance error filters, the overhead model and the perfect profiler.

package profhw

import (
	"math"
	"testing"
)

// profileOf builds a profile from (tuple, count) pairs.
func profileOf(pairs ...any) *Profile {
	p := NewProfile()
	for i := 0; i < len(pairs); i += 2 {
		p.Message(pairs[i].(Tuple), uint64(pairs[i+1].(int)))
	}
	return p
}

func TestInvarianceErrorFilters(t *testing.T) {
	v := func(pc, val uint64) Tuple { return MakeTuple(KindValue, pc, val) }
	ideal := profileOf(
		// pc 1: 2000 executions; values 7 (60%) and 8 (35%) pass the 10%
		// filter and cover 95% >= 40%; 9 (5%) is not invariant.
		v(1, 7), 1200, v(1, 8), 700, v(1, 9), 100,
		// pc 2: 999 executions: below the 1000-execution filter.
		v(2, 1), 999,
		// pc 3: 1000 executions spread over 20 values of 5% each: none is
		// sufficiently invariant.
		v(3, 0), 50, v(3, 1), 50, v(3, 2), 50, v(3, 3), 50, v(3, 4), 50,
		v(3, 5), 50, v(3, 6), 50, v(3, 7), 50, v(3, 8), 50, v(3, 9), 50,
		v(3, 10), 50, v(3, 11), 50, v(3, 12), 50, v(3, 13), 50, v(3, 14), 50,
		v(3, 15), 50, v(3, 16), 50, v(3, 17), 50, v(3, 18), 50, v(3, 19), 50,
		// pc 4: 3 values of 12% (36% < 40% coverage) and the rest spread.
		v(4, 1), 120, v(4, 2), 120, v(4, 3), 120,
	)
	for i := 0; i < 64; i++ {
		ideal.Message(v(4, uint64(100+i)), 10)
	}
	got := profileOf(v(1, 7), 256, v(1, 8), 256) // estimates 50% / 50%
	res := InvarianceErrors(ideal, []*Profile{got, ideal, NewProfile()}, PaperFilter)
	r := res[0][KindValue]
	if r.Selected != 2 || r.Weight != 1900 {
		t.Fatalf("selected %d tuples of weight %d, want 2 of 1900 (pc 1's values 7 and 8)", r.Selected, r.Weight)
	}
	// e = (1200*|0.6-0.5| + 700*|0.35-0.5|) / 1900
	want := (1200*0.1 + 700*0.15) / 1900
	if math.Abs(r.Error-want) > 1e-12 {
		t.Errorf("error %v, want %v", r.Error, want)
	}
	if res[1][KindValue].Error != 0 {
		t.Errorf("the ideal profile against itself has error %v", res[1][KindValue].Error)
	}
	// A profiler that never reported pc 1 estimates invariance 0.
	if want := (1200*0.6 + 700*0.35) / 1900; math.Abs(res[2][KindValue].Error-want) > 1e-12 {
		t.Errorf("empty profile: error %v, want %v", res[2][KindValue].Error, want)
	}
	if res[0][KindEdge].Weight != 0 || res[0][KindEdge].Error != 0 {
		t.Errorf("edge kind has weight %d with no edge tuples", res[0][KindEdge].Weight)
	}
}

func TestOverhead(t *testing.T) {
	if got := Overhead(1000, 3_000_000, CyclesPerMessage); got != 0.01 {
		t.Errorf("Overhead = %v, want 0.01 (30 cycles x 1000 / 3M)", got)
	}
	if got := Overhead(5, 0, 30); got != 0 {
		t.Errorf("Overhead with no instructions = %v", got)
	}
}

func TestPerfectProfileIsExact(t *testing.T) {
	stream := zipfStream(300000, 20000, 21)
	p := NewProfile()
	feedInBatches(p, stream, 4096, 1, 77)
	want := map[Tuple]uint64{}
	pcs := map[uint64]uint64{}
	for _, tp := range stream {
		want[tp]++
		pcs[tp.PC]++
	}
	if p.Distinct() != len(want) || p.Total() != uint64(len(stream)) {
		t.Fatalf("distinct %d total %d, want %d, %d", p.Distinct(), p.Total(), len(want), len(stream))
	}
	for tp, n := range want {
		if p.Count(tp) != n {
			t.Fatalf("count of %v = %d, want %d", tp, p.Count(tp), n)
		}
	}
	for pc, n := range pcs {
		if p.PCCount(pc) != n {
			t.Fatalf("pc %#x count = %d, want %d", pc, p.PCCount(pc), n)
		}
	}
	if p.Messages() != 0 {
		t.Errorf("perfect profile counted %d messages", p.Messages())
	}
}
