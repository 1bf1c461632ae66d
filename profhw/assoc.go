// The associative counter table A_k: (tuple, count) messages in, fewer merged messages out (stratified 3.4, second-level compression).

package profhw

import "fmt"

// Assoc is the associative counter table A_k of the stratified paper,
// section 3.4, used as a second-level compressor: it is a Sink placed
// between a first-level compressor and software. Each of its k entries holds
// a complete tuple and a count; an incoming message for a tuple already in
// the table adds to its count, so the compression is lossless. An entry is
// sent on when it must be replaced or when its counter saturates.
//
// Where the paper is silent: the table is fully associative with LRU
// replacement, and its counter counts merged messages, saturating at
// MaxMerges (an 8-bit counter by default: counting tuple occurrences in a
// byte would saturate on the first H[P256] message). Entries still held in
// the table are invisible to software until Flush.
type Assoc struct {
	keys   []Tuple
	counts []uint64 // occurrences the entry stands for; 0 = free
	merges []uint32
	stamps []uint64 // last use, for LRU
	clock  uint64
	max    uint32
	sink   Sink
	// Sent counts the messages sent on to the sink.
	Sent uint64
}

// DefaultMaxMerges is the saturation value of an A_k entry's counter: the
// number of first-level messages one entry merges before it is sent on.
const DefaultMaxMerges = 255

// NewAssoc returns A_k sending to sink, with entries sent on after
// maxMerges merged messages (0 means DefaultMaxMerges). It panics if k < 1.
func NewAssoc(k int, maxMerges uint32, sink Sink) *Assoc {
	if k < 1 {
		panic(fmt.Sprintf("profhw: associative table needs at least 1 entry, got %d", k))
	}
	if maxMerges == 0 {
		maxMerges = DefaultMaxMerges
	}
	return &Assoc{
		keys: make([]Tuple, k), counts: make([]uint64, k), merges: make([]uint32, k),
		stamps: make([]uint64, k), max: maxMerges, sink: sink,
	}
}

// Message merges one first-level message into the table.
// A message with count 0 stands for no occurrence and is dropped.
func (a *Assoc) Message(t Tuple, count uint64) {
	if count == 0 {
		return
	}
	a.clock++
	free, lru := -1, 0
	for i := range a.keys {
		if a.counts[i] == 0 {
			if free < 0 {
				free = i
			}
			continue
		}
		if a.keys[i] == t {
			a.counts[i] += count
			a.merges[i]++
			a.stamps[i] = a.clock
			if a.merges[i] >= a.max {
				a.send(i)
			}
			return
		}
		if a.stamps[i] < a.stamps[lru] {
			lru = i
		}
	}
	i := free
	if i < 0 {
		i = lru
		a.send(i)
	}
	a.keys[i], a.counts[i], a.merges[i], a.stamps[i] = t, count, 1, a.clock
	if a.merges[i] >= a.max {
		a.send(i)
	}
}

func (a *Assoc) send(i int) {
	a.sink.Message(a.keys[i], a.counts[i])
	a.Sent++
	a.counts[i], a.merges[i] = 0, 0
}

// Flush sends every occupied entry on to the sink and empties the table.
func (a *Assoc) Flush() {
	for i := range a.keys {
		if a.counts[i] != 0 {
			a.send(i)
		}
	}
}

// Reset empties the table without sending anything.
func (a *Assoc) Reset() {
	clear(a.counts)
	clear(a.merges)
	a.clock, a.Sent = 0, 0
}

// TwoLevel is a first-level compressor followed by an associative counter
// table, e.g. H[P_r]_n A_k (stratified paper, section 3.4).
type TwoLevel struct {
	First  Compressor
	Second *Assoc
}

// Feed feeds the first level, whose messages go through the second.
func (c *TwoLevel) Feed(ts []Tuple) { c.First.Feed(ts) }

// Reset resets both levels.
func (c *TwoLevel) Reset(seed uint64) { c.First.Reset(seed); c.Second.Reset() }

// Flush sends what the second level still holds.
func (c *TwoLevel) Flush() { c.Second.Flush() }
