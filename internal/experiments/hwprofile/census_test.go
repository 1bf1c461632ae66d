package hwprofile

import (
	"bytes"
	"strings"
	"testing"

	"rvdyn/profhw"
)

// TestCensus checks the census on a stream whose intervals are known:
// interval 1 has A 50 times and 50 singletons, interval 2 B 50 times,
// interval 3 B and C 20 times each; the trailing partial interval is
// left out.
func TestCensus(t *testing.T) {
	var s []profhw.Tuple
	one := uint64(1000)
	add := func(pc uint64, n int) {
		for range n {
			s = append(s, profhw.MakeTuple(profhw.KindValue, pc, 7))
		}
	}
	singles := func(n int) {
		for range n {
			one++
			add(one, 1)
		}
	}
	add(1, 50)
	singles(50)
	add(2, 50)
	singles(50)
	add(2, 20)
	add(3, 20)
	singles(60)
	add(4, 30) // partial interval
	rows, err := Census(profhw.SliceSource{Tuples: s}, []CensusSpec{{100, 0.1}, {1000, 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Intervals != 3 {
		t.Fatalf("%d intervals, want 3", r.Intervals)
	}
	near := func(got, want float64) bool { return got > want-1e-9 && got < want+1e-9 }
	if !near(r.Distinct, (51+51+62)/3.0) || !near(r.Candidates, 4/3.0) || !near(r.CandidateShare, (0.5+0.5+0.4)/3) {
		t.Errorf("row %+v", r)
	}
	// {A} -> {B}: everything changed; {B} -> {B, C}: one of two.
	if len(r.Variation) != 2 || r.Variation[0] != 50 || r.Variation[1] != 100 {
		t.Errorf("variation %v, want [50 100]", r.Variation)
	}
	if r.VariationAt(0.5) != 50 || r.VariationAt(1) != 100 {
		t.Errorf("VariationAt: %v %v", r.VariationAt(0.5), r.VariationAt(1))
	}
	if rows[1].Intervals != 0 || rows[1].Variation != nil {
		t.Errorf("an interval longer than the stream: %+v", rows[1])
	}
	var b bytes.Buffer
	WriteCensus(&b, rows)
	if !strings.Contains(b.String(), "distinct tuples") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("table:\n%s", b.String())
	}
	if _, err := Census(profhw.SliceSource{}, []CensusSpec{{0, 0.1}}); err == nil {
		t.Error("interval 0 accepted")
	}
}
