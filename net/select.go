// Trace selection: trace-head candidates and the running machine -> counted heads, hot predictions and recorded next executing tails.

package net

import "rvdyn/interp"

// DefaultDelay is the default prediction delay tau: Dynamo's choice, which
// section 6 of the paper found best among 10, 50 and 100.
const DefaultDelay = 50

// NoDelay, as Options.Delay, asks for prediction delay 0: a head is
// predicted hot the first time it is seen. (Delay 0 means DefaultDelay,
// as the zero value of every option means its default.)
const NoDelay = -1

// DefaultMaxTraceLen is the default limit on the guest instructions in one
// trace.
const DefaultMaxTraceLen = 512

// minStopTrace is the shortest trace ending at a system instruction
// (ecall, fence.i, ...) worth compiling. Such a fragment returns to the
// dispatcher every time it runs, and a round trip (enter, exit, handle the
// instruction, find the next fragment) costs about what interpreting 15
// instructions does: a loop making a system call every few instructions
// ran 4x slower compiled than interpreted.
const minStopTrace = 16

// Options configure trace selection. The zero value of every field means
// its default:
//
//	field        default                    meaning
//	Delay        DefaultDelay (50)          prediction delay tau: a head is hot when its counter exceeds it;
//	                                        NoDelay (any negative value) for tau = 0
//	MaxTraceLen  DefaultMaxTraceLen (512)   guest instructions in one trace at most
//	Predict      PredictNET                 the online scheme: NET, or path profile based prediction
type Options struct {
	// Delay is the prediction delay tau, or NoDelay for 0 (see DelayOf).
	Delay int
	// MaxTraceLen limits the guest instructions in one trace (values
	// below 1 mean DefaultMaxTraceLen).
	MaxTraceLen int
	// Predict is the online prediction scheme: PredictNET (the zero
	// value) or PredictPath.
	Predict Predict
	// NoLoopExits keeps the paper's end-of-trace rule (section 3: a
	// trace ends at a taken backward branch) for a trace recorded on its
	// head's loop's last pass: the trace goes on past the loop's exit.
	// By default (our departure) such a trace ends at the branch back to
	// the head, recorded as taken, so it is the loop (EndLoopExit). NET
	// records whichever pass makes the head hot, and in a loop whose
	// inner loop runs a few passes per outer pass that is often the last;
	// Dynamo's traces of that shape run the inner loop as a side exit
	// linked back to the head, every pass entering the fragment again.
	// Under PredictPath the rule stays the paper's: it counts executed
	// paths, and the shortened trace is not one.
	NoLoopExits bool
}

// DelayOf returns the Options.Delay that asks for prediction delay tau,
// for callers holding tau as a plain count where 0 means 0 (a command-line
// flag, a delay sweep): NoDelay for tau <= 0, tau otherwise.
func DelayOf(tau int) int {
	if tau <= 0 {
		return NoDelay
	}
	return tau
}

// Tau returns the prediction delay o asks for.
func (o Options) Tau() int {
	switch {
	case o.Delay == 0:
		return DefaultDelay
	case o.Delay < 0:
		return 0
	}
	return o.Delay
}

// TraceLimit returns the trace length limit o asks for.
func (o Options) TraceLimit() int {
	if o.MaxTraceLen < 1 {
		return DefaultMaxTraceLen
	}
	return o.MaxTraceLen
}

// headAfter is the head rule's own half (the other half, the target of a
// code cache exit, is seen only by the dispatcher): the target of a taken
// backward branch or jump is a trace-head candidate. The dispatcher's
// interpreter stops (Selector.Stops), the recorder (EndBackward) and the
// path profiler (where a path ends and the next one's head is) all apply
// it, through interp.Backward.
func headAfter(pc, target uint64) bool { return interp.Backward(pc, target) }

// abandoned is the count of a head that is no longer counted.
const abandoned = ^uint32(0)

// A Selector is NET's trace selection (section 4): it defines the
// trace-head candidates, keeps one counter per candidate seen so far
// (section 4.2: "execution counts are maintained only for executed path
// heads"), predicts a head hot when its counter exceeds the prediction
// delay, and records the next executing tail from it.
//
// A trace-head candidate is the target of a taken backward branch or jump
// (the paper's path head; the interpreter stops there when run with
// Stops) or of an exit from the code cache (Dynamo's addition; the
// dispatcher sees those). The dispatcher calls Bump at each candidate
// that has no fragment, and Record when Bump says hot. The offline
// predictor (NETPredictor) counts its path heads with the same Bump.
//
// The counters key heads by a uint64 tag: the dispatcher's is the guest
// pc; the offline predictor's is the path head's number.
type Selector struct {
	tau    uint32
	maxLen int
	counts map[uint64]uint32 // abandoned for heads no longer counted
	stats  SelectorStats
	// interpOnly, if set, names instructions native code must not run:
	// traces end before them (see KeepInterpreted).
	interpOnly func(pc uint64, in interp.Inst) bool
	// refused, if set, names instructions the fragment compiler leaves
	// to the interpreter: traces end before them too (see Refuse).
	refused func(in interp.Inst) bool
	// predict is the online scheme; paths holds the path counters of
	// PredictPath (a zero count after a prediction or a Reset).
	predict Predict
	paths   map[onlinePath]uint32
	// loopExits ends a trace at a branch back to its head that fell
	// through (Options.NoLoopExits).
	loopExits bool
}

// KeepInterpreted makes every trace recorded from now on end (EndStop)
// before an instruction for which f reports true, so that it stays
// interpreted: the dispatcher passes the relational profiler's selection
// (the instructions whose class and profile tag a query selects) when the
// fragment compiler does not emit the query engine. nil removes the rule.
func (s *Selector) KeepInterpreted(f func(pc uint64, in interp.Inst) bool) { s.interpOnly = f }

// Refuse makes every trace recorded from now on end (EndStop) before an
// instruction for which f reports true: the dispatcher passes the
// instructions the fragment compiler does not compile (a few
// floating-point ones, fragment.Refuses), so no fragment is cut short at
// one. nil removes the rule.
func (s *Selector) Refuse(f func(in interp.Inst) bool) { s.refused = f }

// SelectorStats describe the counter table and the heads given up.
type SelectorStats struct {
	Heads       uint64 // distinct candidates ever counted (the counter space)
	Bumps       uint64 // counter increments
	Predictions uint64 // times a counter passed the delay
	Abandoned   uint64 // heads from which no trace can be built (Abandon, Record giving up)
	Quieted     uint64 // of which given up by Record: the trace ends at a system instruction too soon to pay
	// PredictPath only: distinct paths ever counted (its counter space,
	// section 5.2) and path executions recorded and counted.
	Paths, Profiled uint64
}

// NewSelector returns a selector with no heads counted yet.
func NewSelector(o Options) *Selector {
	s := &Selector{tau: uint32(o.Tau()), maxLen: o.TraceLimit(), counts: make(map[uint64]uint32), predict: o.Predict,
		loopExits: !o.NoLoopExits && o.Predict != PredictPath}
	if o.Predict == PredictPath {
		s.paths = make(map[onlinePath]uint32)
	}
	return s
}

// Delay returns tau.
func (s *Selector) Delay() int { return int(s.tau) }

// MaxTraceLen returns the trace length limit.
func (s *Selector) MaxTraceLen() int { return s.maxLen }

// Stops returns the interpreter stops the head rule needs: a dispatch run
// of the interpreter (interp.Machine.RunUntil) must return after a taken
// backward branch or jump, whose target is a candidate.
func (s *Selector) Stops() interp.StopSet { return interp.StopOnBackward }

// Bump counts one execution of the candidate tagged pc and reports
// whether its count now exceeds the prediction delay, i.e. whether the
// next executing tail from pc should be recorded. The counter restarts
// after a prediction, so a head whose trace is lost (a flush) must prove
// itself hot again.
//
// Under PredictPath every execution of a head that is not abandoned is
// recorded (Bump reports true and counts the head without predicting
// it); Record then counts the path and decides.
func (s *Selector) Bump(pc uint64) bool {
	n, seen := s.counts[pc]
	if n == abandoned {
		return false
	}
	if s.predict == PredictPath {
		s.stats.Bumps++
		if !seen {
			s.stats.Heads++
			s.counts[pc] = 0
		}
		return true
	}
	s.stats.Bumps++
	if !seen {
		s.stats.Heads++
	}
	n++
	if n > s.tau {
		s.counts[pc] = 0
		s.stats.Predictions++
		return true
	}
	s.counts[pc] = n
	return false
}

// Abandon stops counting pc: no useful trace starts there (for example
// its fragment does not fit in the code cache).
func (s *Selector) Abandon(pc uint64) {
	if s.counts[pc] != abandoned {
		s.counts[pc] = abandoned
		s.stats.Abandoned++
	}
}

// Abandoned reports whether pc was abandoned (Abandon, or Record giving
// up): schemes that count heads elsewhere ask before predicting it.
func (s *Selector) Abandoned(pc uint64) bool { return s.counts[pc] == abandoned }

// Reset sets every count to zero (after a code cache flush the dispatcher
// starts predicting afresh). The heads stay known, so Stats.Heads keeps
// counting distinct candidates; abandoned heads stay abandoned.
func (s *Selector) Reset() {
	for pc, n := range s.counts {
		if n != abandoned {
			s.counts[pc] = 0
		}
	}
	clear(s.paths)
}

// Stats returns the selector's statistics.
func (s *Selector) Stats() SelectorStats { return s.stats }

// Record records the next executing tail from m's pc, a head Bump has just
// predicted hot, with the end-of-trace rules of the package function
// Record. isFragment reports whether a pc is the head of a fragment in the
// code cache. The recorded instructions are executed by the interpreter
// as usual, no more than left of them (what remains of the run's
// instruction budget).
//
// The trace is nil, with no error, when there is nothing to compile:
//   - left is 0, or the budget ended the trace before the length limit
//     did (the run ends here);
//   - the trace is empty or ends at a system instruction after fewer than
//     16 instructions: native code would run a few instructions and return
//     to the dispatcher every time, so interpreting on through this head
//     is cheaper. The head is abandoned and made Quiet in m, so the
//     interpreter no longer stops at backward transfers to it.
//
// Under PredictPath the recorded path is also counted, and the trace is
// nil (with its end reason) unless the path's own counter now exceeds the
// delay: the instructions were executed and profiled, not predicted.
//
// A guest fault during recording is returned as the error.
func (s *Selector) Record(m *interp.Machine, left uint64, isFragment func(pc uint64) bool) (*interp.Trace, EndReason, error) {
	n := min(uint64(s.maxLen), left)
	if n == 0 {
		return nil, 0, nil // the dispatch loop reports the limit
	}
	head := m.CPU.PC
	stop := s.interpOnly
	if r, only := s.refused, s.interpOnly; r != nil {
		stop = func(pc uint64, in interp.Inst) bool { return r(in) || only != nil && only(pc, in) }
	}
	t, reason, err := record(m, int(n), isFragment, stop, s.loopExits)
	switch {
	case err != nil:
		return nil, 0, err
	case reason == EndMaxLen && t.Len() < s.maxLen:
		return nil, reason, nil
	case t.Len() == 0 || reason == EndStop && t.Len() < minStopTrace:
		s.Abandon(head)
		m.Quiet(head)
		s.stats.Quieted++
		return nil, reason, nil
	case s.predict == PredictPath && !s.countPath(t):
		return nil, reason, nil
	}
	return t, reason, nil
}
