// Selection on a service thread: the relational profiler's sampled branch and jump records in, trace heads the service thread finds hot out, through a single-producer single-consumer queue polled by the dispatcher.

package selection

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"rvdyn/interp"
	"rvdyn/net"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// headQueueSlots is the capacity of the hot-head queue. A head the
// service thread cannot push (the dispatcher has not polled for a long
// time, running in fragments) keeps its count and is pushed again at its
// next message: nothing is lost but time.
const headQueueSlots = 4096

// A headQueue carries trace heads (guest pcs) from one producer
// goroutine, the selection service thread, to one consumer, the
// dispatcher: a ring of plain words indexed by two counters that only
// grow.
//
// Ordering. The producer writes a slot, then stores tail; the consumer
// loads tail, reads the slots below it, then stores head; the producer
// loads head before reusing a slot. In the Go memory model every atomic
// operation is sequentially consistent and a store synchronizes with the
// load that observes it, so the slot write happens before the consumer's
// read of it (via tail), and the consumer's read happens before the
// producer's next write to that slot (via head): the plain slot accesses
// never race, which is what -race checks. On x86-TSO this costs nothing
// extra: stores are not reordered with older stores, loads not with older
// loads, and Go's atomic store is an XCHG, a full fence.
type headQueue struct {
	head  atomic.Uint64 // next slot to read: written by the consumer only
	_     [56]byte      // head and tail on separate cache lines
	tail  atomic.Uint64 // next slot to write: written by the producer only
	_     [56]byte
	slots []uint64
	mask  uint64
}

// newHeadQueue returns a queue of n slots (a power of two).
func newHeadQueue(n int) *headQueue {
	if n < 1 || n&(n-1) != 0 {
		panic(fmt.Sprintf("rvdyn: head queue size %d is not a power of two", n))
	}
	return &headQueue{slots: make([]uint64, n), mask: uint64(n - 1)}
}

// push appends pc, or reports false if the queue is full. Producer only.
func (q *headQueue) push(pc uint64) bool {
	t := q.tail.Load()
	if t-q.head.Load() == uint64(len(q.slots)) {
		return false
	}
	q.slots[t&q.mask] = pc
	q.tail.Store(t + 1)
	return true
}

// pop removes the oldest pc, or reports false if the queue is empty.
// Consumer only.
func (q *headQueue) pop() (uint64, bool) {
	h := q.head.Load()
	if h == q.tail.Load() {
		return 0, false
	}
	pc := q.slots[h&q.mask]
	q.head.Store(h + 1)
	return pc, true
}

// rpaSelectQueue is the relational-profiler queue the selection query
// sends to.
const rpaSelectQueue = 1

// rpaSelectQuery returns the selection query: every b-th conditional
// branch and every j-th jump sends its pc, next pc (res2) and misc (the
// outcome and the opcode) to queue 1.
func rpaSelectQuery(b, j uint32) string {
	every := func(n uint32) string {
		if n <= 1 {
			return "always"
		}
		return fmt.Sprintf("every %d", n)
	}
	return fmt.Sprintf("for opBRANCH * %s collect pc res2 misc;\nsend %d stop;\nfor opJMP * %s collect pc res2 misc;\nsend %d stop;\n",
		every(b), rpaSelectQueue, every(j), rpaSelectQueue)
}

// RPAScheme is the RPA scheme. The dispatcher side (Bump, Reset) runs on the
// dispatcher's goroutine; handle runs on the queue's service thread.
type RPAScheme struct {
	sel  *net.Selector
	sess *rpa.Session
	q    *headQueue
	sync bool

	// Dispatcher side.
	ready map[uint64]bool // heads the service thread found hot, not yet recorded

	// Shared, atomic.
	epoch   atomic.Uint64 // code cache flushes: the service thread restarts its counts when it changes
	handled atomic.Uint64 // messages handle has finished (RPASync waits for it to reach Sent)
	heads   atomic.Uint64 // distinct heads the service thread ever counted
	pushed  atomic.Uint64 // heads handed to the dispatcher
	full    atomic.Uint64 // pushes that found the queue full

	// Service thread only.
	counts     map[uint64]uint64 // head -> executions the samples imply since the last push
	known      map[uint64]bool
	seen       uint64 // epoch the counts belong to
	period     uint64 // a branch record counts this many executions
	jumpPeriod uint64 // a jump record counts this many
	tau        uint64
}

// newRPA starts the selection query's session (RPA.Session), which the
// caller attaches to the guest and closes through Close.
func newRPA(o Options, sel *net.Selector) (*RPAScheme, error) {
	n, nj := o.RPAPeriod, o.RPAJumpPeriod
	if n == 0 {
		n = DefaultRPAPeriod
	}
	if nj == 0 {
		nj = DefaultRPAJumpPeriod
	}
	prog, err := rpa.Assemble(rpaSelectQuery(n, nj))
	if err != nil {
		return nil, fmt.Errorf("rvdyn: selection query: %w", err)
	}
	s := &RPAScheme{sel: sel, q: newHeadQueue(headQueueSlots), sync: o.RPASync, ready: map[uint64]bool{},
		counts: map[uint64]uint64{}, known: map[uint64]bool{}, period: uint64(n), jumpPeriod: uint64(nj), tau: uint64(sel.Delay())}
	ro := rpa.Options{Seed: 1, Handlers: map[int]func(*mq.Message){rpaSelectQueue: s.handle}}
	if s.sync {
		// The dispatcher waits for the thread at every poll: keep its
		// idle sleeps short.
		ro.Backoff = mq.Backoff{MinSleep: time.Microsecond, MaxSleep: 20 * time.Microsecond}
	}
	if s.sess, err = rpa.Start(prog, ro, 0); err != nil {
		return nil, fmt.Errorf("rvdyn: selection query: %w", err)
	}
	return s, nil
}

// Session is the relational profiler session whose query feeds the
// service thread: the caller attaches it to the guest (rpa.Session.Attach)
// and must not close it (Close does).
func (s *RPAScheme) Session() *rpa.Session { return s.sess }

// Sync reports whether the dispatcher waits for the service thread at
// each poll (Options.RPASync). A native query that finds the queue full
// leaves its fragment, an exit (and a trace-head candidate) that depends
// on how fast the service thread drains: a synchronous run must send from
// Go only, where a full queue stalls the guest instead.
func (s *RPAScheme) Sync() bool { return s.sync }

// handle is the service thread's work: one sampled branch or jump record
// (pc, next pc, misc) counts its sampling period's executions of the
// next pc, a
// trace-head candidate if control gets there by a backward transfer or a
// code cache exit (every transfer target and fall-through may be an exit
// target); a count past the delay is pushed to the dispatcher and
// restarts.
func (s *RPAScheme) handle(m *mq.Message) {
	if e := s.epoch.Load(); e != s.seen {
		clear(s.counts)
		s.seen = e
	}
	next, w := m[1], s.period
	if op := interp.Op(m[2] >> rpa.MiscOpShift & 0xff); op == interp.OpJAL || op == interp.OpJALR {
		w = s.jumpPeriod
	}
	if !s.known[next] {
		s.known[next] = true
		s.heads.Add(1)
	}
	c := s.counts[next] + w
	if c > s.tau {
		if s.q.push(next) {
			s.pushed.Add(1)
			c = 0
		} else {
			s.full.Add(1)
		}
	}
	s.counts[next] = c
	s.handled.Add(1)
}

// poll moves the heads the service thread pushed into the ready set; with
// RPASync it first waits until the thread has handled every message sent
// so far, so that what is ready depends only on the records.
func (s *RPAScheme) poll() {
	if s.sync {
		q := s.sess.Queues[rpaSelectQueue]
		for s.handled.Load() != q.Stats().Sent {
			runtime.Gosched()
		}
	}
	for {
		pc, ok := s.q.pop()
		if !ok {
			return
		}
		s.ready[pc] = true
	}
}

// Bump moves the heads the service thread found hot into the ready set
// and reports whether pc is one of them (Scheme.Bump).
func (s *RPAScheme) Bump(pc uint64) bool {
	s.poll()
	if !s.ready[pc] || s.sel.Abandoned(pc) {
		return false
	}
	delete(s.ready, pc)
	return true
}

// Reset forgets the ready heads and tells the service thread to restart
// its counts (at its next message).
func (s *RPAScheme) Reset() {
	s.poll()
	clear(s.ready)
	s.epoch.Add(1)
}

// Entries is the number of distinct heads the service thread ever
// counted (Scheme.Entries).
func (s *RPAScheme) Entries() uint64 { return s.heads.Load() }

// Close closes the session, draining its service thread (Scheme.Close).
func (s *RPAScheme) Close() {
	if s.sess != nil {
		s.sess.Close()
	}
}
