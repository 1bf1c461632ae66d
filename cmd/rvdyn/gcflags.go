// The collector's flags (run, bench): --gc and its settings in, rvdyn.GCOptions out.

package main

import (
	"flag"
	"fmt"

	"rvdyn"
)

type gcFlags struct {
	mode          *string
	interval      *uint64
	deterministic *bool
	step          *int
	poison        *bool
	verify        *bool
}

func addGCFlags(fs *flag.FlagSet) *gcFlags {
	return &gcFlags{
		mode: fs.String("gc", "guest", "who collects a guest heap announced by the heap contract (docs/gc.md): guest (its own stop-the-world collector), "+
			"stw (rvdyn, stop-the-world), soft (rvdyn, concurrent marking, the guest's software store barrier), rpa (rvdyn, concurrent marking, "+
			"the relational profiler's store barrier, Figure 2c; --query's queries run beside it), none (concurrent, no barrier: wrong on purpose)"),
		interval:      fs.Uint64("gc-interval", 0, "with a host collector: bytes the guest allocates between collections (0 = the guest's rule, max(4 MiB, live bytes))"),
		deterministic: fs.Bool("gc-deterministic", false, "concurrent modes: mark on the guest's thread, --gc-step objects at each guest safepoint, so runs are reproducible"),
		step:          fs.Int("gc-step", 4, "with --gc-deterministic: objects marked per guest safepoint"),
		poison:        fs.Bool("gc-poison", false, "with a host collector: fill freed memory with 0xdeadbeefdeadbeef"),
		verify:        fs.Bool("gc-verify", false, "with a host collector: after each collection, check that nothing reachable was freed (an error ends the run)"),
	}
}

func (f *gcFlags) options() (rvdyn.GCOptions, error) {
	m, err := rvdyn.ParseGCMode(*f.mode)
	if err != nil {
		return rvdyn.GCOptions{}, fmt.Errorf("--gc: %w", err)
	}
	if *f.step < 1 {
		return rvdyn.GCOptions{}, fmt.Errorf("--gc-step must be >= 1")
	}
	return rvdyn.GCOptions{Mode: m, Interval: *f.interval, Deterministic: *f.deterministic,
		Step: *f.step, Poison: *f.poison, Verify: *f.verify}, nil
}
