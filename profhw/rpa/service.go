// Sessions: a Program in, its message queues, service threads and engine running, and per-pc tables and stats out (sec. 3.4.2).

package rpa

import (
	"fmt"
	"sort"
	"sync"

	"rvdyn/interp"
	"rvdyn/profhw/mq"
)

// A PCRow is one line of a service thread's table: the messages about one
// instruction, and for records that carry a branch outcome (misc, or res1
// of an opBRANCH record), how many said taken and not taken.
type PCRow struct {
	Messages, Taken, NotTaken uint64
}

// A PCTable is the table a service thread keeps for one queue: messages
// per pc. It reads the layout (FieldMask) of the query that sends to the
// queue: pc from the pc word (pc 0 if the query does not collect pc), the
// outcome from misc's MiscTaken bit, or else from res1 (1 taken).
// Handle runs on the service goroutine; Rows may be called from any.
type PCTable struct {
	mask                FieldMask
	pcWord, outWord     int // -1: not collected
	outMisc, hasOutcome bool

	mu   sync.Mutex
	rows map[uint64]*PCRow
}

// NewPCTable returns an empty table for records of the given layout.
func NewPCTable(mask FieldMask) *PCTable {
	t := &PCTable{mask: mask, pcWord: -1, outWord: -1, rows: map[uint64]*PCRow{}}
	if w, ok := mask.Word(FieldPC); ok {
		t.pcWord = w
	}
	if w, ok := mask.Word(FieldMisc); ok {
		t.outWord, t.outMisc, t.hasOutcome = w, true, true
	} else if w, ok := mask.Word(FieldRes1); ok {
		t.outWord, t.hasOutcome = w, true
	}
	return t
}

// HasPC reports whether the records carry pc; if not, every message
// lands in the row of pc 0.
func (t *PCTable) HasPC() bool { return t.pcWord >= 0 }

// HasOutcome reports whether the records carry a branch outcome.
func (t *PCTable) HasOutcome() bool { return t.hasOutcome }

// Handle folds one message into the table (the service thread's work).
func (t *PCTable) Handle(m *mq.Message) {
	var pc uint64
	if t.pcWord >= 0 {
		pc = m[t.pcWord]
	}
	t.mu.Lock()
	r := t.rows[pc]
	if r == nil {
		r = &PCRow{}
		t.rows[pc] = r
	}
	r.Messages++
	if t.hasOutcome {
		taken := m[t.outWord] == 1
		if t.outMisc {
			taken = m[t.outWord]&MiscTaken != 0
		}
		if taken {
			r.Taken++
		} else {
			r.NotTaken++
		}
	}
	t.mu.Unlock()
}

// Rows returns a copy of the table.
func (t *PCTable) Rows() map[uint64]PCRow {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[uint64]PCRow, len(t.rows))
	for pc, r := range t.rows {
		out[pc] = *r
	}
	return out
}

// SortedPCs returns the pcs of rows in ascending order.
func SortedPCs(rows map[uint64]PCRow) []uint64 {
	pcs := make([]uint64, 0, len(rows))
	for pc := range rows {
		pcs = append(pcs, pc)
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	return pcs
}

// QueueLayouts returns, for every queue the program sends to, the record
// layout of the query whose instruction sends to it (a query's
// instructions run from its QPC to the next query's). ok is false if two
// queries with different layouts send to one queue: its messages cannot
// be told apart.
func (p *Program) QueueLayouts() (layouts map[int]FieldMask, ok bool) {
	starts := map[int]FieldMask{}
	for _, e := range p.PCT {
		if e.On() {
			starts[int(e.QPC())] = e.Mask()
		}
	}
	layouts, ok = map[int]FieldMask{}, true
	var cur FieldMask
	for i, w := range p.Code {
		if m, s := starts[i]; s {
			cur = m
		}
		q, err := DecodeInst(w)
		if err != nil || q.Action != ActSend {
			continue
		}
		if prev, seen := layouts[int(q.Arg)]; seen && prev != cur {
			ok = false
		}
		layouts[int(q.Arg)] = cur
	}
	return layouts, ok
}

// A Session runs a Program: one message queue and one service thread (a
// goroutine) per queue the program sends to, each thread folding its
// messages into a PCTable or handing them to the caller's handler
// (Options.Handlers), and the Engine that feeds them. The root package
// attaches a Session to a guest run in either mode (rvdyn.Options.Profiler).
type Session struct {
	Engine *Engine
	Queues []*mq.Queue   // indexed by queue number; nil where unused
	Tables []*PCTable    // indexed by queue number; nil where unused or consumed by a handler
	svcs   []*mq.Service // indexed by queue number; nil where unused
	closed bool
}

// Start creates the queues (slots messages each: 0 = mq.DefaultSlots),
// starts their service threads and the engine. A queue listed in
// opts.Handlers gets that handler as its service thread's work; every
// other queue gets a PCTable. opts.Queues is filled in by Start. Call
// Close when the guest is done.
//
// Errors: the program is invalid; a handler names a queue the program
// does not send to; two queries with different fields send to one queue
// that a PCTable would read; the queues cannot be mapped.
func Start(p *Program, opts Options, slots int) (*Session, error) {
	layouts, ok := p.QueueLayouts()
	sends := p.Queues()
	for n := range opts.Handlers {
		if _, used := layouts[n]; !used || opts.Handlers[n] == nil {
			return nil, fmt.Errorf("rpa: a handler is given for queue %d, which no query sends to (queues used: %v)", n, sends)
		}
	}
	if !ok {
		for _, n := range sends {
			if !mixedLayouts(p, n) || opts.Handlers[n] != nil {
				continue
			}
			return nil, fmt.Errorf("rpa: queries with different fields send to queue %d: its service thread cannot read them (give the queue a handler)", n)
		}
	}
	s := &Session{Queues: make([]*mq.Queue, MaxQueues), Tables: make([]*PCTable, MaxQueues), svcs: make([]*mq.Service, MaxQueues)}
	for _, n := range sends {
		q, err := mq.NewQueue(slots)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.Queues[n] = q
	}
	opts.Queues = s.Queues
	g, err := NewEngine(p, opts)
	if err != nil {
		s.Close()
		return nil, err
	}
	for _, n := range sends {
		h := opts.Handlers[n]
		if h == nil {
			s.Tables[n] = NewPCTable(layouts[n])
			h = s.Tables[n].Handle
		}
		h = g.drawHandler(h)
		s.svcs[n] = mq.ServeQueues([]*mq.Queue{s.Queues[n]}, func(_ int, m *mq.Message) { h(m) }, opts.Backoff)
	}
	s.Engine = g
	return s, nil
}

// mixedLayouts reports whether queries with different field masks send to
// queue n.
func mixedLayouts(p *Program, n int) bool {
	starts := map[int]FieldMask{}
	for _, e := range p.PCT {
		if e.On() {
			starts[int(e.QPC())] = e.Mask()
		}
	}
	var cur FieldMask
	seen, first := false, FieldMask(0)
	for i, w := range p.Code {
		if m, s := starts[i]; s {
			cur = m
		}
		q, err := DecodeInst(w)
		if err != nil || q.Action != ActSend || int(q.Arg) != n {
			continue
		}
		if seen && cur != first {
			return true
		}
		seen, first = true, cur
	}
	return false
}

// Attach installs the session's engine on m (Engine.Attach).
func (s *Session) Attach(m *interp.Machine) { s.Engine.Attach(m) }

// Close stops the service threads after they drained their queues, and
// unmaps the queues; the tables and stats stay readable. Stop the guest
// (or detach the engine) first.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.Engine != nil {
		s.Engine.StopNative()
		s.Engine.DeliverPending() // the run's last asynchronous interrupts
	}
	for _, v := range s.svcs {
		if v != nil {
			v.Stop()
		}
	}
	for _, q := range s.Queues {
		if q != nil {
			q.Close()
		}
	}
}

// QueueStats is one queue's line of a session report.
type QueueStats struct {
	Queue int `json:"queue"`
	mq.Stats
	// Consumer is the queue's service thread's: wake-ups by backoff
	// phase, how full it found the queue, messages per burst, sleeps.
	Consumer mq.ConsumerStats `json:"consumer"`
}

// Report is a session's statistics: the engine's counters and each
// queue's (messages, stalls, stall time, max occupancy).
type Report struct {
	Events     uint64       `json:"events"`      // instructions of a profiled class and tag
	Records    uint64       `json:"records"`     // records selected (queries run)
	Insts      uint64       `json:"query_insts"` // query instructions executed
	Counts     uint64       `json:"counts"`
	Interrupts uint64       `json:"interrupts"`
	Runaway    uint64       `json:"runaway,omitempty"`
	Native     uint64       `json:"native_records,omitempty"` // of Records, those run in fragments
	GapsThread uint64       `json:"gaps_thread,omitempty"`    // sampling gaps drawn ahead by service threads
	GapsGuest  uint64       `json:"gaps_guest,omitempty"`     // ... and by the guest's thread
	Queues     []QueueStats `json:"queues"`
}

// Report returns the session's statistics.
func (s *Session) Report() Report {
	st := s.Engine.Stats()
	r := Report{Events: st.Events, Records: st.Records, Insts: st.Insts, Counts: st.Counts, Interrupts: st.Interrupts, Runaway: st.Runaway, Native: st.Native, GapsThread: st.GapsThread, GapsGuest: st.GapsGuest}
	for n, q := range s.Queues {
		if q != nil {
			qs := QueueStats{Queue: n, Stats: q.Stats()}
			if v := s.svcs[n]; v != nil {
				qs.Consumer = v.Consumer()
			}
			r.Queues = append(r.Queues, qs)
		}
	}
	return r
}
