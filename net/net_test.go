package net

import (
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

func TestCounters(t *testing.T) {
	for _, tc := range []struct {
		delay int
		hotAt int // the bump that first reports hot
	}{{0, 1}, {1, 2}, {50, 51}, {-3, 1}} {
		c := NewCounters(tc.delay)
		for i := 1; i <= tc.hotAt; i++ {
			if hot := c.Bump(0x1000); hot != (i == tc.hotAt) {
				t.Fatalf("delay %d: bump %d hot=%v", tc.delay, i, hot)
			}
		}
		// The counter restarts after a prediction.
		if tc.hotAt > 1 && c.Bump(0x1000) {
			t.Errorf("delay %d: hot again right after a prediction", tc.delay)
		}
	}
	c := NewCounters(2)
	c.Bump(0x10)
	c.Bump(0x20)
	c.Abandon(0x20)
	for i := 0; i < 10; i++ {
		if c.Bump(0x20) {
			t.Fatal("abandoned head predicted hot")
		}
	}
	c.Reset()
	// Three bumps after the reset: with delay 2 only the third predicts.
	first, second, third := c.Bump(0x10), c.Bump(0x10), c.Bump(0x10)
	if first || second || !third {
		t.Error("Reset did not restart the count")
	}
	st := c.Stats()
	if st.Heads != 2 || st.Abandoned != 1 || st.Predictions != 1 {
		t.Errorf("stats %+v", st)
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
