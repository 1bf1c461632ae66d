package rpa

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/profhw/mq"
)

// I encodes one instruction for hand-built guests.
func I(op interp.Op, rd, rs1, rs2 uint8, imm int64) uint32 {
	return rvtest.Encode(interp.Inst{Op: op, Rd: rd, Rs1: rs1, Rs2: rs2, Imm: imm})
}

const (
	rT0, rT1, rS0, rA0, rA7 = 5, 6, 8, 10, 17
)

// taggedStores is a guest that stores t0 = 10..1 through a tagged sd, then
// zero through an untagged sd and zero through a tagged one, and exits.
func taggedStores() []byte {
	text := []uint32{
		I(interp.OpLUI, rS0, 0, 0, rvtest.MakeELFData),
		I(interp.OpADDI, rT0, 0, 0, 10),
		// loop (index 2):
		interp.TagHint(1),
		I(interp.OpSD, 0, rS0, rT0, 0),
		I(interp.OpSD, 0, rS0, 0, 8),
		interp.TagHint(1),
		I(interp.OpSD, 0, rS0, 0, 16),
		interp.TagHint(2),
		I(interp.OpSW, 0, rS0, rT0, 24),
		I(interp.OpADDI, rT0, rT0, 0, -1),
		I(interp.OpBNE, 0, rT0, 0, -4*8),
		I(interp.OpADDI, rA0, 0, 0, 0),
		I(interp.OpADDI, rA7, 0, 0, 93),
		I(interp.OpECALL, 0, 0, 0, 0),
	}
	return rvtest.MakeELF(text, nil, 4096)
}

// runGuest runs image under the interpreter with the program's queries
// installed, collecting the messages of every queue it sends to.
func runGuest(t *testing.T, image []byte, src string, seed uint64) (map[int][]mq.Message, *Engine) {
	t.Helper()
	p, err := Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]*mq.Queue, MaxQueues)
	var mu sync.Mutex
	got := map[int][]mq.Message{}
	var svcs []*mq.Service
	for _, n := range p.Queues() {
		q, err := mq.NewQueue(0)
		if err != nil {
			t.Fatal(err)
		}
		qs[n] = q
		svcs = append(svcs, mq.Serve(q, func(m *mq.Message) {
			mu.Lock()
			got[n] = append(got[n], *m)
			mu.Unlock()
		}))
	}
	g, err := NewEngine(p, Options{Seed: seed, Queues: qs})
	if err != nil {
		t.Fatal(err)
	}
	m, err := interp.Load(image, interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g.Attach(m)
	if err := m.Run(1e9); err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs {
		s.Stop()
	}
	for _, q := range qs {
		if q != nil {
			q.Close()
		}
	}
	return got, g
}

// TestFigure2cTaggedStores runs the paper's GC query (Figure 2c) on a
// hand-built guest: exactly the stores tagged 1 with a nonzero value are
// sent, with op1 = value, op2 = base, op3 = effective address.
func TestFigure2cTaggedStores(t *testing.T) {
	got, g := runGuest(t, taggedStores(), "for opSTORE 1 always collect op1 op2 op3;\nif op1 <> 0 then send 3 stop else stop;", 1)
	msgs := got[3]
	if len(msgs) != 10 {
		t.Fatalf("%d messages, want 10: %v", len(msgs), msgs)
	}
	for i, m := range msgs {
		want := mq.Message{uint64(10 - i), rvtest.MakeELFData, rvtest.MakeELFData}
		if m != want {
			t.Errorf("message %d = %v, want %v", i, m, want)
		}
	}
	st := g.Stats()
	if st.Events != 20 || st.Records != 20 || st.Sent[3] != 10 || st.Insts != 20 {
		t.Errorf("stats %+v: want 20 events and records (tagged stores), 20 instructions, 10 sent", st)
	}
}

// TestTagsAndMisc checks the tag rule (HINT at pc-4) through misc, and
// the store fields of an untagged query on all tags.
func TestTagsAndMisc(t *testing.T) {
	got, _ := runGuest(t, taggedStores(), "for opSTORE * always collect pc misc; send 0 stop;", 1)
	tags := map[uint64]uint64{}
	for _, m := range got[0] {
		tags[m[0]] = m[1] >> MiscTagShift & 3
	}
	T := uint64(rvtest.MakeELFText)
	want := map[uint64]uint64{T + 12: 1, T + 16: 0, T + 24: 1, T + 32: 2}
	if len(got[0]) != 40 || !mapsEqual(tags, want) {
		t.Fatalf("%d messages, tags by pc %v, want 40 and %v", len(got[0]), tags, want)
	}
}

func mapsEqual(a, b map[uint64]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestRecordFields checks the RV64 operand mapping of docs/rpa.md for a
// branch, a load, a store, an ALU immediate and an ecall.
func TestRecordFields(t *testing.T) {
	text := []uint32{
		I(interp.OpLUI, rS0, 0, 0, rvtest.MakeELFData),
		I(interp.OpADDI, rT0, 0, 0, -2), // t0 = -2: op1 = rs1 = 0, op2 = imm
		I(interp.OpSD, 0, rS0, rT0, 8),  // store -2 at data+8
		I(interp.OpLW, rT1, rS0, 0, 8),  // t1 = -2 (sign-extended)
		I(interp.OpBEQ, 0, rT0, rT1, 8), // taken forward: mispredicted
		I(interp.OpADDI, 0, 0, 0, 0),    // skipped
		I(interp.OpADDI, rA0, 0, 0, 7),
		I(interp.OpADDI, rA7, 0, 0, 93),
		I(interp.OpECALL, 0, 0, 0, 0),
	}
	src := `for opALU * opSTORE * opLOAD * opBRANCH * opSYS * always collect pc op1 op1up op2 op3 res1 misc; send 0 stop;`
	got, _ := runGuest(t, rvtest.MakeELF(text, nil, 4096), src, 1)
	T, D := uint64(rvtest.MakeELFText), uint64(rvtest.MakeELFData)
	byPC := map[uint64]mq.Message{}
	for _, m := range got[0] {
		byPC[m[0]] = m
	}
	m2 := uint64(math.MaxUint32 - 1) // low word of -2
	misc := func(op interp.Op, bits uint64) uint64 { return uint64(op)<<MiscOpShift | bits }
	for _, tc := range []struct {
		pc   uint64
		want mq.Message
	}{
		{T + 4, mq.Message{T + 4, 0, 0, m2, 0, m2, misc(interp.OpADDI, 0)}},
		{T + 8, mq.Message{T + 8, m2, math.MaxUint32, D, D + 8, 0, misc(interp.OpSD, 0)}},
		{T + 12, mq.Message{T + 12, 0, 0, D, D + 8, m2, misc(interp.OpLW, 0)}},
		{T + 16, mq.Message{T + 16, m2, math.MaxUint32, m2, T + 24, 1, misc(interp.OpBEQ, MiscTaken|MiscMispredict)}},
		{T + 32, mq.Message{T + 32, 93, 0, 7, 0, 7, misc(interp.OpECALL, 0)}},
	} {
		if got := byPC[tc.pc]; got != tc.want {
			t.Errorf("pc %#x: record %x, want %x", tc.pc, got, tc.want)
		}
	}
}

// TestSamplingRate checks that every N selects about 1/N of the
// instructions, that the choice depends on the seed, and that a seed
// repeats its choice.
func TestSamplingRate(t *testing.T) {
	p, err := Assemble("for opALU * every 64 collect pc; count stop;")
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64) (uint64, []int) {
		g, err := NewEngine(p, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var picked []int
		e := interp.Event{Class: interp.ClassALU}
		for i := 0; i < 640000; i++ {
			before := g.Stats().Records
			g.Event(&e)
			if g.Stats().Records != before && len(picked) < 50 {
				picked = append(picked, i)
			}
		}
		return g.Counter(0), picked
	}
	n1, p1 := run(1)
	n1b, p1b := run(1)
	_, p2 := run(2)
	if n1 != n1b || !slices.Equal(p1, p1b) {
		t.Error("the same seed chose differently")
	}
	if slices.Equal(p1, p2) {
		t.Error("seeds 1 and 2 chose the same instructions")
	}
	if math.Abs(float64(n1)-10000) > 400 { // 4 sigma
		t.Errorf("every 64 of 640000 selected %d, want about 10000", n1)
	}
}

// TestQueryTree runs a decision tree with both comparison slots, OR,
// sub-word fields, BCLR/BSET, FILTER, counters, interrupts and branches on
// crafted records.
func TestQueryTree(t *testing.T) {
	src := `for opLOAD * always collect pc op1 op2 res1;
	if pc.b0 = 0x40 or op1.h1 bset 0x40 goto big;   # pc word 0 (even), op1 word 1 (odd)
	if op2 < 10 then count;
	if res1 >= 3 then interrupt 5 stop else stop;
big:	if filter 2 and op1 bclr 1 then count;
	count stop;`
	p, err := Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	var ints []uint16
	g, err := NewEngine(p, Options{Seed: 3, OnInterrupt: func(_ int, code uint16, _ *Record) { ints = append(ints, code) }})
	if err != nil {
		t.Fatal(err)
	}
	g.Run(0, &Record{0x1000, 0, 5, 3})  // small: count at 1, interrupt 5
	g.Run(0, &Record{0x1000, 0, 50, 2}) // no count, stop
	if g.Counter(1) != 1 || !slices.Equal(ints, []uint16{5}) {
		t.Fatalf("counter %d interrupts %v, want 1 and [5]", g.Counter(1), ints)
	}
	for i := 0; i < 10000; i++ {
		g.Run(0, &Record{0x1040, 0x400000, 0, 0}) // pc.b0 = 0x40 and op1.h1 has 0x40: big
	}
	if c := g.Counter(4); c != 10000 {
		t.Errorf("count stop ran %d times, want 10000", c)
	}
	if c := g.Counter(3); c < 4700 || c > 5300 {
		t.Errorf("filter 2 passed %d of 10000", c)
	}
	st := g.Stats()
	if st.Records != 10002 || st.Insts != 3+3+3*10000 {
		t.Errorf("stats %+v", st)
	}
}

// TestCounterOverflow checks the counter embedded in a query instruction:
// at CounterMax the engine interrupts and folds it, and the total stays
// exact.
func TestCounterOverflow(t *testing.T) {
	p, _ := Assemble("for opALU * always collect pc; count stop;")
	var overflows int
	g, _ := NewEngine(p, Options{OnInterrupt: func(_ int, code uint16, _ *Record) {
		if code == CounterOverflow {
			overflows++
		}
	}})
	n := 3*CounterMax + 17
	for i := 0; i < n; i++ {
		g.Run(0, &Record{})
	}
	if g.Counter(0) != uint64(n) || overflows != 3 {
		t.Fatalf("counter %d overflows %d, want %d and 3", g.Counter(0), overflows, n)
	}
	q, _ := DecodeInst(g.Program().Code[0])
	if uint64(q.Arg) != uint64(n)-3*CounterMax {
		t.Errorf("embedded counter %d", q.Arg)
	}
}

func TestEngineRefusesMissingQueue(t *testing.T) {
	p, _ := Assemble("for opALU * always collect pc; send 2 stop;")
	if _, err := NewEngine(p, Options{}); err == nil {
		t.Fatal("NewEngine accepted a send to a queue it does not have")
	}
}

// TestAsyncInterrupt checks sec. 3.1's asynchronous interrupt: it is not
// delivered at the profiled instruction, but later, in order, with the
// record as it was; a synchronous one in the same query is delivered at
// once; the assembler and disassembler agree on the syntax.
func TestAsyncInterrupt(t *testing.T) {
	src := "for opALU * always collect pc;\nif pc > 100 then interrupt 3;\ninterrupt async 7 stop;"
	p, err := Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		code uint16
		pc   uint32
	}
	var ints []got
	g, err := NewEngine(p, Options{OnInterrupt: func(_ int, code uint16, rec *Record) { ints = append(ints, got{code, rec[0]}) }})
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{50}
	g.Run(0, &rec)
	rec[0] = 200
	g.Run(0, &rec)
	rec[0] = 999 // the pending copies must not see this
	if want := []got{{3, 200}}; !slices.Equal(ints, want) {
		t.Fatalf("before delivery: %v, want only the synchronous %v", ints, want)
	}
	g.DeliverPending()
	async := 7 | InterruptAsync
	if want := []got{{3, 200}, {async, 50}, {async, 200}}; !slices.Equal(ints, want) {
		t.Errorf("after delivery: %v, want %v", ints, want)
	}
	if st := g.Stats(); st.Interrupts != 3 || st.Async != 2 {
		t.Errorf("stats %+v: want 3 interrupts, 2 asynchronous", st)
	}
	if d := Disassemble(p); !strings.Contains(d, "interrupt async 7") || !strings.Contains(d, "interrupt 3") {
		t.Errorf("disassembly:\n%s", d)
	}
	if _, err := Assemble("for opALU * always collect pc; interrupt async 20000 stop;"); err == nil {
		t.Error("an interrupt code above InterruptAsync-1 was accepted")
	}
}
