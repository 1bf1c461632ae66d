// Frequency-based PC sampling inside the VM: Options.Sample -> a layout.SampleSet of exact, deterministic samples in either mode.

package rvdyn

import "rvdyn/layout"

// sampler is the VM's side of Options.Sample: the countdown and the set
// it fills. Both modes stop the guest exactly at each due count (the
// interpreter and the recorder with a budget that ends there, native code
// with a budget that ends at least one trace earlier), so a sample set is
// the same in interp and dynamo mode.
type sampler struct {
	cd  *layout.Countdown
	set layout.SampleSet
}

// takeSample records the pc if the guest stands at a sample point (and
// every point it stands on, should two coincide).
func (vm *VM) takeSample() {
	s := &vm.samp
	if s.cd == nil {
		return
	}
	for s.cd.Next() == vm.m.Retired() {
		s.set[vm.m.CPU.PC]++
		s.cd.Advance()
	}
}

// untilSample returns how many instructions may retire before the next
// sample point (the largest int64 when not sampling).
func (vm *VM) untilSample() uint64 {
	if vm.samp.cd == nil {
		return 1<<63 - 1
	}
	return vm.samp.cd.Next() - vm.m.Retired()
}

// Samples returns the sample set of the run (Options.Sample), nil when
// the run did not sample. The set belongs to the VM until it is closed.
func (vm *VM) Samples() layout.SampleSet { return vm.samp.set }
