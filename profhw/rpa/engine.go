// Query engine: interp.Events in, sampled records run through the query instructions, actions (messages, counters, interrupts) out (sec. 3.4.2).

package rpa

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"rvdyn/interp"
	"rvdyn/profhw"
	"rvdyn/profhw/mq"
)

// Options configure an Engine.
type Options struct {
	// Seed seeds the random choices: every-N sampling and FILTER
	// comparisons. The same seed, program and guest give the same records.
	Seed uint64
	// Queues maps a send action's queue number to its message queue:
	// Queues[q] receives "send q". Every queue the program sends to must
	// be present (NewEngine fails otherwise): a message is never dropped.
	Queues []*mq.Queue
	// OnInterrupt, if set, is called for every interrupt action and
	// every counter overflow, on the profiled thread, with the QPC of the
	// instruction, its interrupt code (CounterOverflow for an overflow)
	// and the record. A synchronous interrupt is delivered at once: the
	// profiled instruction has retired and the guest resumes when it
	// returns (sec. 3.1). An asynchronous one (interrupt async; its code
	// has InterruptAsync set) is queued with a copy of the record and
	// delivered at the engine's next event, a later instruction of the
	// same thread, or at DeliverPending: the instructions after the
	// profiled one do not wait for the query.
	OnInterrupt func(qpc int, code uint16, rec *Record)
	// Handlers, for Start only: a queue number listed here is consumed by
	// its own service-thread handler instead of a PCTable (the concurrent
	// collector's store-barrier threads, sec. 5, read queue 3 this way).
	// The handler runs on the queue's service goroutine, one message at a
	// time in queue order, and must not retain the *mq.Message. A handler
	// for a queue the program does not send to is an error.
	Handlers map[int]func(m *mq.Message)
	// Backoff, for Start only: how an idle service thread polls its queue
	// (mq.Backoff; the zero value is mq.DefaultBackoff). A thread that
	// sleeps less wakes sooner after an idle spell, so a burst of
	// messages fills the queue (and stalls the guest) less often, at the
	// price of more polling on a shared core.
	Backoff mq.Backoff
}

// CounterOverflow is the interrupt code OnInterrupt receives when a count
// action finds its embedded counter at CounterMax.
const CounterOverflow = 0xffff

// Stats are the engine's counters.
type Stats struct {
	Events     uint64            // retired instructions of a profiled class and tag, before sampling
	Records    uint64            // records selected by sampling: queries run
	Insts      uint64            // query instructions executed
	Sent       [MaxQueues]uint64 // messages sent, per queue number
	Counts     uint64            // count actions
	Interrupts uint64            // interrupt actions and counter overflows
	Async      uint64            // of Interrupts, asynchronous ones (delivered or pending)
	Runaway    uint64            // queries cut off after MaxInsts instructions (only hand-made programs branch backward)
	Native     uint64            // of Records, those run by code emitted into fragments (UseNative)
	GapsThread uint64            // sampling gaps drawn ahead for native code by service threads (serviceDraw)
	GapsGuest  uint64            // ... and by the guest's thread (RefillGaps, and an empty ring's first)
}

// entryState is one PCT entry as the engine runs it.
type entryState struct {
	on    bool
	mask  FieldMask
	qpc   uint8
	rate  uint32
	lam   float64 // -ln(1 - 1/rate), for geometric gaps (gapLambda)
	drawn uint64  // sum of the gaps drawn so far (events = drawn - countdown)
	rnd   profhw.RNG
	exp   *rand.Rand // exponential draws from rnd (geometricGap)
	hasMi bool       // the record collects misc, which carries the tag
}

// An Engine is the query engine of sec. 3.4.2 run in Go: it is an
// interp.Hook that selects retired instructions by class and profile tag
// through the PCT, samples them, builds their records and runs the query
// instructions on them. Its evaluation is the reference semantics for
// query code emitted into fragments:
//
//  1. Entry. The instruction's entry is EntryOf(class, tag). If a class's
//     four tag entries are equal, the engine uses the tag-0 entry for every
//     tag (one sampling stream), and looks the tag up only to fill misc.
//  2. Sampling. An entry with period N keeps a countdown of the selected
//     instructions until its next sample; each sample draws the next gap
//     from a geometric distribution with p = 1/N using the entry's own
//     splitmix64 stream (seeded from Options.Seed and the entry index), so
//     each instruction is profiled independently with probability 1/N, the
//     paper's simple random sampling (sec. 3.1). N = 1 selects every one.
//  3. Record. BuildRecord: the collected fields in Table 2 order.
//  4. Query. From the entry's QPC: evaluate comparison A, then B (both,
//     always: FILTER draws from the engine's filter stream in that order),
//     combine with AND or OR, act on a match, go to the match or miss
//     successor; at most MaxInsts instructions per record.
//
// An Engine is not safe for concurrent use; it runs on the guest's
// goroutine, and its service threads read the queues.
type Engine struct {
	prog    Program
	insts   []QueryInst
	ents    [NumEntries]entryState
	tagged  [NumOpClasses]bool // the class's tag entries differ
	classOf [interp.NumClasses]Class
	filter  profhw.RNG
	// left is the sampling countdown per entry: selected instructions
	// until the next sample, 1 meaning the next one. It points at own
	// unless UseCountdowns moved it into memory native code shares.
	left   *[NumEntries]uint64
	own    [NumEntries]uint64
	folded []uint64 // counter values folded in at overflow, per QPC
	// pending are the asynchronous interrupts raised and not delivered
	// yet (DeliverPending).
	pending []pendingInterrupt
	opts    Options
	m       *interp.Machine
	stats   Stats
	rec     Record
	// nat is the memory shared with native queries (UseNative), ahead
	// the entries whose gaps are drawn ahead into it.
	nat     *NativeState
	ahead   []int
	isAhead [NumEntries]bool
	// drawMu orders the draws from the entries' streams between the
	// guest's thread and the service threads (serviceDraw): it guards every
	// entryState's rnd, exp and drawn once an entry is ahead, the rings'
	// Drawn, ahead's growth, and the Gaps* counters of stats.
	drawMu     sync.Mutex
	drawThread bool        // UseNative let the service threads draw gaps
	drawOn     atomic.Bool // ... and an entry is ahead: they look (serviceDraw)
}

// NewEngine prepares p to run. It fails if p is not valid (Validate) or
// sends to a queue that Options.Queues lacks.
func NewEngine(p *Program, opts Options) (*Engine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := &Engine{prog: Program{PCT: p.PCT, Code: append([]uint64(nil), p.Code...)}, opts: opts}
	g.left = &g.own
	g.folded = make([]uint64, len(p.Code))
	for i, w := range p.Code {
		q, _ := DecodeInst(w)
		if q.Action == ActSend && (int(q.Arg) >= len(opts.Queues) || opts.Queues[q.Arg] == nil) {
			return nil, fmt.Errorf("rpa: query instruction %d sends to queue %d, which has no message queue", i, q.Arg)
		}
		g.insts = append(g.insts, q)
	}
	seed := opts.Seed
	g.filter = profhw.NewRNG(seed ^ 0x5bd1e995)
	for i, e := range p.PCT {
		s := &g.ents[i]
		s.on, s.mask, s.qpc, s.rate = e.On(), e.Mask(), e.QPC(), e.Rate()
		s.hasMi = s.mask.Has(FieldMisc)
		s.rnd = profhw.NewRNG(seed + uint64(i+1)*0x9e3779b97f4a7c15)
		s.exp = newExp(&s.rnd)
		s.lam = gapLambda(s.rate)
		g.left[i] = s.gap()
		s.drawn = g.left[i]
	}
	for c := Class(0); c < NumOpClasses; c++ {
		e0 := p.PCT[EntryOf(c, 0)]
		for t := uint8(1); t < NumTags; t++ {
			if p.PCT[EntryOf(c, t)] != e0 {
				g.tagged[c] = true
			}
		}
	}
	for ic := interp.Class(0); ic < interp.NumClasses; ic++ {
		g.classOf[ic] = FromInterp(ic)
	}
	return g, nil
}

// gap draws the entry's next gap (geometricGap).
func (s *entryState) gap() uint64 { return geometricGap(s.exp, s.rate, s.lam) }

// ClassMask returns the interpreter classes the engine must see: those
// with an active PCT entry. The event classes map to none.
func (g *Engine) ClassMask() interp.ClassMask {
	var m interp.ClassMask
	for i := range g.ents {
		if !g.ents[i].on {
			continue
		}
		if ic, ok := Entry(i).Class().ToInterp(); ok {
			m |= interp.MaskOf(ic)
		}
	}
	return m
}

// Selects reports whether the instruction in at pc has an active PCT
// entry: its class and profile tag select it, so every retired execution
// of it goes through the engine (before sampling). Instructions of
// classes the engine never sees (ClassMask) are not selected.
func (g *Engine) Selects(pc uint64, in interp.Inst) bool {
	c := g.classOf[in.Op.Class()&7]
	ent := EntryOf(c, 0)
	if g.tagged[c] {
		ent = EntryOf(c, g.tagAt(pc))
	}
	return g.ents[ent].on
}

// Attach installs the engine as m's profiling hook on ClassMask's classes
// and reads profile tags from m's text. Detach with m.SetHook(0, nil).
func (g *Engine) Attach(m *interp.Machine) {
	g.m = m
	m.SetHook(g.ClassMask(), g)
}

func (g *Engine) tagAt(pc uint64) uint8 {
	if g.m == nil {
		return 0
	}
	return g.m.ProfileTag(pc)
}

// Event runs one retired instruction through the PCT and, if it is
// sampled, through its query (interp.Hook).
func (g *Engine) Event(e *interp.Event) {
	if len(g.pending) > 0 {
		g.DeliverPending()
	}
	c := g.classOf[e.Class&7]
	var tag uint8
	tagKnown := false
	ent := EntryOf(c, 0)
	if g.tagged[c] {
		tag, tagKnown = g.tagAt(e.PC), true
		ent = EntryOf(c, tag)
	}
	s := &g.ents[ent]
	if !s.on {
		return
	}
	if g.left[ent]--; g.left[ent] != 0 {
		return
	}
	g.left[ent] = g.nextGap(ent, s)
	if s.hasMi && !tagKnown {
		tag = g.tagAt(e.PC)
	}
	BuildRecord(&g.rec, s.mask, e, tag)
	g.Run(int(s.qpc), &g.rec)
}

// SkipCountdown returns the countdown of ic's entry (interp.Skipper): the
// interpreter may retire an execution of the class without an Event,
// decrementing it, while it is above 1, which is all Event would do
// (step 2 above). Nil when Event must see the execution: the class's
// tag entries differ (the entry depends on the pc), its entry is off,
// or asynchronous interrupts are pending (Event delivers them first).
func (g *Engine) SkipCountdown(ic interp.Class) *uint64 {
	c := g.classOf[ic&7]
	ent := EntryOf(c, 0)
	if len(g.pending) > 0 || g.tagged[c] || !g.ents[ent].on {
		return nil
	}
	return &g.left[ent]
}

// Run runs the query instructions from qpc on rec and performs their
// actions. It counts the record as selected.
func (g *Engine) Run(qpc int, rec *Record) {
	g.stats.Records++
	for steps := 0; ; steps++ {
		if steps == MaxInsts || qpc >= len(g.insts) {
			if steps == MaxInsts {
				g.stats.Runaway++
			}
			return
		}
		q := &g.insts[qpc]
		g.stats.Insts++
		a := g.compare(q.A, q.Imm, rec)
		b := g.compare(q.B, q.Imm, rec)
		match := a && b
		if q.Or {
			match = a || b
		}
		next := q.Miss
		if match {
			next = q.Match
			g.act(qpc, q, rec)
		}
		switch next {
		case NextStop:
			return
		case NextBranch:
			qpc = int(q.Target)
		default:
			qpc++
		}
	}
}

// compare evaluates one comparison on the record.
func (g *Engine) compare(c Cmp, imm uint16, rec *Record) bool {
	if r := c.Op.FilterRate(); r != 0 {
		return g.filter.Below(uint64(r)) == 0
	}
	v := rec[c.Word%MaxRecordWords] >> (8 * c.Byte)
	switch c.Size {
	case Size8:
		v &= 0xff
	case Size16:
		v &= 0xffff
	}
	i := uint32(imm)
	switch c.Op {
	case CmpTrue:
		return true
	case CmpLT:
		return v < i
	case CmpGE:
		return v >= i
	case CmpEQ:
		return v == i
	case CmpNE:
		return v != i
	case CmpGT:
		return v > i
	case CmpLE:
		return v <= i
	case CmpBCLR:
		return v&i == 0
	case CmpBSET:
		return v&i == i
	}
	return false // CmpFalse
}

// act performs the instruction's action.
func (g *Engine) act(qpc int, q *QueryInst, rec *Record) {
	switch q.Action {
	case ActSend:
		var m mq.Message
		for i, w := range rec {
			m[i] = uint64(w)
		}
		g.opts.Queues[q.Arg].Send(&m)
		g.stats.Sent[q.Arg]++
	case ActCount:
		g.stats.Counts++
		if q.Arg == CounterMax {
			g.folded[qpc] += CounterMax
			q.Arg = 0
			g.interrupt(qpc, CounterOverflow, rec)
		}
		q.Arg++
	case ActInterrupt:
		g.interrupt(qpc, q.Arg, rec)
	}
}

func (g *Engine) interrupt(qpc int, code uint16, rec *Record) {
	g.stats.Interrupts++
	if code != CounterOverflow && code&InterruptAsync != 0 {
		g.stats.Async++
		if g.opts.OnInterrupt != nil {
			g.pending = append(g.pending, pendingInterrupt{qpc, code, *rec})
		}
		return
	}
	if g.opts.OnInterrupt != nil {
		g.opts.OnInterrupt(qpc, code, rec)
	}
}

// A pendingInterrupt is an asynchronous interrupt not delivered yet.
type pendingInterrupt struct {
	qpc  int
	code uint16
	rec  Record
}

// DeliverPending hands the asynchronous interrupts not delivered yet to
// Options.OnInterrupt, in the order they were raised. The engine calls it
// at each event; call it once more after the run for the last ones.
func (g *Engine) DeliverPending() {
	ps := g.pending
	g.pending = nil
	for i := range ps {
		g.opts.OnInterrupt(ps[i].qpc, ps[i].code, &ps[i].rec)
	}
}

// Counter returns the total count of the count action at qpc: the value
// folded in at overflows plus the counter embedded in the instruction.
func (g *Engine) Counter(qpc int) uint64 {
	if qpc < 0 || qpc >= len(g.insts) {
		return 0
	}
	return g.folded[qpc] + uint64(g.insts[qpc].Arg)*boolU(g.insts[qpc].Action == ActCount)
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Program returns the program as the engine holds it now: the counters
// embedded in count instructions have their current values.
func (g *Engine) Program() *Program {
	p := &Program{PCT: g.prog.PCT, Code: make([]uint64, len(g.insts))}
	for i, q := range g.insts {
		p.Code[i] = q.Encode()
	}
	return p
}

// Stats returns the engine's counters. Events counts the selected
// executions in native code too: each entry's countdown tells how many
// of its drawn gaps have been used up.
func (g *Engine) Stats() Stats {
	g.drawMu.Lock()
	defer g.drawMu.Unlock()
	st := g.stats
	for i := range g.ents {
		if s := &g.ents[i]; s.on {
			st.Events += s.drawn - g.left[i] - g.unusedGaps(i)
			if g.nat != nil {
				st.Events += g.nat.Always[i]
			}
		}
	}
	if ns := g.nat; ns != nil {
		st.Records += ns.Records
		st.Insts += ns.Insts
		st.Native += ns.Records
		for q := range st.Sent {
			st.Sent[q] += ns.Sent[q]
		}
	}
	return st
}

// UseCountdowns moves the engine's sampling countdowns (one per PCT
// entry, see Selection) into c, copying their current values, so that
// code emitted into fragments can decrement them too: native code
// decrements an entry's countdown for every selected execution and hands
// the execution that finds it at 1 to the engine (Event), which
// samples it and draws the next gap. c must stay valid while the engine
// runs; the engine and the native code run on one goroutine.
func (g *Engine) UseCountdowns(c *[NumEntries]uint64) {
	*c = *g.left
	g.left = c
}

// Selection returns, for the instruction in at pc, the PCT entry whose
// sampling countdown it decrements and the entry's sampling period N
// (1: always), and ok false if the PCT does not select it. It is what
// the fragment compiler needs to emit the sampling decision.
func (g *Engine) Selection(pc uint64, in interp.Inst) (entry int, period uint32, ok bool) {
	c := g.classOf[in.Op.Class()&7]
	ent := EntryOf(c, 0)
	if g.tagged[c] {
		ent = EntryOf(c, g.tagAt(pc))
	}
	s := &g.ents[ent]
	if !s.on {
		return 0, 0, false
	}
	return int(ent), max(s.rate, 1), true
}

// SampledEntry returns the PCT entry whose sampling countdown native
// code should keep in a register (the index into the countdowns
// UseCountdowns shares): the first entry, in PCT order, that samples
// every N with N > 1. In the paper's queries there is one (Figure 2a's
// edge query: branches). ok is false when no entry samples.
func (g *Engine) SampledEntry() (entry int, ok bool) {
	for i := range g.ents {
		if s := &g.ents[i]; s.on && s.rate > 1 {
			return i, true
		}
	}
	return 0, false
}

// Queues returns the queue numbers the program sends to, ascending.
func (p *Program) Queues() []int {
	var seen [MaxQueues]bool
	for _, w := range p.Code {
		if q, err := DecodeInst(w); err == nil && q.Action == ActSend {
			seen[q.Arg] = true
		}
	}
	var qs []int
	for i, s := range seen {
		if s {
			qs = append(qs, i)
		}
	}
	return qs
}
