// The tagged compressor: tuples in, summary and eviction messages out, through a table of tagged hit/miss counters run by the Figure 6 state machine (stratified section 4).

package profhw

import "fmt"

// TaggedConfig parameterizes the tagged compressor of the stratified paper,
// section 4. The paper's evaluated design (section 5.4) is "tag2-256-2048":
// TagBits 2, Threshold 256 (an 8-bit hit counter), Entries 2048, Ways 2,
// with a 3-bit miss counter (section 4.2).
type TaggedConfig struct {
	TagBits   uint   // partial tag width: tag = xor-fold(pc xor w, TagBits)
	Threshold uint64 // trigger threshold: the hit count at which the hit counter saturates (E2)
	Entries   int    // table entries (sets * Ways)
	Ways      int    // associativity; 1 = direct-mapped
	MissMax   uint32 // value at which the miss counter saturates (3 bits: 7)
}

// DefaultTagged is the configuration the paper evaluates, tag2-256-2048.
var DefaultTagged = TaggedConfig{TagBits: 2, Threshold: 256, Entries: 2048, Ways: 2, MissMax: 7}

// A Transition names an edge of the Figure 6 state machine.
type Transition uint8

// The transitions of Figure 6.
const (
	E1  Transition = iota // Empty, any tuple: allocate the entry to it
	E2                    // Valid, hit, hit counter saturates: send summary message, entry -> Empty
	E3                    // Valid, hit: increment hit counter
	E4                    // Valid, miss: increment miss counter, entry -> Evict
	E5                    // Evict, miss, Should-Replace: replace the tuple, keeping hits+misses
	E5a                   // Evict, miss, !Should-Replace: increment miss counter
	E6                    // Evict, hit, Should-Evict: send eviction message, entry -> Empty holding misses as hits
	E6a                   // Evict, hit, !Should-Evict: increment hit counter
	NumTransitions
)

var transitionNames = [NumTransitions]string{"E1", "E2", "E3", "E4", "E5", "E5a", "E6", "E6a"}

// String returns the paper's name of the transition, e.g. "E5a".
func (t Transition) String() string {
	if t < NumTransitions {
		return transitionNames[t]
	}
	return fmt.Sprintf("Transition(%d)", uint8(t))
}

// The states of a table entry.
const (
	stateEmpty uint8 = iota
	stateValid
	stateEvict
)

type taggedEntry struct {
	hits, misses uint32
	tag          uint32
	state        uint8
	stamp        uint32 // last hit or allocation, for LRU among the ways of a set
}

// Tagged is the tagged compressor of the stratified paper, section 4: a
// stratified sampler whose counter table entries carry a partial tag, a hit
// counter, a miss counter and the state of the Figure 6 state machine. The
// set index is the paper's Hash; the tag is xor-fold(pc xor w, TagBits).
//
// The state machine, per entry (Figure 6; "hits" and "misses" are the
// counters before the access):
//
//	Empty --any tuple-->                    E1  allocate, hits += 1 -> Valid
//	Valid --hit, hits+1 >= Threshold-->     E2  send (tuple, hits+1); hits = misses = 0 -> Empty
//	Valid --hit-->                          E3  hits += 1
//	Valid --miss-->                         E4  misses += 1 -> Evict
//	Evict --miss, Should-Replace-->         E5  tag = new tuple; hits = hits+misses+1; misses = 0 -> Valid
//	Evict --miss, !Should-Replace-->        E5a misses += 1
//	Evict --hit, Should-Evict-->            E6  send (tuple, hits+1); hits = misses; misses = 0 -> Empty
//	Evict --hit, !Should-Evict-->           E6a hits += 1
//
//	Should-Evict   = hits >= Threshold/4 && misses >= Threshold/hits
//	Should-Replace = misses == MissMax || hits == 1 || (hits > 1 && hits < 2*misses)
//
// The divisions in Should-Evict are exact (4*hits >= Threshold, misses*hits
// >= Threshold). After E6 the entry is Empty but keeps the evicted tuple's
// miss count in its hit counter; the next tuple allocated there (E1) takes
// that count over, as section 4.1 describes ("the next tuple to hit in this
// entry ... will assume the new count").
//
// Where we differ from the figure, and why: (1) the access that triggers
// E2, E5 or E6 is itself an occurrence, so we count it (hits+1 in the
// message, hits+misses+1 after E5); Figure 6's "T_new.hits = T_orig.hits +
// T_orig.misses" drops it, which contradicts the text's "the exact stream
// size is maintained". With this, the counts sent plus the counts held
// always equal the tuples seen (TestTaggedConservesCount). (2) Counters are
// 32 bits wide; after E5 an entry may hold more than Threshold hits and its
// next hit sends them all (E2), where an 8-bit counter would have wrapped.
// (3) In a set-associative table a miss in every way applies E4/E5/E5a to
// the least recently used way (the paper says only "like a cache memory").
type Tagged struct {
	cfg     TaggedConfig
	hash    *Hash // set index
	entries []taggedEntry
	tagTab  [8][256]uint32 // tagTab[i][b] = xor-fold(b << 8i, TagBits)
	clock   uint32
	sink    Sink
	// Transitions counts how often each transition of Figure 6 was taken.
	Transitions [NumTransitions]uint64
}

// NewTagged returns a tagged compressor with configuration cfg whose set
// index hash is drawn from seed, sending to sink. It panics on a
// configuration Validate rejects.
func NewTagged(cfg TaggedConfig, seed uint64, sink Sink) *Tagged {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	c := &Tagged{
		cfg:     cfg,
		hash:    NewHash(cfg.Entries/cfg.Ways, seed),
		entries: make([]taggedEntry, cfg.Entries),
		sink:    sink,
	}
	for i := range c.tagTab {
		for b := range c.tagTab[i] {
			c.tagTab[i][b] = uint32(XorFold(uint64(b)<<(8*i), cfg.TagBits))
		}
	}
	return c
}

// tag returns xor-fold(pc xor w, TagBits), by bytes (xor-fold is linear).
func (c *Tagged) tag(t Tuple) uint32 {
	x := t.PC ^ t.Val
	return c.tagTab[0][byte(x)] ^ c.tagTab[1][byte(x>>8)] ^ c.tagTab[2][byte(x>>16)] ^
		c.tagTab[3][byte(x>>24)] ^ c.tagTab[4][byte(x>>32)] ^ c.tagTab[5][byte(x>>40)] ^
		c.tagTab[6][byte(x>>48)] ^ c.tagTab[7][byte(x>>56)]
}

// Validate reports a configuration the model cannot run.
func (c TaggedConfig) Validate() error {
	switch {
	case c.TagBits < 1 || c.TagBits > 32:
		return fmt.Errorf("profhw: tag width %d bits out of range [1, 32]", c.TagBits)
	case c.Threshold < 1 || c.Threshold > 1<<31:
		return fmt.Errorf("profhw: tagged threshold %d out of range [1, 2^31]", c.Threshold)
	case c.Ways < 1 || c.Entries < c.Ways || c.Entries%c.Ways != 0:
		return fmt.Errorf("profhw: tagged table of %d entries cannot have %d ways", c.Entries, c.Ways)
	case c.Entries/c.Ways > MaxHashSize:
		return fmt.Errorf("profhw: tagged table of %d sets is too large", c.Entries/c.Ways)
	case c.MissMax < 1:
		return fmt.Errorf("profhw: miss counter saturation %d must be at least 1", c.MissMax)
	}
	return nil
}

// Feed consumes ts.
func (c *Tagged) Feed(ts []Tuple) {
	ways := c.cfg.Ways
	for i := range ts {
		t := ts[i]
		base := int(c.hash.Index(t)) * ways
		set := c.entries[base : base+ways]
		tag := c.tag(t)
		c.clock++
		c.access(set, t, tag)
	}
}

func (c *Tagged) access(set []taggedEntry, t Tuple, tag uint32) {
	empty, lru := -1, 0
	for w := range set {
		e := &set[w]
		if e.state == stateEmpty {
			if empty < 0 {
				empty = w
			}
			continue
		}
		if e.tag == tag {
			c.hit(e, t)
			return
		}
		if set[lru].state == stateEmpty || e.stamp < set[lru].stamp {
			lru = w
		}
	}
	if empty >= 0 { // E1
		e := &set[empty]
		e.state, e.tag, e.misses, e.stamp = stateValid, tag, 0, c.clock
		e.hits++
		c.Transitions[E1]++
		return
	}
	c.miss(&set[lru], tag)
}

func (c *Tagged) hit(e *taggedEntry, t Tuple) {
	r := c.cfg.Threshold
	e.stamp = c.clock
	if e.state == stateValid {
		if uint64(e.hits)+1 >= r { // E2
			c.sink.Message(t, uint64(e.hits)+1)
			*e = taggedEntry{}
			c.Transitions[E2]++
			return
		}
		e.hits++ // E3
		c.Transitions[E3]++
		return
	}
	// Evict state.
	h, m := uint64(e.hits), uint64(e.misses)
	if 4*h >= r && m*h >= r { // E6: Should-Evict
		c.sink.Message(t, h+1)
		*e = taggedEntry{hits: e.misses}
		c.Transitions[E6]++
		return
	}
	e.hits++ // E6a
	c.Transitions[E6a]++
}

func (c *Tagged) miss(e *taggedEntry, tag uint32) {
	if e.state == stateValid { // E4
		e.misses++
		e.state = stateEvict
		c.Transitions[E4]++
		return
	}
	h, m := e.hits, e.misses
	if m >= c.cfg.MissMax || h == 1 || (h > 1 && h < 2*m) { // E5: Should-Replace
		*e = taggedEntry{hits: h + m + 1, tag: tag, state: stateValid, stamp: c.clock}
		c.Transitions[E5]++
		return
	}
	e.misses++ // E5a
	c.Transitions[E5a]++
}

// Held returns the occurrences counted in the table but not yet sent: the
// sum of the hit and miss counters of every entry.
func (c *Tagged) Held() uint64 {
	var n uint64
	for i := range c.entries {
		n += uint64(c.entries[i].hits) + uint64(c.entries[i].misses)
	}
	return n
}

// Reset empties the table and clears the transition counts. The tagged
// compressor has no randomness; seed is ignored.
func (c *Tagged) Reset(seed uint64) {
	clear(c.entries)
	c.clock = 0
	c.Transitions = [NumTransitions]uint64{}
}
