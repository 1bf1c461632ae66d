// The multi-hash interval profiler: tuples in, per-interval candidate tuples with counts out (multi-hash sections 5.2, 5.4, 6.1).

package profhw

// MultiHash is the interval profiler of the multi-hash paper: n hash tables
// of counters, each indexed by its own hash function (the Hash of section
// 5.3 with its own random table), in front of an accumulator table.
//
// Per tuple (Figure 8):
//
//  1. If the tuple is in the accumulator table, its exact count there is
//     incremented (and a retained, replaceable entry becomes non-replaceable
//     once it reaches the threshold T). With shielding it does not touch the
//     hash tables.
//  2. Otherwise each hash function selects a counter. Without conservative
//     update all of them are incremented; with it, only those equal to the
//     smallest (section 6.1).
//  3. When every selected counter is at least T, the tuple is promoted: it
//     gets an accumulator entry, non-replaceable for the rest of the
//     interval, whose count starts at the smallest counter (the hardware's
//     estimate of the tuple's count so far). With immediate reset its
//     counters are zeroed. If no entry is free or replaceable, it is not
//     promoted (counted in Dropped).
//
// After Interval tuples the interval ends: OnInterval, if set, sees the
// accumulator (Candidates, AccCount), then the hash tables are zeroed and
// the accumulator keeps or frees its entries (see IntervalConfig.Retain).
//
// With Tables = 1 this is the single-hash architecture of section 5.2
// (conservative update then changes nothing).
//
// Where we differ: counters are 32 bits (the paper's are 3 bytes, which
// never saturate for intervals up to 16M).
type MultiHash struct {
	cfg      IntervalConfig
	t        uint64 // threshold count T
	per      uint32 // counters per table
	hashes   []*Hash
	counters []uint32 // table k at [k*per, (k+1)*per)
	idx      []uint32 // scratch: this tuple's counter positions
	acc      accumulator
	pos      uint64 // tuples seen in the current interval

	// OnInterval, if not nil, is called at the end of every interval,
	// before the tables are cleared; it must not call Feed.
	OnInterval func(m *MultiHash)
	// Promotions counts tuples moved into the accumulator table.
	Promotions uint64
	// Dropped counts promotions refused because every accumulator entry
	// was live (the 100/t bound was exceeded, by false positives).
	Dropped uint64
	// Intervals counts the intervals ended.
	Intervals uint64
}

// NewMultiHash returns an interval profiler with configuration cfg; the
// random tables of its hash functions are drawn from seed. It panics on a
// configuration Validate rejects.
func NewMultiHash(cfg IntervalConfig, seed uint64) *MultiHash {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	per := cfg.Entries / cfg.Tables
	m := &MultiHash{
		cfg: cfg, t: cfg.ThresholdCount(), per: uint32(per),
		counters: make([]uint32, cfg.Tables*per),
		idx:      make([]uint32, cfg.Tables),
		acc:      newAccumulator(cfg.AccSize()),
	}
	r := rng{seed}
	for k := 0; k < cfg.Tables; k++ {
		m.hashes = append(m.hashes, NewHash(per, r.next()))
	}
	return m
}

// Config returns the configuration.
func (m *MultiHash) Config() IntervalConfig { return m.cfg }

// Feed consumes ts, ending intervals as they fill.
func (m *MultiHash) Feed(ts []Tuple) {
	for i := range ts {
		m.access(ts[i])
		m.pos++
		if m.pos == m.cfg.Interval {
			m.EndInterval()
		}
	}
}

func (m *MultiHash) access(t Tuple) {
	inAcc := false
	if e := m.acc.lookup(t); e != nil {
		e.count++
		if e.state == accReplaceable && e.count >= m.t {
			e.state = accLive
		}
		if m.cfg.Shield {
			return
		}
		inAcc = true
	}
	c := m.counters
	min := ^uint32(0)
	for k, h := range m.hashes {
		x := uint32(k)*m.per + h.Index(t)
		m.idx[k] = x
		if c[x] < min {
			min = c[x]
		}
	}
	if m.cfg.Conservative {
		for _, x := range m.idx {
			if c[x] == min {
				c[x]++
			}
		}
		min++
	} else {
		min = ^uint32(0)
		for _, x := range m.idx {
			c[x]++
			if c[x] < min {
				min = c[x]
			}
		}
	}
	if inAcc || uint64(min) < m.t {
		return
	}
	if !m.acc.alloc(t, uint64(min)) {
		m.Dropped++
		return
	}
	m.Promotions++
	if m.cfg.Reset {
		for _, x := range m.idx {
			c[x] = 0
		}
	}
}

// EndInterval ends the current interval now: it calls OnInterval, zeroes
// the hash tables and applies the accumulator's end-of-interval policy.
// Feed calls it every Interval tuples; call it yourself to close a partial
// last interval.
func (m *MultiHash) EndInterval() {
	if m.OnInterval != nil {
		m.OnInterval(m)
	}
	clear(m.counters)
	m.acc.endInterval(m.cfg.Retain, m.t)
	m.pos = 0
	m.Intervals++
}

// Pos returns the number of tuples seen in the current interval.
func (m *MultiHash) Pos() uint64 { return m.pos }

// Candidates calls fn for every tuple the profiler identifies as a
// candidate in the current interval: accumulator entries whose count is at
// least T.
func (m *MultiHash) Candidates(fn func(t Tuple, count uint64)) {
	for i := range m.acc.entries {
		e := &m.acc.entries[i]
		if e.state != accFree && e.count >= m.t {
			fn(e.t, e.count)
		}
	}
}

// AccCount returns the accumulator count of t in the current interval and
// whether t has an accumulator entry.
func (m *MultiHash) AccCount(t Tuple) (uint64, bool) {
	if e := m.acc.lookup(t); e != nil {
		return e.count, true
	}
	return 0, false
}

// Counter returns the value of counter x of hash table k, for tests and
// inspection.
func (m *MultiHash) Counter(k int, x uint32) uint32 { return m.counters[uint32(k)*m.per+x] }

// Hash returns the hash function of table k.
func (m *MultiHash) Hash(k int) *Hash { return m.hashes[k] }

// Reset clears the tables, the accumulator and the statistics. The hash
// functions are kept; seed is ignored.
func (m *MultiHash) Reset(seed uint64) {
	clear(m.counters)
	m.acc.reset()
	m.pos, m.Promotions, m.Dropped, m.Intervals = 0, 0, 0, 0
}
