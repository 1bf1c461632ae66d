// Service threads (sec. 3.4.2, sec. 5): queues -> goroutines that poll them
// with backoff -> each message handed to a handler, in order, exactly once.

package mq

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Backoff sets how an idle service thread polls. It spins (polls
// without yielding the core, Interval apart) for Spins empty polls, and
// on for as long as its last message is less than SpinFor old; then it
// calls runtime.Gosched before each of Yields more polls; then it sleeps
// between polls, starting at MinSleep and doubling up to MaxSleep. Any
// message resets it to spinning. A zero field takes its default.
//
// A consumer that stops polling for longer than its producer takes to
// fill the queue stalls the producer; docs/rpa.md ("Queue stalls") has
// the measurements (ConsumerStats). SpinFor keeps the thread polling
// through the gaps of an active producer, at the price of its core for
// that long after each burst: what the paper's dedicated service
// processor would spend, but on a machine without an idle core it takes
// the time from the producer (measured: fewer stalls, longer runs), so it
// is off by default.
//
// Interval: a spinning thread waits Interval between two polls on its
// own clock, touching no queue memory, so the slot it polls is not pulled
// to its core and back on every message: a poll reads the ready word of
// the slot the producer writes next, and each poll after the producer's
// store moves that cache line to the consumer's core, where the
// producer's next store must wait for it. Measured on the edge query at
// 1/256 (docs/rpa.md, "Polling at an interval"): polling back to back
// cost matmul about a third of its run in the producer alone. A negative
// Interval polls back to back, as before; so does the thread while its
// producer sends fast enough to fill half the queue within one interval
// (the rate of its last burst), as an always-query does: it would
// otherwise stall on every lap.
//
// Latency: while the thread spins it reads a message at most Interval
// (back to back: one poll, tens of ns) after its ready word is stored. A
// sleeping thread is woken at once by a producer that stalls on its full
// queue (WaitSpace, and native code through it) or by a Send that finds
// it half full; otherwise its first message waits up to MaxSleep plus
// timer slack. An idle thread costs one poll per MaxSleep.
type Backoff struct {
	Interval time.Duration // wait between two polls while spinning; default 10µs, negative: none
	Spins    int           // empty polls that spin; default 64
	SpinFor  time.Duration // keep spinning this long after the last message; default 0 (off)
	Yields   int           // further empty polls that yield; default 64
	MinSleep time.Duration // first sleep; default 5µs
	MaxSleep time.Duration // longest sleep; default 200µs
}

// DefaultBackoff is the Backoff used when none is given.
var DefaultBackoff = Backoff{Interval: 10 * time.Microsecond, Spins: 64, Yields: 64, MinSleep: 5 * time.Microsecond, MaxSleep: 200 * time.Microsecond}

func (b Backoff) withDefaults() Backoff {
	d := DefaultBackoff
	if b.Interval != 0 {
		d.Interval = b.Interval
	}
	if b.Spins > 0 {
		d.Spins = b.Spins
	}
	if b.SpinFor > 0 {
		d.SpinFor = b.SpinFor
	}
	if b.Yields > 0 {
		d.Yields = b.Yields
	}
	if b.MinSleep > 0 {
		d.MinSleep = b.MinSleep
	}
	if b.MaxSleep > 0 {
		d.MaxSleep = b.MaxSleep
	}
	if d.MinSleep > d.MaxSleep {
		d.MinSleep = d.MaxSleep
	}
	return d
}

// batch bounds how many messages one thread takes from a queue before it
// looks at its other queues and at Stop.
const batch = 64

// A Service is one or more running service threads. Stop ends them.
type Service struct {
	stopping atomic.Bool
	stopCh   chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
	handled  atomic.Uint64
	counters consumerCounters
}

// Serve starts one service thread that hands every message of q to handle,
// in order. handle runs on the service goroutine and must not retain m.
// A queue has at most one consumer: Serve panics if q already has a
// running service thread.
func Serve(q *Queue, handle func(m *Message)) *Service {
	return ServeQueues([]*Queue{q}, func(_ int, m *Message) { handle(m) }, Backoff{})
}

// ServeQueues starts one service thread that polls all of qs round-robin
// and calls handle(i, m) for each message of qs[i]. Messages of one queue
// arrive in order; there is no order between queues. Use it when there are
// fewer cores than queues. It panics if a queue already has a service
// thread or appears twice.
func ServeQueues(qs []*Queue, handle func(i int, m *Message), b Backoff) *Service {
	s := newService()
	s.start(qs, 0, handle, b.withDefaults())
	return s
}

// ServeEach starts one service thread per queue (a goroutine each), with
// handle(i, m) called on qs[i]'s thread: handle must be safe to run for
// different i at once. It panics as ServeQueues does.
func ServeEach(qs []*Queue, handle func(i int, m *Message), b Backoff) *Service {
	s := newService()
	b = b.withDefaults()
	for i, q := range qs {
		s.start([]*Queue{q}, i, handle, b)
	}
	return s
}

func newService() *Service { return &Service{stopCh: make(chan struct{})} }

// start claims qs and runs one thread over them; base is added to the
// queue index passed to handle.
func (s *Service) start(qs []*Queue, base int, handle func(int, *Message), b Backoff) {
	qs = append([]*Queue(nil), qs...)
	for i, q := range qs {
		if q.closed.Load() {
			panic("mq: serving a closed queue")
		}
		if !q.serving.CompareAndSwap(0, 1) {
			for _, p := range qs[:i] {
				p.serving.Store(0)
			}
			panic("mq: queue already has a service thread")
		}
	}
	wake := make(chan struct{}, 1)
	for _, q := range qs {
		q.wake.Store(&wake)
	}
	s.wg.Add(1)
	go s.run(qs, base, handle, b, wake)
}

func (s *Service) run(qs []*Queue, base int, handle func(int, *Message), b Backoff, wake chan struct{}) {
	defer func() {
		for _, q := range qs {
			q.serving.Store(0)
		}
		s.wg.Done()
	}()
	var m Message
	var timer *time.Timer
	idle := 1 // the first message is a wake-up too
	phase := WakeSpin
	yields := 0
	last := time.Now() // when the last burst ended
	sleep := b.MinSleep
	c := &s.counters
	burst, burstPhase := uint64(0), WakeSpin
	// A producer that would fill half the smallest queue within one
	// poll interval, at the rate of the last burst, is fast: the thread
	// then polls back to back (fast). waited is the time of the last
	// empty poll, before its wait: a burst's time starts there.
	half, fast := uint64(MaxSlots), false
	for _, q := range qs {
		half = min(half, q.n/2)
	}
	waited := time.Now()
	for {
		// A poll after empty ones that finds a message is a wake-up:
		// note how full the queues were before taking anything.
		full := false
		if idle > 0 {
			for _, q := range qs {
				full = full || q.occupancy() >= q.n
			}
		}
		got := 0
		for i, q := range qs {
			for k := 0; k < batch && q.Receive(&m); k++ {
				handle(base+i, &m)
				got++
			}
		}
		if got > 0 {
			if idle > 0 {
				if burst > 0 {
					c.endBurst(burstPhase, burst)
				}
				burst, burstPhase = 0, phase
				c.wakeups[burstPhase].Add(1)
				if full {
					c.wakeFull[burstPhase].Add(1)
				}
			}
			burst += uint64(got)
			s.handled.Add(uint64(got))
			idle, yields, phase, sleep = 0, 0, WakeSpin, b.MinSleep
			if !s.stopping.Load() {
				continue
			}
		}
		now := time.Now()
		if burst > 0 {
			c.endBurst(burstPhase, burst)
			last = now
			fast = b.Interval > 0 && time.Duration(burst)*b.Interval >= time.Duration(half)*now.Sub(waited)
			burst = 0
		}
		waited = now
		if s.stopping.Load() {
			// Everything sent before Stop is visible now; take it all.
			s.drain(qs, base, handle, &m)
			return
		}
		idle++
		if phase == WakeSpin && idle > b.Spins && time.Since(last) >= b.SpinFor {
			phase = WakeYield
		}
		if phase == WakeYield && yields >= b.Yields {
			phase = WakeSleep
		}
		switch phase {
		case WakeSpin:
			if !fast {
				pause(b.Interval, qs)
			}
		case WakeYield:
			yields++
			t0 := time.Now()
			runtime.Gosched()
			c.yields.Add(1)
			c.yieldNs.Add(uint64(time.Since(t0)))
		default:
			if timer == nil {
				timer = time.NewTimer(sleep)
			} else {
				timer.Reset(sleep)
			}
			for _, q := range qs {
				q.asleep.Store(true)
			}
			t0 := time.Now()
			select {
			case <-timer.C:
			case <-s.stopCh:
			case <-wake:
				c.woken.Add(1)
				timer.Stop() // since Go 1.23 no stale tick survives Stop

			}
			c.sleeps.Add(1)
			c.sleepNs.Add(uint64(time.Since(t0)))
			for _, q := range qs {
				q.asleep.Store(false)
			}
			if sleep *= 2; sleep > b.MaxSleep {
				sleep = b.MaxSleep
			}
		}
	}
}

// pause waits d on the thread's own clock without reading queue memory
// (Backoff.Interval), letting other goroutines run meanwhile (a thread
// that held its core for 64 intervals would starve them on a busy
// machine), and returns early when the producer of one of qs stalls on
// it (Queue.stalled, a Go word the producer writes only then); d <= 0
// returns at once.
func pause(d time.Duration, qs []*Queue) {
	if d <= 0 {
		return
	}
	for t0 := time.Now(); time.Since(t0) < d; {
		for _, q := range qs {
			if q.stalled.Load() {
				return
			}
		}
		runtime.Gosched() // other goroutines first, as the yield phase does
	}
}

func (s *Service) drain(qs []*Queue, base int, handle func(int, *Message), m *Message) {
	for {
		got := 0
		for i, q := range qs {
			for q.Receive(m) {
				handle(base+i, m)
				got++
			}
		}
		if got == 0 {
			return
		}
		s.handled.Add(uint64(got))
	}
}

// Stop ends the service threads and returns when they have exited. Every
// message whose Send returned before Stop was called has been handled by
// then, so a run's last messages are not lost; stop the producer first
// (a Send still stalled on a full queue is not waited for). Stop may be
// called more than once.
func (s *Service) Stop() {
	s.once.Do(func() {
		s.stopping.Store(true)
		close(s.stopCh)
	})
	s.wg.Wait()
}

// Handled is the number of messages the service's threads have handed to
// their handler so far.
func (s *Service) Handled() uint64 { return s.handled.Load() }
