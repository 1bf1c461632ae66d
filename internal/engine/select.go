// The dispatcher's side of trace selection: Options.Select in, the run's selection.Scheme (its relational profiler session attached to the guest for the RPA scheme) out; candidates in, "record now" out, timed when the run measures its selection.

package engine

import (
	"fmt"
	"time"

	"rvdyn/internal/selection"
)

// newScheme makes the selection scheme o asks for. The RPA scheme's
// session becomes the run's Options.Profiler, which New attaches to the
// guest (and the scheme's Close closes).
func (vm *VM) newScheme(o selection.Options) (selection.Scheme, error) {
	if o.Kind(vm.opts.NET) == selection.RPA && vm.opts.Profiler != nil {
		return nil, fmt.Errorf("rvdyn: the rpa selection scheme runs its own relational profiler session; it cannot be combined with Options.Profiler")
	}
	s, err := selection.New(o, vm.opts.NET, vm.sel)
	if err != nil {
		return nil, err
	}
	if r, ok := s.(*selection.RPAScheme); ok {
		// A synchronous run sends from Go only (selection.RPAScheme.Sync).
		vm.opts.ProfilerNoNative = vm.opts.ProfilerNoNative || r.Sync()
		vm.opts.Profiler = r.Session()
	}
	return s, nil
}

// bump asks the scheme about the candidate at pc, timing it when the
// run measures its selection.
func (vm *VM) bump(pc uint64) bool {
	if !vm.opts.Select.Metrics {
		return vm.scheme.Bump(pc)
	}
	t := time.Now()
	hot := vm.scheme.Bump(pc)
	vm.ctr.selectTime += time.Since(t)
	return hot
}
