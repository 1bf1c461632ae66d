// Trace-head counters: candidate pcs -> hot predictions after tau executions.

package net

// DefaultDelay is the default prediction delay tau: Dynamo's choice, which
// section 6 of the paper found best among 10, 50 and 100.
const DefaultDelay = 50

// Counters are NET's profiling state: one counter per trace-head candidate
// seen so far (section 4.2: "execution counts are maintained only for
// executed path heads").
type Counters struct {
	delay     uint32
	counts    map[uint64]uint32
	abandoned map[uint64]bool
	stats     CounterStats
}

// CounterStats describe the counter table.
type CounterStats struct {
	Heads       uint64 // distinct candidates ever counted (the counter space)
	Bumps       uint64 // counter increments
	Predictions uint64 // times a counter passed the delay
	Abandoned   uint64 // heads from which no trace can be built
}

// NewCounters returns an empty counter table with prediction delay tau
// (negative values count as 0; with 0 a head is predicted the first time
// it is seen).
func NewCounters(tau int) *Counters {
	return &Counters{delay: uint32(max(tau, 0)), counts: make(map[uint64]uint32), abandoned: make(map[uint64]bool)}
}

// Delay returns tau.
func (c *Counters) Delay() int { return int(c.delay) }

// Bump counts one execution of the candidate at pc and reports whether its
// count now exceeds the prediction delay, i.e. whether the next executing
// tail from pc should be recorded. The counter restarts after a
// prediction, so a head whose trace is lost (a flush) must prove itself hot
// again.
func (c *Counters) Bump(pc uint64) bool {
	if c.abandoned[pc] {
		return false
	}
	c.stats.Bumps++
	n, seen := c.counts[pc]
	if !seen {
		c.stats.Heads++
	}
	n++
	if n > c.delay {
		c.counts[pc] = 0
		c.stats.Predictions++
		return true
	}
	c.counts[pc] = n
	return false
}

// Abandon stops counting pc: no useful trace starts there (for example the
// head is a system call, which native code does not execute).
func (c *Counters) Abandon(pc uint64) {
	if !c.abandoned[pc] {
		c.abandoned[pc] = true
		c.stats.Abandoned++
	}
	delete(c.counts, pc)
}

// Reset sets every count to zero (after a code cache flush the dispatcher
// starts predicting afresh). The heads stay known, so Stats.Heads keeps
// counting distinct candidates; abandoned heads stay abandoned.
func (c *Counters) Reset() {
	for pc := range c.counts {
		c.counts[pc] = 0
	}
}

// Stats returns the counters' statistics.
func (c *Counters) Stats() CounterStats { return c.stats }
