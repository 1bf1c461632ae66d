// Interval profiler parameters and the accumulator table: candidate tuples in, exact per-interval counts out (multi-hash 5.1, 5.2, 5.4.1).

package profhw

import (
	"fmt"
	"math"
)

// IntervalConfig parameterizes the interval profilers of the multi-hash
// paper. Tables = 1 is the single-hash architecture of section 5.2; Tables
// > 1 the multi-hash architecture of section 6. The paper's best design
// (section 6.4) is DefaultInterval with Interval 10,000 and Threshold 1%, or
// Interval 1,000,000 and Threshold 0.1%.
type IntervalConfig struct {
	Tables  int // n: number of hash tables, each with its own hash function
	Entries int // total hash-table counters, split evenly: Entries/Tables per table (paper: 2048)
	// Interval is the profile interval length in tuples (section 5.1).
	Interval uint64
	// Threshold is the candidate threshold as a fraction of Interval: a
	// tuple is a candidate if it occurs at least Threshold*Interval times in
	// an interval (section 5.1).
	Threshold float64
	// Conservative selects conservative update (section 6.1, after Estan
	// and Varghese): only the smallest of a tuple's counters are incremented.
	Conservative bool
	// Reset selects immediate reset (sections 5.4.2 and 6.1): a tuple's
	// counters are zeroed when it is promoted to the accumulator table.
	Reset bool
	// Retain selects retaining (section 5.4.1): the candidates of an
	// interval stay in the accumulator, replaceable and counting from zero,
	// at the start of the next.
	Retain bool
	// Shield selects shielding (section 5.2): a tuple in the accumulator
	// table no longer updates the hash tables. The paper always shields;
	// turning it off is an ablation.
	Shield bool
	// AccEntries is the accumulator table size; 0 means AccBound(), the
	// paper's 100/t entries.
	AccEntries int
}

// DefaultInterval is the paper's best configuration (multi-hash section
// 6.4): 4 tables sharing 2048 counters, conservative update, no immediate
// reset, retaining and shielding, interval 10,000 with a 1% threshold.
var DefaultInterval = IntervalConfig{
	Tables: 4, Entries: 2048, Interval: 10000, Threshold: 0.01,
	Conservative: true, Reset: false, Retain: true, Shield: true,
}

// Validate reports a configuration the model cannot run.
func (c IntervalConfig) Validate() error {
	switch {
	case c.Tables < 1:
		return fmt.Errorf("profhw: interval profiler needs at least 1 hash table, got %d", c.Tables)
	case c.Entries < c.Tables:
		return fmt.Errorf("profhw: %d hash-table entries cannot be split over %d tables", c.Entries, c.Tables)
	case c.Entries/c.Tables > MaxHashSize:
		return fmt.Errorf("profhw: hash tables of %d entries are too large", c.Entries/c.Tables)
	case c.Interval < 1:
		return fmt.Errorf("profhw: interval must be at least 1 tuple")
	case !(c.Threshold > 0 && c.Threshold <= 1):
		return fmt.Errorf("profhw: candidate threshold %v not in (0, 1]", c.Threshold)
	case c.AccEntries < 0:
		return fmt.Errorf("profhw: accumulator size %d is negative", c.AccEntries)
	}
	return nil
}

// ThresholdCount returns T, the candidate threshold frequency: the number
// of occurrences in an interval that makes a tuple a candidate,
// ceil(Threshold*Interval), at least 1.
func (c IntervalConfig) ThresholdCount() uint64 {
	t := math.Ceil(c.Threshold*float64(c.Interval) - 1e-9)
	if t < 1 {
		return 1
	}
	return uint64(t)
}

// AccBound returns the accumulator size bound of section 5.2: at most 100/t
// tuples (t the threshold in percent) can reach the threshold in one
// interval, so ceil(1/Threshold) entries hold every true candidate.
func (c IntervalConfig) AccBound() int {
	return int(math.Ceil(1/c.Threshold - 1e-9))
}

// AccSize returns the accumulator table size in use: AccEntries, or
// AccBound() if AccEntries is 0.
func (c IntervalConfig) AccSize() int {
	if c.AccEntries > 0 {
		return c.AccEntries
	}
	return c.AccBound()
}

// Accumulator entry states (section 5.2, 5.4.1).
const (
	accFree        uint8 = iota
	accLive              // promoted this interval: non-replaceable
	accReplaceable       // retained from the previous interval, not yet above threshold
)

type accEntry struct {
	t     Tuple
	count uint64
	state uint8
}

// accumulator is the fully associative, tagged accumulator table of
// section 5.2: complete tuples with exact counts.
type accumulator struct {
	entries []accEntry
	index   *tupleTable // tuple -> entry number
}

func newAccumulator(k int) accumulator {
	return accumulator{entries: make([]accEntry, k), index: newTupleTable(k)}
}

// lookup returns the entry holding t, or nil.
func (a *accumulator) lookup(t Tuple) *accEntry {
	if i, ok := a.index.Get(t); ok {
		return &a.entries[i]
	}
	return nil
}

// alloc puts t in the table with the given count, live. Empty entries are
// allocated first, then replaceable ones (section 5.4.1); among those we
// replace the one with the lowest count (the paper does not say which). It
// returns false if every entry is live.
func (a *accumulator) alloc(t Tuple, count uint64) bool {
	victim := -1
	for i := range a.entries {
		e := &a.entries[i]
		if e.state == accFree {
			victim = i
			break
		}
		if e.state == accReplaceable && (victim < 0 || e.count < a.entries[victim].count) {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	e := &a.entries[victim]
	if e.state != accFree {
		a.index.Delete(e.t)
	}
	*e = accEntry{t: t, count: count, state: accLive}
	a.index.Set(t, uint64(victim))
	return true
}

// endInterval applies the end-of-interval policy. With retaining, entries
// at or above the threshold t stay, replaceable, with their count zeroed,
// and the others are flushed (section 5.4.1). Without retaining, every entry
// is freed: section 5.2 keeps the table's contents for software to read
// but marks all entries replaceable, and since retaining is what lets them
// shield and count in the next interval (5.4.1), we read "replaceable"
// without retaining as "free for the profiler".
func (a *accumulator) endInterval(retain bool, t uint64) {
	if !retain {
		clear(a.entries)
		a.index.Reset()
		return
	}
	for i := range a.entries {
		e := &a.entries[i]
		switch {
		case e.state == accFree:
		case e.count >= t:
			e.state, e.count = accReplaceable, 0
		default:
			a.index.Delete(e.t)
			*e = accEntry{}
		}
	}
}

func (a *accumulator) reset() {
	clear(a.entries)
	a.index.Reset()
}
