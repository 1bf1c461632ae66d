// After an interval cut: the code cache's traces in, the same fragments compiled against the new memory layout out.

package engine

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/interp"
)

// fragInfo is what the dispatcher keeps of a fragment in the cache: the
// guest text pages its trace was recorded from (dropStale), the trace
// itself and the Env it was compiled against (retranslate).
type fragInfo struct {
	pages []uint64
	trace *interp.Trace
	env   fragment.Env
}

// retranslate compiles again, against the memory layout as it is now,
// the trace of every fragment in the cache whose code that layout
// changes, and puts the new fragments in place of the old; no trace is
// recorded and prediction goes on where it was. It is the dispatcher's
// answer to a munmap or mprotect that cut a fast interval short or took
// pages from the mappings' interval (interp.Machine.IntervalCuts,
// codecache.Policy.Cut): the old fragments stay correct, but an access
// whose memory moved to another interval (glibc's array above an
// unmapped one; the brk heap at sites that used an array since
// unmapped) tests the wrong interval first and reaches its own through
// cold code. What decides the order is each access's recorded address
// against the Env's mappings' interval (ir.Inst.Mapped); the rest of the
// Env does not move with a cut. So a fragment is compiled again only
// when some recorded address of its trace falls on the other side of
// that interval now than when it was compiled (hintsMoved): the code of
// the others would come out the same. (Before, every fragment was: a
// C++ guest whose vectors grow by mapping a larger block and unmapping
// the old one compiled its 700 fragments four times over.)
//
// A flush (codecache.PolicyOptions.CutRecord, `--disable
// cut-retranslate`) fixes the same, but the traces recorded after it are
// those of the moment after the cut: on the RV64GC phases guest, whose
// cut comes between two of its phases, 117 traces where the run without
// a cut flush records 82. Compiling again keeps the run's traces those
// of a run without the flush (TestCutFlush), at a cost in time within
// this machine's noise either way (docs/performance.md). Dynamo's cache
// holds no assumption about the guest's memory layout, so this is ours.
//
// Traces still on the service thread are waited for and installed
// first, so that they are compiled again too. Each fragment keeps its
// Built instruction (the phase flush's window test) and counts as a
// fragment again in the statistics, as one compiled after a flush does;
// the compile time counts in CompileTime and the fragments in
// Stats.CutRetranslated.
func (vm *VM) retranslate() error {
	t0 := time.Now()
	if err := vm.drainCompiler(); err != nil {
		return err
	}
	env := vm.compileEnv()
	type old struct {
		off   int
		built uint64
		trace *interp.Trace
	}
	var olds []old
	at := vm.m.Retired()
	vm.cache.RemoveIf(func(f *codecache.Fragment) bool {
		fi, ok := vm.frags[f]
		if !ok || !hintsMoved(fi.trace, fi.env, env) {
			return false
		}
		olds = append(olds, old{f.Off, f.Built, fi.trace})
		delete(vm.frags, f)
		vm.m.Mark(f.Head, false)
		vm.removed(at, f.Head)
		return true
	})
	if len(olds) == 0 {
		return nil
	}
	slices.SortFunc(olds, func(a, b old) int { return cmp.Compare(a.off, b.off) }) // the order they were placed in
	for _, o := range olds {
		code, err := compileTrace(o.trace, env, vm.optimizeFor(o.trace.Head), vm.sample)
		if err != nil {
			return fmt.Errorf("compiling trace at 0x%x again after an interval cut: %w", o.trace.Head, err)
		}
		vm.compiled(code)
		if err := vm.install(o.trace, code, env); err != nil {
			return err
		}
		if f := vm.cache.Lookup(o.trace.Head); f != nil {
			f.Built = o.built
		}
		vm.ctr.cutRetranslated++
	}
	vm.ctr.compileTime += time.Since(t0)
	return nil
}

// hintsMoved reports whether some address trace recorded lies in the
// mappings' interval of one Env and not of the other, for loads or for
// stores (ir.Env.InMapped): what ir.Inst.Mapped is made of. Steps that
// access no memory record address 0, which no mappings' interval holds.
func hintsMoved(trace *interp.Trace, was, now fragment.Env) bool {
	for _, s := range trace.Steps {
		if was.InMapped(s.Addr, false) != now.InMapped(s.Addr, false) || was.InMapped(s.Addr, true) != now.InMapped(s.Addr, true) {
			return true
		}
	}
	return false
}

// drainCompiler waits for every trace on the service thread and installs
// what it compiled (installJob: a job from before a flush is discarded).
func (vm *VM) drainCompiler() error {
	a := &vm.async
	for a.inflight > 0 {
		j := <-a.done
		a.inflight--
		if err := vm.installJob(j); err != nil {
			return err
		}
	}
	return nil
}
