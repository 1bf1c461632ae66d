// Dispatcher ("central control"): guest pc -> enter a fragment, or interpret and predict, repeat.

package engine

import (
	"errors"
	"time"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/exit"
	"rvdyn/interp"
	"rvdyn/net"
)

// pageSize is the granularity at which rewritten code is tracked.
const pageSize = 4096

// quantum bounds the guest instructions one native entry or one interpreter
// run may retire before control comes back to the dispatcher loop (the
// budget a fragment counts down to its poll point).
const quantum = 1 << 22

// dispatch runs the guest in dynamo mode:
//
//	loop:
//	  fragment for pc in the cache? -> run it natively until an exit;
//	                                   the exit target is a trace-head candidate
//	  otherwise interpret until a stop of the selector's (a taken backward
//	  branch: its target is a trace-head candidate), a transfer to a
//	  fragment entry, or a fence.i
//	  candidate's counter > delay    -> record the next executing tail,
//	                                   compile it, insert it, link it
//	  (--compile=async: the trace is compiled on a service thread and
//	  installed at the top of the loop once it is ready; compilequeue.go)
//	  (--predict=path: every path from a candidate is recorded and
//	  counted; a path whose own counter > delay is compiled)
//	  at each window's end, the cache policy may flush or bail out
func (vm *VM) dispatch() error {
	m := vm.m
	maxTrace := uint64(vm.sel.MaxTraceLen())
	stops := dispatchStops(vm.sel)
	pol := codecache.NewPolicy(vm.opts.Policy)
	defer vm.stopCompiler()
	for !m.Exited() {
		if vm.bailed {
			return vm.interpret() // gave up optimizing: plain interpretation from here on
		}
		if vm.expired() {
			return ErrTimeout
		}
		if m.Exited() {
			return nil // killed by a signal expired delivered
		}
		window := pol.WindowStart()
		d := pol.Tick(m.Retired(), vm.ctr.traces, vm.ctr.cacheInstructions, vm.ctr.capacityFlushes)
		if vm.phaseGone != nil && pol.WindowStart() != window {
			// A window has passed since the last phase flush: did
			// its fragments come back?
			pol.Regret(vm.phaseRemoved, vm.phaseRemoved-len(vm.phaseGone))
			vm.ctr.phaseBackoffs = pol.Backoffs()
			vm.phaseGone = nil
		}
		switch d {
		case codecache.PhaseFlush:
			vm.ctr.phaseFlushes++
			vm.phaseFlush(window)
		case codecache.BailOut:
			vm.bailed = true
			vm.ctr.bailedOutAt = m.Retired()
			vm.flush()
			continue
		}
		if pol.Cut(m.Retired(), m.IntervalCuts(), vm.cache.Len() == 0) {
			// A munmap or mprotect cut a fast interval short: compile
			// against the new layout (codecache.Policy.Cut).
			vm.ctr.cutFlushes++
			if vm.opts.Policy.CutRecord {
				vm.flush()
			} else if err := vm.retranslate(); err != nil {
				return err
			}
		}
		// The safe point: no native code runs, and the next lookup may
		// enter what the service thread has compiled.
		if err := vm.installReady(); err != nil {
			return err
		}
		vm.takeSample()
		remaining := vm.left()
		if remaining == 0 {
			return interp.ErrLimit
		}
		remaining = min(remaining, vm.untilSample())
		// Native code may overshoot its budget by up to one trace, and
		// an exit to the interpreter retires one more instruction; keep
		// that much in reserve so the limit and the sample points are
		// exact.
		if f := vm.cache.Lookup(vm.st.CPU.PC); f != nil && remaining > maxTrace+1 {
			if err := vm.runNative(f, remaining-maxTrace-1); err != nil && !vm.caught(err) {
				return err
			}
			continue
		}
		if vm.profileNext {
			// Path profiling: the last recorded path ended at a head,
			// and the path from there is profiled too.
			vm.profileNext = false
			if err := vm.candidate(vm.st.CPU.PC); err != nil && !vm.caught(err) {
				return err
			}
			continue
		}
		stop, err := m.RunUntil(min(remaining, quantum), stops)
		if err != nil {
			if vm.caught(err) {
				continue
			}
			return err
		}
		if e := m.EnvEpoch(); e != vm.envEpoch {
			// The guest took access away from its own image (mprotect
			// or munmap of its data): fragments proved constant
			// addresses against the old Env.
			vm.envEpoch, vm.env = e, fragment.EnvOf(m)
			vm.flush()
		}
		switch stop {
		case interp.StopBackward:
			if err := vm.candidate(vm.st.CPU.PC); err != nil && !vm.caught(err) {
				return err
			}
		case interp.StopFenceI:
			vm.dropStale(m.TextChanged())
		}
	}
	return nil
}

// dispatchStops are the interpreter stops of a dispatch run: the
// selector's (trace-head candidates), transfers to fragment entries, and
// fence.i (stale code).
func dispatchStops(sel *net.Selector) interp.StopSet {
	return sel.Stops() | interp.StopOnMarked | interp.StopOnFenceI
}

// left returns how many more instructions the guest may retire before
// Options.MaxInstructions (the largest int64 if there is no limit).
func (vm *VM) left() uint64 {
	lim := vm.opts.MaxInstructions
	switch r := vm.m.Retired(); {
	case lim == 0:
		return 1<<63 - 1
	case r >= lim:
		return 0
	default:
		return lim - r
	}
}

// runNative enters fragment f and handles the exit it returns by.
func (vm *VM) runNative(f *codecache.Fragment, budget uint64) error {
	st := vm.st
	st.Budget = int64(min(budget, quantum))
	before := st.Budget
	e := vm.cache.Enter(f, st, vm.m.Mem.Base())
	if vm.rpaNative != nil {
		vm.rpaNative.RefillGaps()
	}
	n := uint64(before - st.Budget)
	f.Entries++
	f.Retired += n
	e.Frag.Exits++
	vm.m.AddRetired(n)
	vm.ctr.cacheInstructions += n
	if e.Kind != exit.Indirect { // an indirect exit left its target in PC
		st.CPU.PC = e.Target
	}
	switch {
	case st.Budget <= 0 && e.Kind != exit.Interp && e.Kind != exit.Sample:
		vm.ctr.exits[exit.Budget]++
	case e.Kind == exit.Branch:
		vm.ctr.exits[exit.Branch]++
		if e.Spec && vm.vals.Failed(e.From) {
			vm.despecialize(e.Frag)
		}
	case e.Kind == exit.Indirect:
		vm.ctr.exits[exit.Indirect]++
		if g := vm.cache.Lookup(st.CPU.PC); g != nil {
			vm.cache.Replace(g) // the table dropped it for two other heads of its set
		}
	default:
		if e.Kind == exit.Sample {
			vm.ctr.exits[exit.Sample]++
		} else {
			vm.ctr.exits[exit.Interp]++
		}
		if e.EntryTest {
			vm.entryTestFailed(e.Frag)
		}
		// The instruction native code left to the interpreter: a
		// faulting access, a jalr whose target is not the recorded one,
		// or the relational profiler's sample, which the hook sees.
		if _, err := vm.m.StepHooked(); err != nil {
			return err
		}
		if vm.m.Exited() {
			return nil
		}
	}
	return vm.candidate(st.CPU.PC)
}

// candidate counts an execution of the trace-head candidate at pc and, if
// NET predicts it hot, records, compiles and inserts its trace.
func (vm *VM) candidate(pc uint64) error {
	if vm.isFragment(pc) || !vm.bump(pc) {
		return nil
	}
	at := vm.m.Retired()
	t0 := time.Now()
	trace, reason, err := vm.sel.Record(vm.m, min(vm.left(), vm.untilSample()), vm.isFragment)
	t1 := time.Now()
	vm.ctr.recordTime += t1.Sub(t0)
	// Under path profile prediction every path from a head is recorded:
	// when this one ended at the next head, profile from there as well.
	vm.profileNext = err == nil && vm.sel.Predict() == net.PredictPath && (reason == net.EndBackward || reason == net.EndCycle)
	if err != nil || trace == nil {
		vm.notProfiled(t1.Sub(t0))
		return err // a guest fault while recording, or nothing worth compiling
	}
	vm.ctr.traces++
	vm.ctr.traceInstructions += uint64(trace.Len())
	vm.ctr.endReasons[reason]++
	if err := vm.build(trace, t1); err != nil { // compilequeue.go: now, or on the service thread
		return err
	}
	vm.traced(at, pc)
	return nil
}

// isFragment reports whether pc is the head of a fragment in the cache,
// or of one being compiled (where the recorder ends a trace).
func (vm *VM) isFragment(pc uint64) bool { return vm.cache.Lookup(pc) != nil || vm.async.pending[pc] }

// phaseFlush is Dynamo's flush at a phase change (Duesterwald and Bala,
// "Software Profiling for Hot Path Prediction: Less is More", section
// 6.1), for a burst of predictions seen in
// the policy window that opened at guest instruction window. Dynamo
// flushes as the prediction rate rises, before the new phase's traces
// are built; the window shows the rise only once they are. So the
// fragments built since the window opened stay, and the older ones (the
// old phase's, the noise the flush is for) go, as a flush at the start
// of the window would have left the cache. Prediction starts afresh for
// every other head. A window later, the dispatcher tells the policy how
// many of the removed heads were compiled again (Policy.Regret), and the
// policy backs off if most were. With
// codecache.PolicyOptions.FullPhaseFlush the whole cache goes, at every
// phase change, as in the paper.
func (vm *VM) phaseFlush(window uint64) {
	if vm.opts.Policy.FullPhaseFlush {
		vm.flush()
		return
	}
	vm.ctr.partialFlushes++
	at := vm.m.Retired()
	vm.phaseGone = map[uint64]bool{}
	n := vm.cache.RemoveIf(func(f *codecache.Fragment) bool {
		if f.Built >= window {
			return false
		}
		delete(vm.frags, f)
		vm.m.Mark(f.Head, false)
		vm.removed(at, f.Head)
		vm.phaseGone[f.Head] = true
		return true
	})
	vm.phaseRemoved = n
	vm.ctr.phaseRemoved += uint64(n)
	vm.sel.Reset()
	vm.scheme.Reset()
}

// dropStale removes the fragments built from the text pages in changed
// (the guest rewrote them and ran fence.i, or unmapped or re-protected
// them, or a debugger wrote there), and only those: the cache
// consistency of Dynamo (Bala, Duesterwald and Banerjia, "Dynamo: A
// Transparent Dynamic Optimization System"), whose one removal is a flush
// of the whole cache, made per page as DynamoRIO does (Bruening,
// "Efficient, Transparent, and Comprehensive Runtime Code Manipulation"). Traces being compiled on the service thread are discarded
// when they arrive, whatever their pages (they are few and rare).
func (vm *VM) dropStale(changed []uint64) {
	hit := map[uint64]bool{}
	for _, p := range changed {
		if vm.codePages[p] {
			hit[p] = true
		}
	}
	if len(hit) == 0 {
		return
	}
	at := vm.m.Retired()
	n := vm.cache.RemoveIf(func(f *codecache.Fragment) bool {
		for _, p := range vm.frags[f].pages {
			if hit[p] {
				delete(vm.frags, f)
				vm.m.Mark(f.Head, false)
				vm.removed(at, f.Head)
				return true
			}
		}
		return false
	})
	for p := range hit {
		delete(vm.codePages, p)
	}
	for _, fi := range vm.frags { // pages other fragments still hold
		for _, p := range fi.pages {
			vm.codePages[p] = true
		}
	}
	vm.ctr.staleRemoved += uint64(n)
	vm.async.flushed()
}

// flush empties the code cache and starts prediction afresh.
func (vm *VM) flush() {
	vm.sel.Reset()
	vm.scheme.Reset()
	vm.emptyCache() // after the resets: attachments hear of the flush with prediction already afresh
}

// emptyCache empties the code cache and what the dispatcher keeps of
// its fragments (their tallies folded into the totals, their pages and
// traces, the interpreter's marks, the jobs in flight), telling the
// attachments; prediction is left as it is (flush resets it, retranslate
// does not).
func (vm *VM) emptyCache() {
	vm.foldFragmentStats()
	clear(vm.codePages)
	clear(vm.frags)
	vm.cache.Flush()
	vm.m.ClearMarks()
	vm.flushed(vm.m.Retired())
	vm.async.flushed()
}

// caught reports whether err is a guest fault whose signal the guest
// handles (interp.Machine.CatchFault): the run goes on in the handler,
// and a handler that returns runs the faulting instruction again.
func (vm *VM) caught(err error) bool {
	var f *interp.Fault
	return errors.As(err, &f) && vm.m.CatchFault(f)
}

// maxEntryFails is how many times the entry tests of a fragment
// (exit.Record.EntryTest: the registers it leaves stale at its loop head
// hold sign extensions, the loop checks of a loop with early exits
// hold) may fail before its head is compiled again without them: each
// failure runs the loop in the interpreter, which a loop entered often
// with other values in those registers, or one that leaves long before
// the bound its checks cover, would pay on every entry.
const maxEntryFails = 16

// entryTestFailed counts a failed entry test of fragment f and, at
// maxEntryFails for its head, removes f and compiles that head from now
// on with fragment.Options.NoHeadSext, NoCheckHoistExits, NoHeadNaN and
// NoBoxCheckLine (optimizeFor):
// without the mechanisms whose tests may fail with nothing wrong ahead.
func (vm *VM) entryTestFailed(f *codecache.Fragment) {
	vm.ctr.entryFails++
	if vm.entryFails == nil {
		vm.entryFails, vm.plainHeads = make(map[uint64]int), make(map[uint64]bool)
	}
	if vm.entryFails[f.Head]++; vm.entryFails[f.Head] < maxEntryFails {
		return
	}
	delete(vm.entryFails, f.Head)
	vm.plainHeads[f.Head] = true
	vm.ctr.entryRemoved++
	vm.removeFragment(f)
}

// removeFragment takes fragment f out of the code cache, at the
// dispatcher's safe point, so that its head is counted, recorded and
// compiled again when it is hot again.
func (vm *VM) removeFragment(f *codecache.Fragment) {
	vm.cache.Remove(f)
	delete(vm.frags, f)
	vm.m.Mark(f.Head, false)
	vm.removed(vm.m.Retired(), f.Head)
}

// optimizeFor returns the fragment options a trace from head is compiled
// with: Options.Optimize, where the entry tests of head kept failing
// without stale registers at a loop head that an exit can see, without
// loop checks bounded by the trip of a loop that may leave earlier, and
// without f registers left dirty at the head, and without a box check on
// entry of a fragment that does not loop (exit.Record.EntryTest).
func (vm *VM) optimizeFor(head uint64) fragment.Options {
	opts := vm.opts.Optimize
	if vm.plainHeads[head] {
		opts.NoHeadSext, opts.NoCheckHoistExits, opts.NoHeadNaN, opts.NoBoxCheckLine = true, true, true, true
	}
	return opts
}
