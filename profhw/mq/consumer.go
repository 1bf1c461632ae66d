// Consumer counters: a service thread's polls in, how it woke up (after spinning, yielding or sleeping), how full it found its queues and how many messages it took per wake-up out.

package mq

import "sync/atomic"

// A WakePhase is the backoff phase a service thread was in when it made
// its last empty poll (Backoff): the phase it woke up from when the next
// poll finds a message.
type WakePhase int

// The backoff phases, in order.
const (
	WakeSpin  WakePhase = iota // polling without yielding the core
	WakeYield                  // runtime.Gosched before each poll
	WakeSleep                  // a timer sleep before each poll
	numWakePhases
)

var wakePhaseNames = [numWakePhases]string{"spin", "yield", "sleep"}

// String returns "spin", "yield" or "sleep".
func (p WakePhase) String() string {
	if p < 0 || p >= numWakePhases {
		return "WakePhase(?)"
	}
	return wakePhaseNames[p]
}

// ConsumerStats are a service thread's counters (all of a Service's
// threads summed): what tells a consumer that is not scheduled from one
// that sleeps through its producer's burst. Counts are events or
// messages; SleepNs is nanoseconds.
type ConsumerStats struct {
	// Wakeups counts, per WakePhase, the polls that found a message after
	// at least one empty poll: the start of a burst.
	Wakeups [numWakePhases]uint64
	// WakeFull counts, of those, the wake-ups whose queue held as many
	// messages as it has slots: the producer had filled it (and stalls,
	// or will at its next message) before the consumer looked.
	WakeFull [numWakePhases]uint64
	// BurstMessages counts the messages taken in bursts, by the phase the
	// burst woke up from; BurstMessages[p]/Wakeups[p] is the mean batch.
	// A burst ends at the next empty poll.
	BurstMessages [numWakePhases]uint64
	MaxBurst      uint64 // the most messages taken in one burst
	Yields        uint64 // runtime.Gosched calls between polls
	YieldNs       uint64 // time spent in them, as measured
	Sleeps        uint64 // timer sleeps started
	SleepNs       uint64 // time spent in them, as measured (timer slack included)
	WokenEarly    uint64 // of Sleeps, those a producer cut short (Queue wake-up)
}

// consumerCounters are ConsumerStats as atomics, written by the service
// threads and read by Stats from any goroutine.
type consumerCounters struct {
	wakeups, wakeFull, burst [numWakePhases]atomic.Uint64
	maxBurst                 atomic.Uint64
	yields, yieldNs          atomic.Uint64
	sleeps, sleepNs, woken   atomic.Uint64
}

func (c *consumerCounters) endBurst(p WakePhase, n uint64) {
	c.burst[p].Add(n)
	for {
		m := c.maxBurst.Load()
		if n <= m || c.maxBurst.CompareAndSwap(m, n) {
			return
		}
	}
}

func (c *consumerCounters) stats() ConsumerStats {
	var s ConsumerStats
	for p := range numWakePhases {
		s.Wakeups[p], s.WakeFull[p], s.BurstMessages[p] = c.wakeups[p].Load(), c.wakeFull[p].Load(), c.burst[p].Load()
	}
	s.MaxBurst, s.Sleeps, s.SleepNs, s.WokenEarly = c.maxBurst.Load(), c.sleeps.Load(), c.sleepNs.Load(), c.woken.Load()
	s.Yields, s.YieldNs = c.yields.Load(), c.yieldNs.Load()
	return s
}

// Consumer returns the counters of the service's threads so far.
func (s *Service) Consumer() ConsumerStats { return s.counters.stats() }

// occupancy is how many messages are in the queue now, as the consumer
// sees it (0 after Close).
func (q *Queue) occupancy() uint64 {
	h := q.h
	if h == nil {
		return 0
	}
	return atomic.LoadUint64(&h.written) - atomic.LoadUint64(&h.readStatus)
}

// wakeConsumer wakes the queue's service thread if it sleeps on a timer
// (Backoff), so that it drains the queue now rather than when the timer
// fires. A wake-up sent while it is not asleep ends its next sleep early.
func (q *Queue) wakeConsumer() {
	if !q.asleep.Load() {
		return
	}
	if w := q.wake.Load(); w != nil {
		select {
		case *w <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}
