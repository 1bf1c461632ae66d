// After an interval cut: the code cache's traces in, the same fragments compiled against the new memory layout out.

package engine

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"rvdyn/interp"
)

// fragInfo is what the dispatcher keeps of a fragment in the cache: the
// guest text pages its trace was recorded from (dropStale) and the trace
// itself (retranslate).
type fragInfo struct {
	pages []uint64
	trace *interp.Trace
}

// retranslate compiles the trace of every fragment in the cache again,
// against the memory layout as it is now, and replaces the cache's
// contents with the new fragments; no trace is recorded and prediction
// goes on where it was. It is the dispatcher's answer to a munmap or
// mprotect that cut a fast interval short (codecache.Policy.Cut): the
// old fragments stay correct, but an access the cut moved out of the
// heap's interval (glibc's array above an unmapped one) tests the heap
// first and reaches its interval through cold code. Each access's
// recorded address decides again which interval it tests first
// (fragment.Env's mappings' interval, ir.Inst.Mapped).
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
	type old struct {
		off   int
		built uint64
		trace *interp.Trace
	}
	olds := make([]old, 0, len(vm.frags))
	for f, fi := range vm.frags {
		if vm.cache.Lookup(f.Head) == f { // every entry should be; a removal that forgot frags must not compile a head twice
			olds = append(olds, old{f.Off, f.Built, fi.trace})
		}
	}
	slices.SortFunc(olds, func(a, b old) int { return cmp.Compare(a.off, b.off) }) // the order they were placed in
	vm.emptyCache()
	env := vm.compileEnv()
	for _, o := range olds {
		code, err := compileTrace(o.trace, env, vm.opts.Optimize, vm.sample)
		if err != nil {
			return fmt.Errorf("compiling trace at 0x%x again after an interval cut: %w", o.trace.Head, err)
		}
		vm.compiled(code)
		if err := vm.install(o.trace, code); err != nil {
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
