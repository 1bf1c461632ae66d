// Throughput benchmarks, one per compressor (tuples/s), and the no-allocation check.

package profhw

import (
	"testing"
)

// benchStream is a value-profile-like stream: 1M tuples over 5000 pcs
// with skewed values, so tables see both hot tuples and noise.
var benchStream = func() []Tuple {
	r := rng{77}
	z := zipfStream(1<<20, 50000, 5)
	for i := range z {
		z[i].PC = 0x10000 + 4*r.below(5000)
	}
	return z
}()

// benchFeed feeds benchStream through c in batches of BatchSize and
// reports tuples per second.
func benchFeed(b *testing.B, c interface{ Feed([]Tuple) }) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for lo := 0; lo < len(benchStream); lo += BatchSize {
			c.Feed(benchStream[lo : lo+BatchSize])
		}
		n += len(benchStream)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tuples/s")
}

// nullSink counts messages and keeps nothing.
type nullSink struct{ n uint64 }

func (s *nullSink) Message(Tuple, uint64) { s.n++ }

func benchConfig(b *testing.B, notation string) {
	c, err := ParseConfig(notation)
	if err != nil {
		b.Fatal(err)
	}
	comp, err := c.NewCompressor(1, &nullSink{})
	if err != nil {
		b.Fatal(err)
	}
	benchFeed(b, comp)
}

func BenchmarkPeriodic(b *testing.B)         { benchConfig(b, "P256") }
func BenchmarkRandom(b *testing.B)           { benchConfig(b, "R256") }
func BenchmarkCountedRandom(b *testing.B)    { benchConfig(b, "CR256") }
func BenchmarkStratifiedP(b *testing.B)      { benchConfig(b, "H[P256]2048") }
func BenchmarkStratifiedR(b *testing.B)      { benchConfig(b, "H[R256]2048") }
func BenchmarkStratifiedCR(b *testing.B)     { benchConfig(b, "H[CR256]2048") }
func BenchmarkStratifiedPAssoc(b *testing.B) { benchConfig(b, "H[P256]2048+A16") }
func BenchmarkTagged(b *testing.B)           { benchConfig(b, "tag2-256-2048") }
func BenchmarkPerfect(b *testing.B)          { benchFeed(b, NewProfile()) }
func BenchmarkPerfectInterval(b *testing.B) {
	benchFeed(b, perfectIntervalFeeder{NewPerfectInterval(100)})
}
func BenchmarkMultiHash1(b *testing.B) { benchMultiHash(b, "multihash:tables=1") }
func BenchmarkMultiHash4(b *testing.B) { benchMultiHash(b, "multihash:tables=4") }
func BenchmarkMultiHash8(b *testing.B) { benchMultiHash(b, "multihash:tables=8") }
func BenchmarkMultiHash4Long(b *testing.B) {
	benchMultiHash(b, "multihash:tables=4,interval=1000000,threshold=0.1%")
}
func BenchmarkMultiHash4NoCUReset(b *testing.B) { benchMultiHash(b, "multihash:tables=4,cu=0,reset=1") }

func benchMultiHash(b *testing.B, notation string) {
	c, err := ParseConfig(notation)
	if err != nil {
		b.Fatal(err)
	}
	benchFeed(b, NewMultiHash(c.Interval, 1))
}

// perfectIntervalFeeder resets the perfect interval profiler every 10,000
// tuples, as an IntervalRun does.
type perfectIntervalFeeder struct{ p *PerfectInterval }

func (f perfectIntervalFeeder) Feed(ts []Tuple) {
	f.p.Feed(ts)
	if len(f.p.cands) > 50 || f.p.counts.Len() > 8000 {
		f.p.Reset()
	}
}

func BenchmarkHashIndex(b *testing.B) {
	h := NewHash(2048, 1)
	var x uint32
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range benchStream {
			x ^= h.Index(benchStream[i])
		}
		n += len(benchStream)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tuples/s")
	sinkU32 = x
}

var sinkU32 uint32

func TestFeedDoesNotAllocate(t *testing.T) {
	// The per-tuple path allocates nothing once tables have grown.
	for _, s := range []string{"P256", "R256", "CR256", "H[P256]2048", "H[R256]2048", "H[CR256]2048",
		"H[P256]2048+A16", "tag2-256-2048"} {
		c, _ := ParseConfig(s)
		comp, _ := c.NewCompressor(1, &nullSink{})
		batch := benchStream[:BatchSize]
		comp.Feed(batch)
		if n := testing.AllocsPerRun(20, func() { comp.Feed(batch) }); n != 0 {
			t.Errorf("%s: %v allocations per batch", s, n)
		}
	}
	for _, s := range []string{"multihash:tables=1", "multihash:tables=4,cu=0,reset=1"} {
		c, _ := ParseConfig(s)
		m := NewMultiHash(c.Interval, 1)
		m.Feed(benchStream[:100000])
		batch := benchStream[100000 : 100000+BatchSize]
		if n := testing.AllocsPerRun(20, func() { m.Feed(batch) }); n != 0 {
			t.Errorf("%s: %v allocations per batch", s, n)
		}
	}
	p := NewProfile()
	p.Feed(benchStream)
	if n := testing.AllocsPerRun(5, func() { p.Feed(benchStream[:BatchSize]) }); n != 0 {
		t.Errorf("perfect profile: %v allocations per batch", n)
	}
}
