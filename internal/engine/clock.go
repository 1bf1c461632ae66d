// Time-based sampling of a guest run: a VM and a layout.ClockSampler -> the run's host PC samples, those in the code cache mapped to guest pcs through the fragment that held them at the time.

package engine

import (
	"runtime"

	"rvdyn/codecache"
	"rvdyn/layout"
)

// ClockSamples are the time-based samples of one run.
type ClockSamples struct {
	// Guest holds the samples that hit native code in the code cache,
	// mapped to guest pcs through the pc map of the fragment that
	// occupied the address when the sample was taken.
	Guest layout.SampleSet
	// Flushed is the part of Guest that fell in fragments flushed
	// before the run ended: the samples a map read after the run would
	// have lost.
	Flushed float64
	// Host counts the other samples: rvdyn's own code (the interpreter,
	// trace recording, the compiler, the Go runtime) and padding
	// between fragments.
	Host uint64
}

// RunClockSampled runs the guest as Run does, with the time-based
// sampler s attached to the OS thread that runs it (the calling
// goroutine is locked to its thread for the run, so every instruction of
// the guest, interpreted or native, executes on the sampled thread).
//
// A flush lets the code cache place new fragments where old ones were,
// so a host address alone does not name a fragment. For the run, the
// cache keeps every fragment it flushes (codecache.Cache.KeepHistory),
// and each flush moves the sampler to the cache's new epoch
// (ClockSampler.SetEpoch) on the dispatching thread before any fragment
// is placed again; after the run each (address, epoch) sample is
// resolved against the fragments of its epoch. The error is Run's, or
// the sampler's (wrapping layout.ErrClockUnavailable) before the guest
// started.
func (vm *VM) RunClockSampled(s *layout.ClockSampler) (int, ClockSamples, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cs ClockSamples
	var epochErr error
	if vm.cache != nil {
		vm.cache.KeepHistory()
		if err := s.SetEpoch(vm.cache.Epoch()); err != nil {
			return 0, cs, err
		}
		ep := &clockEpoch{s: s, cache: vm.cache, err: &epochErr}
		vm.attach(ep)
		defer vm.detach(ep)
	}
	if err := s.AttachThread(); err != nil {
		return 0, cs, err
	}
	code, err := vm.Run()
	s.Stop()
	counts, cerr := s.EpochCounts()
	if err == nil {
		err = cerr
	}
	if err == nil {
		err = epochErr
	}
	cs.Guest = layout.SampleSet{}
	for k, n := range counts {
		if pc, ok := vm.guestPCAtEpoch(uintptr(k.IP), k.Epoch); ok {
			cs.Guest[pc] += float64(n)
			if k.Epoch != vm.cache.Epoch() {
				cs.Flushed += float64(n)
			}
		} else {
			cs.Host += n
		}
	}
	return code, cs, err
}

// guestPCAtEpoch is GuestPCAt for the fragment that held hostAddr during
// the code cache's epoch (codecache.Cache.Epoch), where the cache keeps
// its history.
func (vm *VM) guestPCAtEpoch(hostAddr uintptr, epoch uint64) (uint64, bool) {
	if vm.cache == nil {
		return 0, false
	}
	f := vm.cache.FragmentAtEpoch(hostAddr, epoch)
	if f == nil {
		return 0, false
	}
	return f.GuestPC(hostAddr)
}

// clockEpoch is the attachment of a time-based sampled run: after every
// code cache flush, before any fragment is placed again, it moves the
// sampler to the cache's new epoch, so samples are resolved against the
// fragments of their time. err keeps the first failure.
type clockEpoch struct {
	noEvents
	s     *layout.ClockSampler
	cache *codecache.Cache
	err   *error
}

func (c *clockEpoch) flushed(at uint64) {
	if err := c.s.SetEpoch(c.cache.Epoch()); err != nil && *c.err == nil {
		*c.err = err
	}
}
