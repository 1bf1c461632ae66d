// The collector: the guest's heap host calls in, cycles (start, marking, final pause, sweep) and their statistics out.

package gcassist

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"rvdyn/interp"
	"rvdyn/profhw/mq"
)

// A Collector collects one guest's heap. It is the guest's
// interp.HostCallHandler; install it with Machine.SetHostCall before the
// guest announces its heap. Its host calls run on the guest's goroutine;
// the marker goroutine and the barrier goroutine (BarrierMessage) run
// beside it. Close stops the marker.
type Collector struct {
	opts Options
	mem  *interp.Memory
	d    *desc // nil until an announcement was accepted

	grey       *greySet
	markerDone chan struct{}
	markerErr  atomic.Pointer[error]
	stopMark   atomic.Bool

	// marking is true from a cycle's start to its final pause; the
	// barrier goroutine reads it.
	marking       atomic.Bool
	markedObjects atomic.Uint64

	// ModeRPA: queue 3 and the barrier goroutine's progress.
	queue     *mq.Queue
	op1Word   int
	handled   atomic.Uint64 // messages BarrierMessage has finished with
	inflight  atomic.Int64  // BarrierMessage calls under way (see Close)
	pendingMu sync.Mutex
	pending   []uint64 // deterministic mode: referents to shade at the next safepoint

	stats  Stats
	pauses []time.Duration
}

// New returns a collector with the given options.
func New(opts Options) *Collector {
	return &Collector{opts: opts, grey: newGreySet(), stats: Stats{Mode: opts.Mode}}
}

// Options returns the collector's options.
func (c *Collector) Options() Options { return c.opts }

// HostCall answers the heap contract's host calls (interp.HostCallHandler).
// In ModeGuest, and for a descriptor it cannot use, it leaves the
// announcement unanswered (-ENOSYS): the guest collects its own heap.
// Other host-call numbers are not its own and are left alone.
func (c *Collector) HostCall(m *interp.Machine, num uint64) (uint64, bool, error) {
	if num == HCHeapAnnounce {
		return c.announce(m)
	}
	if c.d == nil || num < HCTrigger || num > HCLog {
		return 0, false, nil
	}
	t0 := time.Now()
	var err error
	switch num {
	case HCTrigger:
		switch {
		case c.marking.Load():
			c.stats.ForcedFinishes++
			err = c.finish()
		case c.opts.Mode.Concurrent():
			err = c.start()
		default:
			err = c.collectSTW()
		}
	case HCSafepoint:
		c.stats.SafepointCalls++
		err = c.safepoint()
	case HCFull:
		c.stats.FullCollections++
		if c.marking.Load() {
			err = c.finish()
		}
		if err == nil {
			err = c.collectSTW()
		}
	case HCLog:
		c.stats.LogFlushes++
		c.drainLog()
	}
	if num != HCLog {
		c.pause(time.Since(t0))
	}
	return 0, true, err
}

func (c *Collector) announce(m *interp.Machine) (uint64, bool, error) {
	if c.opts.Mode == ModeGuest || c.d != nil {
		return 0, false, nil
	}
	c.mem = m.Mem
	d, err := readDesc(m.Mem, m.CPU.X[10])
	if err != nil {
		c.stats.Declined = err.Error()
		return 0, false, nil
	}
	c.d = d
	c.stats.Hosted = true
	c.mem.StoreWord(d.ctl+ctlInterval, c.opts.Interval)
	return 0, true, nil
}

// start begins a concurrent cycle at a safepoint: allocation turns black,
// the software barrier goes on (ModeSoft), the roots are shaded, and
// marking proceeds on the marker goroutine (or, deterministic, at the
// following safepoints).
func (c *Collector) start() error {
	c.waitBarrier()
	c.takePending()
	c.notePeak()
	ctl := c.d.ctl
	c.mem.StoreWord(ctl+ctlAllocBits, markBit)
	if c.opts.Mode == ModeSoft {
		c.mem.StoreWord(ctl+ctlLogN, 0)
		c.mem.StoreWord(ctl+ctlBarrier, 1)
	}
	c.marking.Store(true)
	if err := c.markRoots(); err != nil {
		return err
	}
	if c.opts.Deterministic {
		c.mem.StoreWord(ctl+ctlRequest, 1)
	} else {
		c.startMarker()
	}
	return nil
}

// safepoint answers the request word: a deterministic marking step, or the
// final pause.
func (c *Collector) safepoint() error {
	if !c.marking.Load() {
		c.mem.StoreWord(c.d.ctl+ctlRequest, 0)
		return nil
	}
	if c.opts.Deterministic {
		c.waitBarrier()
		for _, v := range c.takePending() {
			c.shade(v)
		}
		empty, err := c.markSome(c.opts.step())
		if err != nil || !empty {
			return err
		}
	}
	return c.finish()
}

// finish is a concurrent cycle's final pause: every barrier message and
// log entry so far is shaded, the marker stops, the roots are rescanned,
// marking runs to the end here, and the sweep writes the free lists back.
func (c *Collector) finish() error {
	c.waitBarrier()
	if c.opts.Mode == ModeSoft {
		c.drainLog()
	}
	if err := c.stopMarker(); err != nil {
		return err
	}
	for _, v := range c.takePending() {
		c.shade(v)
	}
	if err := c.markRoots(); err != nil {
		return err
	}
	if _, err := c.markSome(-1); err != nil {
		return err
	}
	return c.sweepAndReset()
}

// collectSTW is a whole collection in one pause.
func (c *Collector) collectSTW() error {
	c.stats.STWCollections++
	c.notePeak()
	if err := c.markRoots(); err != nil {
		return err
	}
	if _, err := c.markSome(-1); err != nil {
		return err
	}
	return c.sweepAndReset()
}

// sweepAndReset sweeps, ends the cycle in the control block, updates the
// guest's gc_stats (collections, live bytes) and, under Verify, checks
// that nothing reachable was freed.
func (c *Collector) sweepAndReset() error {
	mem, ctl := c.mem, c.d.ctl
	c.marking.Store(false)
	mem.StoreWord(ctl+ctlBarrier, 0)
	mem.StoreWord(ctl+ctlAllocBits, 0)
	mem.StoreWord(ctl+ctlRequest, 0)
	mem.StoreWord(ctl+ctlLogN, 0)
	live, err := c.sweep()
	if err != nil {
		return err
	}
	c.stats.Collections++
	c.stats.LiveBytes = live
	mem.StoreWord(c.d.stats, mem.LoadWord(c.d.stats)+1)
	mem.StoreWord(c.d.stats+16, live)
	if c.opts.Verify {
		return c.verify()
	}
	return nil
}

// drainLog shades the software barrier's log entries and empties it.
func (c *Collector) drainLog() {
	mem, d := c.mem, c.d
	n := min(mem.LoadWord(d.ctl+ctlLogN), d.logCap)
	for i := uint64(0); i < n; i++ {
		c.shade(mem.LoadWord(d.logAddr + 8*i))
	}
	c.stats.BarrierLogged += n
	mem.StoreWord(d.ctl+ctlLogN, 0)
}

func (c *Collector) notePeak() {
	if top := c.mem.LoadWord(c.d.top); top-c.d.heapStart > c.stats.PeakHeapBytes {
		c.stats.PeakHeapBytes = top - c.d.heapStart
	}
}

func (c *Collector) pause(d time.Duration) {
	c.pauses = append(c.pauses, d)
}

// Close stops the marker goroutine if a cycle is still marking (the guest
// exited during one), and makes BarrierMessage count messages without
// touching guest memory from then on; it returns once no BarrierMessage
// call that might still touch it is under way. After Close the guest
// memory may be unmapped while a session still drains queue 3.
func (c *Collector) Close() error {
	err := c.stopMarker()
	c.marking.Store(false)
	for c.inflight.Load() != 0 {
		runtime.Gosched()
	}
	return err
}

// waitBarrier returns when the barrier goroutine has handled every message
// sent to queue 3 so far (the guest, whose goroutine this is, sends no
// more while it waits). The atomic handled counter, incremented after a
// message's shading, orders that shading before what follows here.
func (c *Collector) waitBarrier() {
	if c.queue == nil {
		return
	}
	sent := c.queue.Stats().Sent
	if c.handled.Load() >= sent {
		return
	}
	t0 := time.Now()
	for c.handled.Load() < sent {
		runtime.Gosched()
	}
	c.stats.BarrierWait += time.Since(t0)
}

func (c *Collector) takePending() []uint64 {
	c.pendingMu.Lock()
	p := c.pending
	c.pending = nil
	c.pendingMu.Unlock()
	return p
}
