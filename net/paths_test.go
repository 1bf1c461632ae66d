// Tests of the path profiler: hand-assembled programs -> known paths, heads, frequencies and order.

package net

import (
	"slices"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

type I = interp.Inst

// loopProgram counts a0 down from 6; odd and even iterations take
// different paths through the loop body:
//
//	0x00 addi a0,zero,6       entry
//	0x04 addi a1,zero,0
//	0x08 andi t0,a0,1         <- head
//	0x0c beq  t0,zero,+12     even: to 0x18
//	0x10 addi a1,a1,1
//	0x14 jal  zero,+8         to 0x1c
//	0x18 addi a1,a1,2
//	0x1c addi a0,a0,-1
//	0x20 bne  a0,zero,-24     back to 0x08
//	0x24 addi a7,zero,93
//	0x28 ecall                exit(0)
func loopProgram() []I {
	return []I{
		{Op: interp.OpADDI, Rd: 10, Imm: 6},
		{Op: interp.OpADDI, Rd: 11},
		{Op: interp.OpANDI, Rd: 5, Rs1: 10, Imm: 1},
		{Op: interp.OpBEQ, Rs1: 5, Imm: 12},
		{Op: interp.OpADDI, Rd: 11, Rs1: 11, Imm: 1},
		{Op: interp.OpJAL, Imm: 8},
		{Op: interp.OpADDI, Rd: 11, Rs1: 11, Imm: 2},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
		{Op: interp.OpBNE, Rs1: 10, Imm: -24},
		{Op: interp.OpADDI, Rd: 17, Imm: 93},
		{Op: interp.OpECALL},
	}
}

// callProgram calls a function that lies below the loop: the call is a
// backward jump (it ends the path) and the return a forward one (the path
// crosses it, section 3).
//
//	0x00 jal  zero,+12        entry: to main
//	0x04 addi a1,a1,1         f    <- head
//	0x08 jalr zero,0(ra)      ret (forward, to 0x14)
//	0x0c addi a0,zero,3       main
//	0x10 jal  ra,-12          call f (backward)   <- head
//	0x14 addi a0,a0,-1
//	0x18 bne  a0,zero,-8      back to 0x10
//	0x1c addi a7,zero,93
//	0x20 ecall                exit(0)
func callProgram() []I {
	return []I{
		{Op: interp.OpJAL, Imm: 12},
		{Op: interp.OpADDI, Rd: 11, Rs1: 11, Imm: 1},
		{Op: interp.OpJALR, Rs1: 1},
		{Op: interp.OpADDI, Rd: 10, Imm: 3},
		{Op: interp.OpJAL, Rd: 1, Imm: -12},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
		{Op: interp.OpBNE, Rs1: 10, Imm: -8},
		{Op: interp.OpADDI, Rd: 17, Imm: 93},
		{Op: interp.OpECALL},
	}
}

func assemble(prog []I) []byte {
	words := make([]uint32, len(prog))
	for i, in := range prog {
		words[i] = rvtest.Encode(in)
	}
	return rvtest.MakeELF(words, nil, 4096)
}

// profileProgram runs prog to exit with an order-keeping Profiler.
func profileProgram(t *testing.T, prog []I) *Profile {
	t.Helper()
	m, err := interp.Load(assemble(prog), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	p := NewProfiler(m.CPU.PC)
	p.KeepOrder = true
	p.Attach(m)
	if err := m.Run(10000); err != nil || !m.Exited() || m.ExitCode() != 0 {
		t.Fatalf("run: %v (exited %v, status %d)", err, m.Exited(), m.ExitCode())
	}
	return p.Finish()
}

func TestProfilerPaths(t *testing.T) {
	const T = rvtest.MakeELFText
	for _, tc := range []struct {
		name  string
		prog  []I
		heads []uint64 // by HeadID
		paths []Path   // by PathID: Start, Transfers and Freq
		order []PathID
	}{
		{
			// Entry path (even iteration a0=6), then odd (5), even (4),
			// odd (3), even (2), and the last odd iteration (1) that falls
			// out of the loop into exit: it ends with the run.
			name:  "loop",
			prog:  loopProgram(),
			heads: []uint64{T, T + 8},
			paths: []Path{{Start: T, Transfers: 2, Freq: 1}, {Start: T + 8, Transfers: 2, Freq: 2},
				{Start: T + 8, Transfers: 2, Freq: 2}, {Start: T + 8, Transfers: 1, Freq: 1}},
			order: []PathID{0, 1, 2, 1, 2, 3},
		},
		{
			// Entry to the call; f+return+loop branch; the call alone;
			// again; then f+return falling out to exit.
			name:  "backward call, forward return",
			prog:  callProgram(),
			heads: []uint64{T, T + 4, T + 0x10},
			paths: []Path{{Start: T, Transfers: 2, Freq: 1}, {Start: T + 4, Transfers: 2, Freq: 2},
				{Start: T + 0x10, Head: 2, Transfers: 1, Freq: 2}, {Start: T + 4, Head: 1, Transfers: 1, Freq: 1}},
			order: []PathID{0, 1, 2, 1, 2, 3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prof := profileProgram(t, tc.prog)
			if !slices.Equal(prof.Heads, tc.heads) {
				t.Errorf("heads %#x, want %#x", prof.Heads, tc.heads)
			}
			if !slices.Equal(prof.Order, tc.order) || prof.Flow != uint64(len(tc.order)) {
				t.Errorf("order %v (flow %d), want %v", prof.Order, prof.Flow, tc.order)
			}
			if len(prof.Paths) != len(tc.paths) {
				t.Fatalf("%d paths, want %d: %+v", len(prof.Paths), len(tc.paths), prof.Paths)
			}
			for i, want := range tc.paths {
				got := prof.Paths[i]
				if got.Start != want.Start || got.Transfers != want.Transfers || got.Freq != want.Freq || prof.Heads[got.Head] != got.Start {
					t.Errorf("path %d: %+v, want %+v", i, got, want)
				}
			}
		})
	}
}

// TestRunGuestMatchesReplay checks that the online NET replay of RunGuest
// gives the same analysis as replaying the recorded order.
func TestRunGuestMatchesReplay(t *testing.T) {
	delays := []int{0, 1, 2}
	run, err := RunGuest(Guest{Image: assemble(loopProgram())}, delays, 0.2)
	if err != nil || run.ExitCode != 0 {
		t.Fatalf("%v, exit %d", err, run.ExitCode)
	}
	prof := profileProgram(t, loopProgram())
	want := Replay(prof, delays, 0.2)
	if !slices.Equal(run.Analysis.Results, want.Results) || run.Analysis.Summary != want.Summary {
		t.Errorf("online %+v\nreplay %+v", run.Analysis, want)
	}
	// Hot (freq > 1.2): the two loop paths, 4 of 6 executions. At delay 1
	// path profiles capture 1+1; NET predicts path 2 at head 0x08's 2nd
	// execution (execution 3, an even one) and captures 2 of it, then
	// the cold exit path 3 (noise 1).
	pp, nt := run.Analysis.Find(SchemePathProfile, 1), run.Analysis.Find(SchemeNET, 1)
	if pp.Hits != 2 || nt.Hits != 2 || nt.Predicted != 2 || nt.Noise != 1 {
		t.Errorf("delay 1: path profile %+v, NET %+v", *pp, *nt)
	}
}
