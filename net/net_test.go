// Tests of trace selection: options, the Selector's counters, stops and recording rules, and the end-of-trace rules.

package net

import (
	"slices"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

func TestOptionsDefaults(t *testing.T) {
	for _, tc := range []struct {
		o           Options
		tau, maxLen int
	}{
		{Options{}, DefaultDelay, DefaultMaxTraceLen},
		{Options{Delay: NoDelay}, 0, DefaultMaxTraceLen},
		{Options{Delay: -7, MaxTraceLen: -1}, 0, DefaultMaxTraceLen},
		{Options{Delay: DelayOf(0)}, 0, DefaultMaxTraceLen},
		{Options{Delay: DelayOf(3), MaxTraceLen: 9}, 3, 9},
	} {
		if got, gotLen := tc.o.Tau(), tc.o.TraceLimit(); got != tc.tau || gotLen != tc.maxLen {
			t.Errorf("%+v: tau %d, trace limit %d; want %d, %d", tc.o, got, gotLen, tc.tau, tc.maxLen)
		}
		s := NewSelector(tc.o)
		if s.Delay() != tc.tau || s.MaxTraceLen() != tc.maxLen {
			t.Errorf("%+v: selector tau %d, trace limit %d", tc.o, s.Delay(), s.MaxTraceLen())
		}
	}
}

func TestSelectorCounts(t *testing.T) {
	for _, tc := range []struct {
		delay int // Options.Delay
		hotAt int // the bump that first reports hot
	}{{NoDelay, 1}, {1, 2}, {0, DefaultDelay + 1}, {50, 51}, {-3, 1}} {
		s := NewSelector(Options{Delay: tc.delay})
		for i := 1; i <= tc.hotAt; i++ {
			if hot := s.Bump(0x1000); hot != (i == tc.hotAt) {
				t.Fatalf("delay %d: bump %d hot=%v", tc.delay, i, hot)
			}
		}
		// The counter restarts after a prediction.
		if tc.hotAt > 1 && s.Bump(0x1000) {
			t.Errorf("delay %d: hot again right after a prediction", tc.delay)
		}
	}
	s := NewSelector(Options{Delay: 2})
	s.Bump(0x10)
	s.Bump(0x20)
	s.Abandon(0x20)
	for i := 0; i < 10; i++ {
		if s.Bump(0x20) {
			t.Fatal("abandoned head predicted hot")
		}
	}
	s.Reset()
	// Three bumps after the reset: with delay 2 only the third predicts.
	first, second, third := s.Bump(0x10), s.Bump(0x10), s.Bump(0x10)
	if first || second || !third {
		t.Error("Reset did not restart the count")
	}
	if s.Bump(0x20) {
		t.Error("Reset revived an abandoned head")
	}
	st := s.Stats()
	if st.Heads != 2 || st.Abandoned != 1 || st.Predictions != 1 || st.Bumps != 5 {
		t.Errorf("stats %+v", st)
	}
}

// TestStopsFollowHeadRule runs programs as the dispatcher drives the
// interpreter, with the selector's stops, and as the path profiler sees
// them: every dispatch stop lands on the head of the next path, and every
// path after the first starts at such a stop. One rule, seen from the
// online and the offline side.
func TestStopsFollowHeadRule(t *testing.T) {
	for name, prog := range map[string][]I{"loop": loopProgram(), "call": callProgram()} {
		t.Run(name, func(t *testing.T) {
			m, err := interp.Load(assemble(prog), interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			sel := NewSelector(Options{})
			var stops []uint64
			for !m.Exited() {
				stop, err := m.RunUntil(1000, sel.Stops())
				if err != nil {
					t.Fatal(err)
				}
				if stop == interp.StopBackward {
					stops = append(stops, m.CPU.PC)
				}
			}
			prof := profileProgram(t, prog)
			var heads []uint64
			for _, p := range prof.Order[1:] {
				heads = append(heads, prof.Paths[p].Start)
			}
			if !slices.Equal(stops, heads) {
				t.Errorf("dispatch stops %#x, path heads %#x", stops, heads)
			}
		})
	}
}

// TestSelectorRecord checks the selection rules around the recorder: a
// budget shorter than the trace drops it, and a head whose trace ends at
// a system instruction too soon is given up and made quiet.
func TestSelectorRecord(t *testing.T) {
	const T = rvtest.MakeELFText
	never := func(uint64) bool { return false }
	load := func(pc, a1 uint64) *interp.Machine {
		m, err := interp.Load(rvtest.MakeELF(program(), nil, 4096), interp.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		m.CPU.PC, m.CPU.X[11] = pc, a1
		return m
	}
	s := NewSelector(Options{})
	tr, why, err := s.Record(load(T, 5), 100, never)
	if err != nil || tr == nil || why != EndBackward || tr.Len() != 4 {
		t.Fatalf("full trace: %v %v %+v", err, why, tr)
	}
	m := load(T, 5)
	if tr, why, err := s.Record(m, 2, never); err != nil || tr != nil || why != EndMaxLen || m.Retired() != 2 {
		t.Fatalf("budget 2: %v %v %+v after %d instructions", err, why, tr, m.Retired())
	}
	if tr, _, err := s.Record(load(T, 5), 0, never); err != nil || tr != nil {
		t.Fatalf("budget 0: %v %+v", err, tr)
	}
	m = load(T+8, 0)
	if tr, why, err := s.Record(m, 100, never); err != nil || tr != nil || why != EndStop {
		t.Fatalf("short trace to ecall: %v %v %+v", err, why, tr)
	}
	if st := s.Stats(); st.Quieted != 1 || st.Abandoned != 1 {
		t.Errorf("stats after giving up a head: %+v", st)
	}
	if s.Bump(T + 8) {
		t.Error("a head given up is still counted")
	}
	// Quiet: a dispatch run no longer stops at a backward transfer to it
	// (the return at 0x14 to 0x08), but still at others (0x08 to 0x00).
	m.CPU.PC, m.CPU.X[1], m.CPU.X[10], m.CPU.X[11] = T+0x14, T+8, 0, 1
	if stop, err := m.RunUntil(1, s.Stops()); err != nil || stop != interp.StopBudget || m.CPU.PC != T+8 {
		t.Errorf("return to a quiet head: stop %v at %#x, %v", stop, m.CPU.PC, err)
	}
	if stop, err := m.RunUntil(1, s.Stops()); err != nil || stop != interp.StopBackward || m.CPU.PC != T {
		t.Errorf("branch to a counted head: stop %v at %#x, %v", stop, m.CPU.PC, err)
	}
}

// program assembles a loop with a call, for the end-of-trace rules:
//
//	0x00 addi a0,a0,1      <- head
//	0x04 jal  ra,+12       call 0x10
//	0x08 blt  a0,a1,-8     back to 0x00
//	0x0c ecall
//	0x10 addi a2,a2,1      callee
//	0x14 jalr zero,0(ra)   return (forward... to 0x08, a backward jump)
func program() []uint32 {
	e := rvtest.Encode
	type I = interp.Inst
	return []uint32{
		e(I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		e(I{Op: interp.OpJAL, Rd: 1, Imm: 12}),
		e(I{Op: interp.OpBLT, Rs1: 10, Rs2: 11, Imm: -8}),
		e(I{Op: interp.OpECALL}),
		e(I{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1}),
		e(I{Op: interp.OpJALR, Rd: 0, Rs1: 1}),
	}
}

func TestRecordEnds(t *testing.T) {
	const T = rvtest.MakeELFText
	for _, tc := range []struct {
		name   string
		start  uint64
		a1     uint64
		maxLen int
		isHead func(uint64) bool
		want   EndReason
		steps  int
		end    uint64
	}{
		// The return from the callee jumps back to 0x08: a backward jump.
		{"return is backward", T, 5, 100, nil, EndBackward, 4, T + 8},
		{"max length", T, 5, 2, nil, EndMaxLen, 2, T + 0x10},
		{"existing fragment", T, 5, 100, func(pc uint64) bool { return pc == T+0x10 }, EndFragment, 2, T + 0x10},
		{"stops before ecall", T + 8, 0, 100, nil, EndStop, 1, T + 0xc},
		{"empty at ecall", T + 0xc, 0, 100, nil, EndStop, 0, T + 0xc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := interp.Load(rvtest.MakeELF(program(), nil, 4096), interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			m.CPU.PC, m.CPU.X[11] = tc.start, tc.a1
			isHead := tc.isHead
			if isHead == nil {
				isHead = func(uint64) bool { return false }
			}
			tr, why, err := Record(m, tc.maxLen, isHead)
			if err != nil {
				t.Fatal(err)
			}
			if why != tc.want || tr.Len() != tc.steps || tr.End != tc.end || tr.Head != tc.start {
				t.Fatalf("ended by %v after %d steps at 0x%x (head 0x%x); want %v, %d, 0x%x", why, tr.Len(), tr.End, tr.Head, tc.want, tc.steps, tc.end)
			}
			if m.CPU.PC != tc.end || m.Retired() != uint64(tc.steps) {
				t.Errorf("machine at 0x%x after %d instructions; recording must execute exactly the trace", m.CPU.PC, m.Retired())
			}
		})
	}
}

func TestRecordCycle(t *testing.T) {
	// jal forward to a jal that jumps back exactly to the head: the
	// second jump is backward, so use a head reached by a forward jump.
	e := rvtest.Encode
	type I = interp.Inst
	const T = rvtest.MakeELFText
	words := []uint32{
		e(I{Op: interp.OpJAL, Imm: 8}),                   // 0x00: j 0x08
		e(I{Op: interp.OpECALL}),                         // 0x04
		e(I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}), // 0x08: head
		e(I{Op: interp.OpJAL, Imm: -4}),                  // 0x0c: j 0x08 (backward to the head)
	}
	m, err := interp.Load(rvtest.MakeELF(words, nil, 4096), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.CPU.PC = T + 8
	tr, why, err := Record(m, 100, func(uint64) bool { return false })
	if err != nil || why != EndBackward || tr.End != tr.Head || tr.Len() != 2 {
		t.Fatalf("%v %v %+v", err, why, tr)
	}
}

func TestRecordFault(t *testing.T) {
	e := rvtest.Encode
	m, err := interp.Load(rvtest.MakeELF([]uint32{e(interp.Inst{Op: interp.OpLD, Rd: 10})}, nil, 4096), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, _, err := Record(m, 100, func(uint64) bool { return false }); err == nil {
		t.Fatal("a faulting load recorded without error")
	}
}

// TestLoopExits records a loop's last pass: by default the trace ends at
// the branch back to the head, recorded as taken, so it is the loop; with
// NoLoopExits, and under path prediction, it goes on past the loop as the
// paper's rule has it. Either way recording executes what ran.
//
//	0x00 addi a0,a0,1      <- head
//	0x04 blt  a0,a1,-4     back to 0x00
//	0x08 addi a2,a2,1
//	0x0c jal  zero,-12     back to 0x00
func TestLoopExits(t *testing.T) {
	e := rvtest.Encode
	type I = interp.Inst
	const T = rvtest.MakeELFText
	words := []uint32{
		e(I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		e(I{Op: interp.OpBLT, Rs1: 10, Rs2: 11, Imm: -4}),
		e(I{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1}),
		e(I{Op: interp.OpJAL, Imm: -12}),
	}
	never := func(uint64) bool { return false }
	for _, tc := range []struct {
		name      string
		o         Options
		a0        uint64 // 4: the last pass; 0: a pass that loops
		want      EndReason
		steps     int
		branchTo  uint64 // the recorded direction of the blt
		machineAt uint64
	}{
		{"last pass", Options{}, 4, EndLoopExit, 2, T, T + 8},
		{"last pass, paper's rule", Options{NoLoopExits: true}, 4, EndBackward, 4, T + 8, T},
		{"last pass, path prediction", Options{Predict: PredictPath, Delay: NoDelay}, 4, EndBackward, 4, T + 8, T},
		{"a pass that loops", Options{}, 0, EndBackward, 2, T, T},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := interp.Load(rvtest.MakeELF(words, nil, 4096), interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			m.CPU.PC, m.CPU.X[10], m.CPU.X[11] = T, tc.a0, 5
			tr, why, err := NewSelector(tc.o).Record(m, 100, never)
			if err != nil || tr == nil {
				t.Fatalf("no trace: %v", err)
			}
			if why != tc.want || tr.Len() != tc.steps || tr.Steps[1].Next != tc.branchTo {
				t.Fatalf("ended by %v after %d steps, blt recorded to %#x; want %v, %d, %#x", why, tr.Len(), tr.Steps[1].Next, tc.want, tc.steps, tc.branchTo)
			}
			if tr.End != T {
				t.Errorf("trace ends at %#x, want the head %#x", tr.End, T)
			}
			if m.CPU.PC != tc.machineAt || m.Retired() != uint64(tc.steps) {
				t.Errorf("machine at %#x after %d instructions; want %#x after %d", m.CPU.PC, m.Retired(), tc.machineAt, tc.steps)
			}
		})
	}
}
