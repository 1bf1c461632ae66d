// Trace recording: a hot head and the running machine -> the next executing tail (interp.Trace).

package net

import (
	"fmt"

	"rvdyn/interp"
)

// An EndReason says why a trace ended.
type EndReason uint8

// The end-of-trace conditions (section 3's interprocedural forward path,
// plus the limits a real system needs).
const (
	EndBackward EndReason = iota // a taken backward branch or jump (the path's end in the paper)
	EndCycle                     // control returned to the trace's own head
	EndFragment                  // control reached the head of an existing fragment
	EndMaxLen                    // the trace reached the length limit
	EndStop                      // the next instruction is one native code does not run (ecall, ebreak, fence.i, illegal; and what the dispatcher names, see Selector.Refuse)
	EndLoopExit                  // a branch back to the head fell through (the loop's last pass) and was recorded as taken (Options.NoLoopExits off)
	NumEndReasons
)

var endNames = [NumEndReasons]string{"backward branch", "cycle", "fragment head", "max length", "system instruction", "loop's last pass"}

// String names the reason.
func (r EndReason) String() string {
	if r < NumEndReasons {
		return endNames[r]
	}
	return fmt.Sprintf("EndReason(%d)", uint8(r))
}

// stops reports whether native code leaves before executing in: a
// system instruction or an illegal one (the interpreter runs them).
// Atomics, floating-point instructions and CSR accesses are recorded: the
// fragment compiler runs most natively and ends a fragment before the
// few it leaves to the interpreter (fragment.Refuses, which the
// dispatcher passes to Selector.Refuse so that traces end before them).
// Compressed instructions are their expansions: they do not stop a trace.
func stops(in interp.Inst) bool {
	switch in.Op {
	case interp.OpECALL, interp.OpEBREAK, interp.OpFENCEI, interp.OpIllegal:
		return true
	}
	return false
}

// Record executes the machine from its current pc, the trace head, and
// records the path it takes until an end condition holds; the dispatcher
// records through Selector.Record, which adds the selection rules around
// it (the length limit, heads not worth a trace). isHead reports
// whether a pc is the head of an existing fragment. The recorded
// instructions are executed (and counted) by the interpreter as usual, and
// Record executes no more than maxLen of them: a caller with an
// instruction budget passes the smaller of the trace length limit and
// what is left of the budget (a trace cut short by the budget ends with
// EndMaxLen). A
// guest fault or exit during recording ends it with the fault (the trace
// is discarded); a trace may be empty if the head itself stops recording.
//
// Record follows the paper's rules alone: a trace recorded on a loop's
// last pass goes on past the loop (see Options.NoLoopExits for the
// selector's departure).
func Record(m *interp.Machine, maxLen int, isHead func(pc uint64) bool) (*interp.Trace, EndReason, error) {
	return record(m, maxLen, isHead, nil, false)
}

// record is Record with two more end conditions: the trace also ends
// (EndStop) before an instruction for which interpOnly reports true, and,
// with loopExits, at a branch back to the head that fell through
// (EndLoopExit, see closesLoop).
func record(m *interp.Machine, maxLen int, isHead func(pc uint64) bool, interpOnly func(pc uint64, in interp.Inst) bool, loopExits bool) (*interp.Trace, EndReason, error) {
	if maxLen <= 0 {
		maxLen = DefaultMaxTraceLen
	}
	head := m.CPU.PC
	t := &interp.Trace{Head: head}
	for {
		pc := m.CPU.PC
		t.End = pc
		if in, ok := m.InstAt(pc); !ok || stops(in) || interpOnly != nil && interpOnly(pc, in) {
			return t, EndStop, nil
		}
		if len(t.Steps) >= maxLen {
			return t, EndMaxLen, nil
		}
		e, err := m.StepHooked() // a profiling hook sees recorded instructions too
		if err != nil {
			return nil, 0, err
		}
		t.Steps = append(t.Steps, interp.TraceStep{PC: e.PC, Inst: e.Inst, Next: e.Next, Addr: e.Addr})
		t.End = e.Next
		switch {
		case loopExits && closesLoop(e, head):
			t.Steps[len(t.Steps)-1].Next = head
			t.End = head
			return t, EndLoopExit, nil
		case e.Taken && headAfter(e.PC, e.Next):
			return t, EndBackward, nil
		case e.Next == head:
			return t, EndCycle, nil
		case isHead(e.Next):
			return t, EndFragment, nil
		}
	}
}

// closesLoop reports whether e is a conditional branch back to the
// trace's head that fell through: the head's loop ran its last pass. The
// next executing tail goes on past the loop (its back edge becomes a side
// exit of whatever follows, and the loop then runs as side exits to its
// own head, each pass entering the fragment again); ended here with the
// branch taken, the trace is the loop itself, which the fragment compiler
// compiles as one (checks hoisted to its entry), and the code after the
// loop, the target of the new side exit, becomes a trace head of its own.
// Only a backward branch qualifies: a forward one to the head cannot
// close a loop the head starts.
func closesLoop(e *interp.Event, head uint64) bool {
	return !e.Taken && e.Inst.IsBranch() && e.PC+uint64(e.Inst.Imm) == head && head <= e.PC
}
