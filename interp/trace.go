// Traces: the record of one next executing tail, as the recorder hands it to the fragment compiler.

package interp

// A TraceStep is one instruction executed while recording a trace.
type TraceStep struct {
	PC   uint64 // guest address of the instruction
	Inst Inst   // the decoded instruction
	Next uint64 // where control went after it (the recorded direction)
	Addr uint64 // loads and stores: the guest address accessed
}

// A Trace is a recorded path: the steps executed from the trace head, in
// order. End is where control went after the last step; the path may cross
// calls and returns and may end anywhere (see package net for the rules).
type Trace struct {
	Head  uint64
	Steps []TraceStep
	End   uint64
}

// Len returns the number of guest instructions in the trace.
func (t *Trace) Len() int { return len(t.Steps) }
