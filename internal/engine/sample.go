// Frequency-based PC sampling inside the VM: Options.Sample -> a layout.SampleSet of exact, deterministic samples in either mode.

package engine

import (
	"iter"

	"rvdyn/codecache"
	"rvdyn/layout"
)

// sampler is the VM's side of Options.Sample: the countdown and the set
// it fills. Both modes stop the guest exactly at each due count (the
// interpreter and the recorder with a budget that ends there, native code
// with a budget that ends at least one trace earlier), so a sample set is
// the same in interp and dynamo mode.
type sampler struct {
	cd  *layout.Countdown
	set layout.SampleSet
}

// takeSample records the pc if the guest stands at a sample point (once
// per point, should two coincide). The budgets make the guest stop at
// every point exactly; were one ever passed, its sample is taken at the
// next stop rather than the countdown lost.
func (vm *VM) takeSample() {
	s := &vm.samp
	if s.cd == nil {
		return
	}
	for s.cd.Next() <= vm.m.Retired() {
		s.set[vm.m.CPU.PC]++
		s.cd.Advance()
	}
}

// untilSample returns how many instructions may retire before the next
// sample point (the largest int64 when not sampling, 0 when one is due).
func (vm *VM) untilSample() uint64 {
	switch {
	case vm.samp.cd == nil:
		return 1<<63 - 1
	case vm.samp.cd.Next() <= vm.m.Retired():
		return 0 // due now: takeSample, at the top of the loop, takes it
	}
	return vm.samp.cd.Next() - vm.m.Retired()
}

// Samples returns the sample set of the run (Options.Sample), nil when
// the run did not sample. The set belongs to the VM until it is closed.
func (vm *VM) Samples() layout.SampleSet { return vm.samp.set }

// GuestPCAt maps a host address inside the code cache (a time-based PC
// sample, or a perf map query) to the guest pc the code there was
// emitted for, through the fragment's host->guest pc map; false for an
// address outside every fragment now in the cache (rvdyn's own code,
// or a fragment flushed since: RunClockSampled resolves those through
// the cache's placement history). Call it between runs or after Run, not
// while the guest runs on another goroutine.
func (vm *VM) GuestPCAt(hostAddr uintptr) (uint64, bool) {
	if vm.cache == nil {
		return 0, false
	}
	f := vm.cache.FragmentAt(hostAddr)
	if f == nil {
		return 0, false
	}
	return f.GuestPC(hostAddr)
}

// Fragments calls yield with the head, entry address and code size of
// every fragment in the code cache, in placement order, until yield
// returns false (for perf maps and for tests of GuestPCAt).
func (vm *VM) Fragments(yield func(head uint64, entry uintptr, size int, pcs iter.Seq2[int, uint64]) bool) {
	if vm.cache == nil {
		return
	}
	vm.cache.Each(func(f *codecache.Fragment) bool {
		return yield(f.Head, f.Entry, f.Size, f.Code.PCs.All())
	})
}
