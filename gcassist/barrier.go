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
}
