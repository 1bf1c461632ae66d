// Time-based sampling of a guest run: a VM and a layout.ClockSampler -> the run's host PC samples, those in the code cache mapped to guest pcs.

package rvdyn

import (
	"runtime"

	"rvdyn/layout"
)

// ClockSamples are the time-based samples of one run.
type ClockSamples struct {
	// Guest holds the samples that hit native code in the code cache,
	// mapped to guest pcs through the fragments' pc maps.
	Guest layout.SampleSet
	// Host counts the other samples: rvdyn's own code (the interpreter,
	// trace recording, the compiler, the Go runtime), and code cache
	// addresses whose fragment was flushed before the run ended.
	Host uint64
}

// RunClockSampled runs the guest as Run does, with the time-based
// sampler s attached to the OS thread that runs it (the calling
// goroutine is locked to its thread for the run, so every instruction of
// the guest, interpreted or native, executes on the sampled thread).
// Samples are mapped after the run, against the fragments then in the
// cache. The error is Run's, or the sampler's (wrapping
// layout.ErrClockUnavailable) before the guest started.
func (vm *VM) RunClockSampled(s *layout.ClockSampler) (int, ClockSamples, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cs ClockSamples
	if err := s.AttachThread(); err != nil {
		return 0, cs, err
	}
	code, err := vm.Run()
	s.Stop()
	counts, cerr := s.Counts()
	if err == nil {
		err = cerr
	}
	cs.Guest = layout.SampleSet{}
	for ip, n := range counts {
		if pc, ok := vm.GuestPCAt(uintptr(ip)); ok {
			cs.Guest[pc] += float64(n)
		} else {
			cs.Host += n
		}
	}
	return code, cs, err
}
