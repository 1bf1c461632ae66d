package rvdyn_test

// The host collector (package gcassist) on the Scheme guest: every
// benchmark under every collector mode, in interp and dynamo mode, with a
// heap trigger small enough for many collections; the barrier-less mode
// caught freeing a reachable object where the barriers keep it.

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/gcassist"
	"rvdyn/interp"
)

// gcInterval is the trigger the tests run with: the small runs allocate
// 0.4 to 1.9 MB, so every run collects at least 10 times. A concurrent
// cycle lasts while the guest keeps allocating, so how many complete
// depends on how fast the marker runs beside the guest: 8 KiB leaves a
// wide margin above 10 on a loaded machine (16 KiB left tak with 16
// concurrent cycles in interp mode, fewer in dynamo mode).
const gcInterval = 8 << 10

type gcConfig struct {
	name string
	opts gcassist.Options
}

// gcConfigs are the collector configurations every program must agree
// under. Every one verifies after each sweep that nothing reachable was
// freed, and poisons freed memory.
func gcConfigs() []gcConfig {
	var cs []gcConfig
	for _, m := range []gcassist.Mode{gcassist.ModeSTW, gcassist.ModeSoft, gcassist.ModeRPA} {
		cs = append(cs, gcConfig{m.String(), gcassist.Options{Mode: m, Interval: gcInterval, Poison: true, Verify: true}})
		if m.Concurrent() {
			cs = append(cs, gcConfig{m.String() + "-det", gcassist.Options{Mode: m, Interval: gcInterval, Poison: true, Verify: true, Deterministic: true}})
		}
	}
	return cs
}

// gcModes are the execution modes a collector configuration runs in.
func gcModes() []rvdyn.Mode { return []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} }

// detPrograms are the programs TestGCPrograms also runs with
// deterministic marking (all of them would double the test's time).
var detPrograms = map[string]bool{"deriv": true, "gcbench": true, "tak": true, "vectors": true}

// TestGCPrograms runs every Scheme benchmark at its small size under every
// collector configuration in interp and dynamo mode (the deterministic
// ones on detPrograms): the output and exit status must be the program's
// expected ones (the guest collector's, and qemu-riscv64's), there must
// be at least 10 collections, and in a deterministic configuration the
// instruction count must be the same in interp and dynamo mode.
func TestGCPrograms(t *testing.T) {
	image := schemeImage(t)
	for _, name := range schemePrograms(t, image) {
		ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: []string{"scheme", name, "small"}}})
		if ref.err != nil || ref.code != 0 {
			t.Fatalf("%s: guest collector: exit %d, %v", name, ref.code, ref.err)
		}
		for _, gc := range gcConfigs() {
			if gc.opts.Deterministic && !detPrograms[name] {
				continue
			}
			t.Run(name+"/"+gc.name, func(t *testing.T) {
				t.Parallel() // each run has its own VM and collector
				insts := map[rvdyn.Mode]uint64{}
				for _, mode := range gcModes() {
					o := run(t, image, rvdyn.Options{Mode: mode, GC: gc.opts,
						Config: interp.Config{Args: []string{"scheme", "-poison", name, "small"}}})
					if o.err != nil || o.code != ref.code || o.stdout != ref.stdout {
						t.Fatalf("%v: exit %d (%v), stdout %q stderr %q; want exit %d, %q", mode, o.code, o.err, o.stdout, o.stderr, ref.code, ref.stdout)
					}
					g := o.stats.GC
					if g == nil || !g.Hosted || g.Collections < 10 {
						t.Fatalf("%v: collector stats %+v: want the heap hosted and at least 10 collections", mode, g)
					}
					insts[mode] = o.insts
				}
				if gc.opts.Deterministic && insts[rvdyn.ModeInterp] != insts[rvdyn.ModeDynamo] {
					t.Errorf("deterministic: %d instructions in interp mode, %d in dynamo mode", insts[rvdyn.ModeInterp], insts[rvdyn.ModeDynamo])
				}
			})
		}
	}
}

// TestGCMutation runs testdata/gc_mutate.scm, which moves objects from
// cells the marker has not reached into a vector it has scanned: with
// deterministic marking, the barrier-less mode must free a reachable
// object (Verify catches it), while the software and the RPA barriers,
// deterministic or concurrent, keep every object.
func TestGCMutation(t *testing.T) {
	image := schemeImage(t)
	src, err := os.ReadFile("testdata/gc_mutate.scm")
	if err != nil {
		t.Fatal(err)
	}
	const want = "2001000\n"
	opts := func(m gcassist.Mode, det bool, mode rvdyn.Mode) rvdyn.Options {
		return rvdyn.Options{Mode: mode, GC: gcassist.Options{Mode: m, Interval: 8 << 10, Deterministic: det, Poison: true, Verify: true},
			Config: interp.Config{Args: []string{"scheme", "-"}, Stdin: strings.NewReader(string(src))}}
	}
	for _, mode := range gcModes() {
		o := run(t, image, opts(gcassist.ModeNone, true, mode))
		var lost *gcassist.LostObjectError
		if !errors.As(o.err, &lost) {
			t.Errorf("%v: no barrier: exit %d, %v, stdout %q; want a freed reachable object", mode, o.code, o.err, o.stdout)
		}
		for _, m := range []gcassist.Mode{gcassist.ModeSoft, gcassist.ModeRPA} {
			for _, det := range []bool{true, false} {
				o := run(t, image, opts(m, det, mode))
				if o.err != nil || o.code != 0 || o.stdout != want {
					t.Errorf("%v: %v (deterministic %v): exit %d, %v, stdout %q; want %q", mode, m, det, o.code, o.err, o.stdout, want)
				}
			}
		}
	}
}
