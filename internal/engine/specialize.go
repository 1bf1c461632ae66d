// Value specialization in a run: Options.Specialize in, the value profile (package selection) on the interpreter's loads and as the compiler's oracle, and fragments whose guards fail too often taken out.

package engine

import (
	"fmt"

	"rvdyn/codecache"
	"rvdyn/internal/selection"
	"rvdyn/interp"
)

// despecialize takes fragment f, whose specialization guard failed too
// often, out of the code cache; its head will be compiled again.
func (vm *VM) despecialize(f *codecache.Fragment) {
	vm.removeFragment(f)
	vm.vals.Removed()
}

// startSpecialize attaches Options.Specialize's value profile in dynamo
// mode: the interpreter's hook on loads, and the compiler's oracle.
func (vm *VM) startSpecialize() error {
	o := vm.opts.Specialize
	if o.Profile == "" || vm.sel == nil {
		return nil
	}
	if vm.opts.Profiler != nil {
		return fmt.Errorf("rvdyn: value specialization and the relational profiler both need the interpreter's hook; use one at a time")
	}
	v, err := selection.NewValueProfile(o)
	if err != nil {
		return err
	}
	vm.vals = v
	vm.attach(valueRun{v: v})
	vm.opts.Optimize.Values = v
	vm.m.SetHook(interp.MaskOf(interp.ClassLoad), v)
	return nil
}

// valueRun is the attachment of Options.Specialize's value profile: its
// counters go into the stats.
type valueRun struct {
	noEvents
	v *selection.ValueProfile
}

func (r valueRun) fill(s *Stats) { s.Specialize = r.v.Stats() }
