// Tests of hooked runs: RunUntil with a hook (straight runs in the fast loop, selected instructions single-stepped) -> the Events, state and output of single-stepping, on real guests.

package interp_test

import (
	"bytes"
	"fmt"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
)

// hookTrace is what a hook saw: a digest of every field of every Event
// and how many there were.
type hookTrace struct {
	events uint64
	digest uint64
	out    string
	exit   int
	insts  uint64
}

// runWithHook runs a guest to its end with a hook on mask, either by
// StepHooked alone (the reference) or by RunUntil with budgets taken in
// turn from budgets and the stop set stops.
func runWithHook(t *testing.T, img []byte, args []string, mask interp.ClassMask, step bool, budgets []uint64, stops interp.StopSet) hookTrace {
	t.Helper()
	var out bytes.Buffer
	m, err := interp.Load(img, interp.Config{Args: args, Stdout: &out, RandSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var tr hookTrace
	mix := func(v uint64) { tr.digest = (tr.digest ^ v) * 0x100000001b3 } // FNV-1a, a word at a time
	m.SetHook(mask, interp.HookFunc(func(e *interp.Event) {
		tr.events++
		in := e.Inst
		mix(e.PC)
		mix(uint64(in.Op) | uint64(in.Rd)<<8 | uint64(in.Rs1)<<16 | uint64(in.Rs2)<<24 | uint64(in.Raw)<<32)
		mix(uint64(in.Imm))
		mix(uint64(e.Class) | uint64(btoi(e.Taken))<<8)
		for _, v := range []uint64{e.Next, e.Addr, e.Value, e.Src1, e.Src2, e.Seq} {
			mix(v)
		}
	}))
	for i := 0; !m.Exited(); i++ {
		if step {
			_, err = m.StepHooked()
		} else {
			_, err = m.RunUntil(budgets[i%len(budgets)], stops)
		}
		if err != nil {
			t.Fatalf("after %d instructions: %v", m.Retired(), err)
		}
	}
	tr.out, tr.exit, tr.insts = out.String(), m.ExitCode(), m.Retired()
	return tr
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHookedRunsMatchStepping runs RV64IM and RV64GC guests (compressed,
// float, atomics, system calls) with hooks on one class, several and
// all, and requires of RunUntil with the fast loop's stop sets, at
// budgets that end runs anywhere, the Events single-stepping gives.
func TestHookedRunsMatchStepping(t *testing.T) {
	masks := []interp.ClassMask{
		interp.MaskOf(interp.ClassBranch), // the edge query's
		interp.MaskOf(interp.ClassBranch, interp.ClassJump),
		interp.MaskOf(interp.ClassLoad, interp.ClassStore),
		interp.MaskOf(interp.ClassFloat, interp.ClassSys),
		interp.MaskOf(interp.ClassALU, interp.ClassJump, interp.ClassBranch, interp.ClassLoad, interp.ClassStore, interp.ClassMul, interp.ClassSys, interp.ClassFloat),
	}
	guests := []struct {
		name string
		f    corpus.Flavor
	}{{"bytecode", corpus.IM}, {"nbody", corpus.GC}, {"strings", corpus.GC}}
	for _, g := range guests {
		img, err := corpus.ELFOf(g.name, g.f)
		if err != nil {
			t.Fatal(err)
		}
		args := corpus.Args(g.name, corpus.Small)
		for _, mask := range masks {
			t.Run(fmt.Sprintf("%s-%v-%08b", g.name, g.f, mask), func(t *testing.T) {
				want := runWithHook(t, img, args, mask, true, nil, 0)
				if want.events == 0 {
					t.Fatal("the hook saw nothing")
				}
				for _, stops := range []interp.StopSet{0, interp.StopsAll} {
					got := runWithHook(t, img, args, mask, false, []uint64{1 << 20, 3, 1, 1000, 7}, stops)
					if got != want {
						t.Errorf("stops %03b: %d events (digest %x), %d retired, exit %d; stepping %d (%x), %d, %d",
							stops, got.events, got.digest, got.insts, got.exit, want.events, want.digest, want.insts, want.exit)
					}
				}
			})
		}
	}
}

// sampler is a Skipper that acts on one execution of its classes in
// period (it digests that Event) and counts the others down; with skip
// off it is a plain Hook that sees them all.
type sampler struct {
	left, period uint64
	seen         uint64
	digest       uint64
	off          bool // SkipCountdown returns nil: every Event is delivered
	events       uint64
}

func (s *sampler) Event(e *interp.Event) {
	s.events++
	if s.left--; s.left != 0 {
		return
	}
	s.left = s.period + s.seen%5 // gaps that vary, as a geometric draw's do
	s.seen++
	for _, v := range []uint64{e.PC, e.Next, e.Src1, e.Src2, e.Seq, uint64(btoi(e.Taken))} {
		s.digest = (s.digest ^ v) * 0x100000001b3
	}
}

func (s *sampler) SkipCountdown(c interp.Class) *uint64 {
	if s.off || c != interp.ClassBranch {
		return nil
	}
	return &s.left
}

// plainHook hides a sampler's SkipCountdown: the interpreter delivers
// every Event.
type plainHook struct{ s *sampler }

func (p plainHook) Event(e *interp.Event) { p.s.Event(e) }

// TestSkippedBranchesMatchEvents: with a Skipper on conditional
// branches, RunUntil retires the branches the hook would only count down
// without their Events; the samples it takes (every field of each
// sampled Event), the countdown left, the stops (trace heads at backward
// branches), the output and the instruction counts are those of the same
// hook seeing every Event, at budgets that end runs anywhere, with and
// without the fast loop's stops, on RV64IM and RV64GC guests; and the
// hook saw fewer Events.
func TestSkippedBranchesMatchEvents(t *testing.T) {
	guests := []struct {
		name string
		f    corpus.Flavor
	}{{"bytecode", corpus.IM}, {"qsort", corpus.GC}, {"strings", corpus.GC}}
	type result struct {
		seen, digest, left, insts uint64
		stops                     [8]uint64
		out                       string
		exit                      int
	}
	run := func(t *testing.T, img []byte, args []string, s *sampler, skip bool, stops interp.StopSet) result {
		var out bytes.Buffer
		m, err := interp.Load(img, interp.Config{Args: args, Stdout: &out, RandSeed: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		mask := interp.MaskOf(interp.ClassBranch)
		if skip {
			m.SetHook(mask, s)
		} else {
			m.SetHook(mask, plainHook{s})
		}
		var r result
		budgets := []uint64{1 << 20, 3, 1, 1000, 7}
		for i := 0; !m.Exited(); i++ {
			stop, err := m.RunUntil(budgets[i%len(budgets)], stops)
			if err != nil {
				t.Fatalf("after %d instructions: %v", m.Retired(), err)
			}
			r.stops[stop&7]++
		}
		r.seen, r.digest, r.left, r.insts, r.out, r.exit = s.seen, s.digest, s.left, m.Retired(), out.String(), m.ExitCode()
		return r
	}
	for _, g := range guests {
		img, err := corpus.ELFOf(g.name, g.f)
		if err != nil {
			t.Fatal(err)
		}
		args := corpus.Args(g.name, corpus.Small)
		for _, stops := range []interp.StopSet{0, interp.StopsAll} {
			t.Run(fmt.Sprintf("%s-%v-%03b", g.name, g.f, stops), func(t *testing.T) {
				ref := &sampler{left: 3, period: 7}
				want := run(t, img, args, ref, false, stops)
				s := &sampler{left: 3, period: 7}
				got := run(t, img, args, s, true, stops)
				if want.seen == 0 {
					t.Fatal("nothing sampled")
				}
				if got != want {
					t.Errorf("skipping: %d samples (digest %x), countdown %d, %d retired, stops %v; every Event: %d (%x), %d, %d, %v",
						got.seen, got.digest, got.left, got.insts, got.stops, want.seen, want.digest, want.left, want.insts, want.stops)
				}
				if s.events >= ref.events {
					t.Errorf("the Skipper saw %d Events, the plain hook %d: nothing was skipped", s.events, ref.events)
				}
			})
		}
	}
}
