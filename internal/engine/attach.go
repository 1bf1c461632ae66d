// Attachments: what one run carries beside the dispatcher (perf map, trace-metrics log, host collector, relational profiler session, value profile, a time-based sampler's epoch) -> one interface of events, stats and stop, so the dispatcher tells them what happens without knowing which are there.

package engine

import "rvdyn/codecache"

// An attachment is something attached to one run beside the dispatcher.
// The VM tells every attachment, in the order they were attached and on
// the dispatching thread, of each event below; an attachment acts on the
// events it needs and embeds noEvents for the rest. at is the guest's
// retired instruction count when the event happened.
type attachment interface {
	// traced: a trace with this head was recorded and handed to the
	// compiler (compiled now, or queued for the service thread).
	traced(at, head uint64)
	// placed: fragment f was placed in the code cache.
	placed(f *codecache.Fragment)
	// removed: the fragment at head left the cache on its own (stale
	// code, a phase flush's selection, despecialization).
	removed(at, head uint64)
	// flushed: the whole code cache was flushed.
	flushed(at uint64)
	// finished: Run ended with err (the timeout already resolved).
	finished(vm *VM, err error)
	// fill adds the attachment's part to a stats snapshot.
	fill(s *Stats)
	// stop releases what the attachment holds, at Close.
	stop() error
}

// noEvents is an attachment that acts on no event: embedded, it supplies
// the events an attachment does not need.
type noEvents struct{}

func (noEvents) traced(at, head uint64)       {}
func (noEvents) placed(f *codecache.Fragment) {}
func (noEvents) removed(at, head uint64)      {}
func (noEvents) flushed(at uint64)            {}
func (noEvents) finished(vm *VM, err error)   {}
func (noEvents) fill(s *Stats)                {}
func (noEvents) stop() error                  { return nil }

// attach adds a to the run's attachments; detach removes it.
func (vm *VM) attach(a attachment) { vm.attached = append(vm.attached, a) }

// detach removes attachment a (a time-based sampler's epoch, after its
// run); it is not stopped.
func (vm *VM) detach(a attachment) {
	for i, b := range vm.attached {
		if b == a {
			vm.attached = append(vm.attached[:i], vm.attached[i+1:]...)
			return
		}
	}
}

// traced, placed, removed and flushed tell every attachment of the event.
func (vm *VM) traced(at, head uint64) {
	for _, a := range vm.attached {
		a.traced(at, head)
	}
}

func (vm *VM) placed(f *codecache.Fragment) {
	for _, a := range vm.attached {
		a.placed(f)
	}
}

func (vm *VM) removed(at, head uint64) {
	for _, a := range vm.attached {
		a.removed(at, head)
	}
}

func (vm *VM) flushed(at uint64) {
	for _, a := range vm.attached {
		a.flushed(at)
	}
}

// stopAttached stops every attachment, in the order attached, and returns
// the first error.
func (vm *VM) stopAttached() error {
	var err error
	for _, a := range vm.attached {
		if e := a.stop(); err == nil {
			err = e
		}
	}
	return err
}
