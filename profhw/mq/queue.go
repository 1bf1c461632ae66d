// Message queue (sec. 3.4.2): a record from the query engine -> a slot in
// shared memory -> the same record at a service thread, exactly once.

package mq

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MsgWords is the number of 64-bit record words in one message (the paper's
// eight words per message minus the ready word).
const MsgWords = 7

// A Message is one profile record as it travels through a queue: seven
// 64-bit words whose meaning is set by the query that sent it (for rpa, the
// collected record fields in order).
type Message [MsgWords]uint64

// Queue sizes, in slots (messages).
const (
	DefaultSlots = 128 // the paper's queue size
	MaxSlots     = 128 // the paper's maximum
	MinSlots     = 2
)

// Layout of the queue memory, in bytes from Base. Emitted code hard-codes
// these; TestLayout pins them. See the package doc for who writes which word.
const (
	SlotWords   = MsgWords + 1 // words per slot: the record and the ready word
	SlotBytes   = 8 * SlotWords
	ReadyWord   = MsgWords      // index of the ready word within a slot
	ReadyOffset = 8 * ReadyWord // byte offset of the ready word within a slot

	OffReadStatus   = 0  // consumer: messages read (buffer read status)
	OffMaxOccupancy = 8  // consumer: high-water mark of occupancy
	OffWritten      = 64 // producer: messages written
	OffCachedRead   = 72 // producer: last read status the producer loaded
	OffMask         = 80 // slots-1, constant
	OffStalls       = 88 // producer: Sends that found the queue full
	OffStallNs      = 96 // producer: time stalled, ns
	OffSlots        = 128
	HeaderBytes     = OffSlots
)

// header is the queue's first 128 bytes, overlaid on the mapping. Consumer
// words and producer words live on separate cache lines.
type header struct {
	readStatus   uint64    // consumer
	maxOccupancy uint64    // consumer
	_            [6]uint64 // pad: producer words on their own line
	written      uint64    // producer
	cachedRead   uint64    // producer, private
	mask         uint64    // constant
	stalls       uint64    // producer
	stallNs      uint64    // producer
	_            [3]uint64 // pad to OffSlots
}

type slot [SlotWords]uint64

// Errors returned by NewQueue and Close.
var (
	ErrSize    = errors.New("mq: queue size must be a power of two between 2 and 128")
	ErrClosed  = errors.New("mq: queue closed")
	ErrServing = errors.New("mq: queue still has a running service thread")
)

// A Queue is one message queue in memory outside the Go heap (see
// mapQueue for race builds): one producer
// (Send, or native code following the protocol in the package doc) and one
// consumer (Receive, or a Service). Its zero value is not usable; make one
// with NewQueue and release it with Close.
type Queue struct {
	mem []byte
	h   *header
	n   uint64 // slot count

	closed  atomic.Bool
	serving atomic.Int32 // running service threads attached to the queue
	// asleep is set by the queue's service thread while it sleeps on a
	// timer; stallsAsleep counts the producer's stalls that began then.
	asleep       atomic.Bool
	stallsAsleep atomic.Uint64
	// stalled is set while the producer stalls on the full queue, so a
	// service thread waiting out its poll interval (Backoff.Interval)
	// polls at once.
	stalled atomic.Bool
	// wake is the service thread's wake-up channel (set by Serve).
	wake    atomic.Pointer[chan struct{}]
	closeMu sync.Mutex
	final   Stats // Stats at Close, so counters stay readable afterwards
}

// NewQueue maps a queue of the given number of slots: 0 means DefaultSlots;
// otherwise it must be a power of two in [MinSlots, MaxSlots] (ErrSize).
// Mapping failures are returned wrapped.
func NewQueue(slots int) (*Queue, error) {
	if slots == 0 {
		slots = DefaultSlots
	}
	if slots < MinSlots || slots > MaxSlots || slots&(slots-1) != 0 {
		return nil, fmt.Errorf("%w (got %d)", ErrSize, slots)
	}
	b, err := mapQueue(HeaderBytes + slots*SlotBytes)
	if err != nil {
		return nil, fmt.Errorf("mq: mapping a queue of %d slots: %w", slots, err)
	}
	q := &Queue{
		mem: b,
		h:   (*header)(unsafe.Pointer(&b[0])),
		n:   uint64(slots),
	}
	q.h.mask = uint64(slots - 1) // before any other goroutine sees q
	return q, nil
}

// mapQueue returns size bytes of zeroed, 64-byte aligned queue memory:
// an anonymous mapping outside the Go heap, so that emitted code can write
// it through a raw address and the collector never scans or moves it. Race
// builds allocate it in the Go heap instead (the collector does not move
// heap objects, and the Queue keeps it alive), because the race detector
// ignores mapped memory: there it checks every record-word access against
// the ready-word and read-status atomics, which is the memory-model argument
// of the package doc.
func mapQueue(size int) ([]byte, error) {
	if raceEnabled {
		w := make([]uint64, (size+64)/8)
		p := unsafe.Pointer(&w[0])
		p = unsafe.Add(p, (64-uintptr(p)%64)%64)
		return unsafe.Slice((*byte)(p), size), nil
	}
	return unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
}

func unmapQueue(b []byte) error {
	if raceEnabled {
		return nil
	}
	return unix.Munmap(b)
}

// Base is the address of the queue memory, for emitted code (see the layout
// constants). It stays valid until Close.
func (q *Queue) Base() uintptr { return uintptr(unsafe.Pointer(&q.mem[0])) }

// Slots is the queue's capacity in messages.
func (q *Queue) Slots() int { return int(q.n) }

// Close unmaps the queue. It fails with ErrServing while a Service still
// polls the queue, and with ErrClosed the second time. The producer must
// not Send after Close; Stats keeps returning the final counters.
func (q *Queue) Close() error {
	q.closeMu.Lock()
	defer q.closeMu.Unlock()
	if q.closed.Load() {
		return ErrClosed
	}
	if q.serving.Load() != 0 {
		return ErrServing
	}
	q.final = q.stats()
	q.closed.Store(true)
	q.h = nil
	err := unmapQueue(q.mem)
	q.mem = nil
	if err != nil {
		return fmt.Errorf("mq: unmapping a queue: %w", err)
	}
	return nil
}

// Send writes m into the queue as the next message. If the queue is full it
// stalls until the consumer frees a slot (sec. 3.4.2: a full queue stalls
// the producer; nothing is dropped), counting the stall and its time. Only
// one goroutine may send on a queue at a time. Send panics after Close.
func (q *Queue) Send(m *Message) {
	if q.h == nil {
		panic("mq: Send on a closed queue")
	}
	for !sendFast(q.h, m) {
		q.WaitSpace()
	}
	// A sleeping consumer is woken before the queue fills, so that a Go
	// producer does not stall on it (native producers wake it when they
	// stall, through WaitSpace).
	if q.asleep.Load() && q.occupancy() >= q.n/2 {
		q.wakeConsumer()
	}
}

// WaitSpace returns when the queue has room for one more message, stalling
// (and counting the stall) if it is full. A native producer that finds the
// queue full exits to Go, which calls WaitSpace and re-enters; Send calls
// it implicitly.
func (q *Queue) WaitSpace() {
	h := q.h
	if h == nil {
		panic("mq: WaitSpace on a closed queue")
	}
	n := atomic.LoadUint64(&h.written)
	h.cachedRead = atomic.LoadUint64(&h.readStatus)
	if n-h.cachedRead >= q.n {
		q.stall(n)
	}
}

// stall waits until message n fits, with backoff: spin, then yield, then
// short sleeps, so a stalled producer lets the consumer have the core.
func (q *Queue) stall(n uint64) {
	h := q.h
	t0 := time.Now()
	if q.asleep.Load() {
		q.stallsAsleep.Add(1)
	}
	q.stalled.Store(true)
	defer q.stalled.Store(false)
	for i := 0; ; i++ {
		r := atomic.LoadUint64(&h.readStatus)
		if n-r < q.n {
			h.cachedRead = r
			break
		}
		q.wakeConsumer()
		switch {
		case i < producerSpins:
		case i < producerSpins+producerYields:
			runtime.Gosched()
		default:
			time.Sleep(producerSleep)
		}
	}
	atomic.StoreUint64(&h.stalls, atomic.LoadUint64(&h.stalls)+1)
	atomic.StoreUint64(&h.stallNs, atomic.LoadUint64(&h.stallNs)+uint64(time.Since(t0)))
}

// Producer stall backoff: polls spent spinning, then yielding, before
// sleeping producerSleep per poll. A stall usually ends within one
// consumer poll, so sleeping is the rare case (a consumer that is itself
// asleep or not running).
const (
	producerSpins  = 64
	producerYields = 1024
	producerSleep  = 20 * time.Microsecond
)

// Receive copies the next message into m and frees its slot, or returns
// false at once if none is ready (or the queue is closed). Only one
// goroutine may receive from a queue at a time.
func (q *Queue) Receive(m *Message) bool {
	if q.h == nil {
		return false
	}
	return recvFast(q.h, m)
}

// Stats are a queue's counters. Counts are messages; StallNs is
// nanoseconds.
type Stats struct {
	Sent         uint64 // messages written by the producer
	Received     uint64 // messages read by the consumer (the read status)
	Stalls       uint64 // sends that found the queue full and waited
	StallNs      uint64 // total time those sends waited, ns
	MaxOccupancy uint64 // most messages in the queue at once, as seen by the consumer
	// StallsAsleep counts the Stalls that began while the queue's
	// service thread was sleeping on a timer (Backoff), not polling.
	StallsAsleep uint64
}

// Stats returns the queue's counters. It is safe to call from any goroutine
// while the queue is in use, and after Close (the final counters).
func (q *Queue) Stats() Stats {
	q.closeMu.Lock()
	defer q.closeMu.Unlock()
	if q.closed.Load() {
		return q.final
	}
	return q.stats()
}

func (q *Queue) stats() Stats {
	h := q.h
	return Stats{
		Sent:         atomic.LoadUint64(&h.written),
		Received:     atomic.LoadUint64(&h.readStatus),
		Stalls:       atomic.LoadUint64(&h.stalls),
		StallNs:      atomic.LoadUint64(&h.stallNs),
		MaxOccupancy: atomic.LoadUint64(&h.maxOccupancy),
		StallsAsleep: q.stallsAsleep.Load(),
	}
}
