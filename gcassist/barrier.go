// The relational profiler's store barrier: queue 3 messages (Figure 2c's records) in, referents shaded out.

package gcassist

import (
	"fmt"

	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// BarrierQuery is the query of the relational profiling paper's Figure 2c,
// verbatim: every store with profile tag 1 (REF_STORE) is profiled, and
// the record (op1 = the value stored, op2 = the base register, op3 = the
// effective address) goes to queue 3 unless the value is null.
const BarrierQuery = "for opSTORE 1 always collect op1 op2 op3;\nif op1 <> 0 then send 3 stop else stop;"

// BarrierQueue is the queue BarrierQuery sends to.
const BarrierQueue = 3

// UseQueue makes the collector's final pauses wait for every message sent
// to q (the queue BarrierQuery sends to) to be handled by BarrierMessage,
// whose records have the layout mask. Call it before the guest runs.
func (c *Collector) UseQueue(q *mq.Queue, mask rpa.FieldMask) error {
	w, ok := mask.Word(rpa.FieldOp1)
	if !ok {
		return fmt.Errorf("gcassist: queue %d's records do not collect op1", BarrierQueue)
	}
	c.queue, c.op1Word = q, w
	return nil
}

// BarrierMessage is the store-barrier service thread's handler for one
// queue 3 message: while a cycle marks, it shades the stored referent
// (incremental update). op1 holds the low 32 bits of the value stored,
// which is the whole reference: the heap lies below 4 GiB (checked at the
// announcement). Outside a cycle the message is only counted. It is safe
// to call from a service goroutine while the guest runs.
func (c *Collector) BarrierMessage(m *mq.Message) {
	c.inflight.Add(1)
	if c.marking.Load() {
		v := uint64(uint32(m[c.op1Word]))
		if c.opts.Deterministic {
			c.pendingMu.Lock()
			c.pending = append(c.pending, v)
			c.pendingMu.Unlock()
		} else {
			c.shade(v)
		}
	}
	c.handled.Add(1)
	c.inflight.Add(-1)
}

// StartSession starts a relational profiler session (rpa.Start) whose
// program is BarrierQuery followed by the queries in extra ("" for none:
// e.g. the edge-profiling query, to run both as the paper did), with
// queue 3 consumed by BarrierMessage on its own service thread and the
// other queues as opts says (per-pc tables, or opts.Handlers). The
// collector's final pauses then wait on queue 3. The caller attaches the
// session to the guest (rvdyn.Options.Profiler does it in both modes) and
// closes it after the run. extra must not send to queue 3.
func (c *Collector) StartSession(extra string, opts rpa.Options, slots int) (*rpa.Session, error) {
	src := BarrierQuery
	if extra != "" {
		xp, err := rpa.Assemble(extra)
		if err != nil {
			return nil, err
		}
		for _, n := range xp.Queues() {
			if n == BarrierQueue {
				return nil, fmt.Errorf("gcassist: the extra queries send to queue %d, the store barrier's", BarrierQueue)
			}
		}
		src += "\n" + extra
	}
	p, err := rpa.Assemble(src)
	if err != nil {
		return nil, err
	}
	layouts, _ := p.QueueLayouts()
	handlers := map[int]func(*mq.Message){BarrierQueue: c.BarrierMessage}
	for n, h := range opts.Handlers {
		if n == BarrierQueue {
			return nil, fmt.Errorf("gcassist: a handler is given for queue %d, the store barrier's", BarrierQueue)
		}
		handlers[n] = h
	}
	opts.Handlers = handlers
	s, err := rpa.Start(p, opts, slots)
	if err != nil {
		return nil, err
	}
	if err := c.UseQueue(s.Queues[BarrierQueue], layouts[BarrierQueue]); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// HasBarrierQueue reports whether the collector has a queue 3 to wait on
// (UseQueue or StartSession was called).
func (c *Collector) HasBarrierQueue() bool { return c.queue != nil }
