package rvdyn

import (
	"bytes"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestMonitor drives the monitor with synthetic windows.
func TestMonitor(t *testing.T) {
	p := Policy{Window: 100, PhaseFactor: 4, PhaseMinBurst: 10, BailShare: 0.5, BailWindows: 3, ThrashWindows: 2}
	type win struct {
		frags, cache uint64 // built and run in the cache during the window
		want         decision
		full         uint64 // capacity flushes during the window
	}
	for _, tc := range []struct {
		name string
		p    Policy
		wins []win
	}{
		{"steady", p, []win{{5, 90, keepGoing, 0}, {5, 90, keepGoing, 0}, {5, 90, keepGoing, 0}, {6, 90, keepGoing, 0}}},
		{"burst after warm-up", p, []win{{5, 90, keepGoing, 0}, {5, 90, keepGoing, 0}, {4, 90, keepGoing, 0}, {40, 90, phaseFlush, 0}, {40, 90, keepGoing, 0}}},
		{"burst during warm-up", p, []win{{50, 90, keepGoing, 0}, {50, 90, keepGoing, 0}}},
		{"small burst", p, []win{{1, 90, keepGoing, 0}, {1, 90, keepGoing, 0}, {1, 90, keepGoing, 0}, {9, 90, keepGoing, 0}}},
		{"no reuse", p, []win{{5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, bailOut, 0}}},
		{"reuse recovers", p, []win{{5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 90, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}}},
		{"no bail-out", Policy{Window: 100, NoBailout: true}, []win{{5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}, {5, 10, keepGoing, 0}}},
		{"no phase flush", Policy{Window: 100, NoPhaseFlush: true}, []win{{5, 90, keepGoing, 0}, {5, 90, keepGoing, 0}, {5, 90, keepGoing, 0}, {80, 90, keepGoing, 0}}},
		{"thrash", p, []win{{5, 90, keepGoing, 1}, {5, 90, keepGoing, 0}, {5, 90, keepGoing, 2}, {5, 90, bailOut, 1}}},
		{"thrash, no bail-out", Policy{Window: 100, NoBailout: true, ThrashWindows: 2}, []win{{5, 90, keepGoing, 1}, {5, 90, keepGoing, 1}, {5, 90, keepGoing, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mo := newMonitor(tc.p)
			var retired, frags, cache, full uint64
			for i, w := range tc.wins {
				retired += 100
				frags += w.frags
				cache += w.cache
				full += w.full
				if got := mo.tick(retired-1, frags, cache, full); got != keepGoing {
					t.Fatalf("window %d decided %d before it closed", i, got)
				}
				if got := mo.tick(retired, frags, cache, full); got != w.want {
					t.Fatalf("window %d: decision %d, want %d", i, got, w.want)
				}
			}
		})
	}
}

// manyLoops returns a program of n distinct loops, each iterating k times,
// then exit(0): code whose fragments are built and then barely reused.
func manyLoops(n, k int) []byte {
	enc := rvtest.Encode
	type I = interp.Inst
	var w []uint32
	for i := 0; i < n; i++ {
		w = append(w,
			enc(I{Op: interp.OpADDI, Rd: 5, Imm: int64(k)}),   // t0 = k
			enc(I{Op: interp.OpADDI, Rd: 6, Rs1: 6, Imm: 1}),  // loop: t1++
			enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}), //       t0--
			enc(I{Op: interp.OpBNE, Rs1: 5, Rs2: 0, Imm: -8})) //       bnez t0, loop
	}
	w = append(w, enc(I{Op: interp.OpADDI, Rd: 10}), enc(I{Op: interp.OpADDI, Rd: 17, Imm: 93}), enc(I{Op: interp.OpECALL}))
	return rvtest.MakeELF(w, nil, 4096)
}

func TestBailOut(t *testing.T) {
	img := manyLoops(3000, 60)
	run := func(p Policy, mode Mode) Stats {
		vm, err := New(img, Options{Mode: mode, Delay: 50, Policy: p, Stdout: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		if code, err := vm.Run(); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		return vm.Stats()
	}
	ref := run(Policy{}, ModeInterp)
	bail := run(Policy{Window: 20000, BailWindows: 3}, ModeDynamo)
	if bail.BailedOutAt == 0 || bail.BailedOutAt > 5*20000 {
		t.Errorf("did not bail out early: at %d, cache share %.1f%%", bail.BailedOutAt, bail.CachePercent())
	}
	stay := run(Policy{Window: 20000, BailWindows: 3, NoBailout: true}, ModeDynamo)
	if stay.BailedOutAt != 0 || stay.Fragments < 3000 {
		t.Errorf("NoBailout: bailed out at %d, %d fragments", stay.BailedOutAt, stay.Fragments)
	}
	for _, s := range []Stats{bail, stay} {
		if s.GuestInstructions != ref.GuestInstructions {
			t.Errorf("%d guest instructions, interpreter %d", s.GuestInstructions, ref.GuestInstructions)
		}
	}
}

// TestFragmentLargerThanCache runs a loop whose trace compiles to more
// code than the whole cache holds: the head stays interpreted and the run
// still ends normally.
func TestFragmentLargerThanCache(t *testing.T) {
	enc := rvtest.Encode
	type I = interp.Inst
	w := []uint32{enc(I{Op: interp.OpADDI, Rd: 5, Imm: 100})}
	for i := 0; i < 400; i++ { // loop body: 400 loads and adds
		w = append(w, enc(I{Op: interp.OpLD, Rd: 6, Rs1: 2, Imm: 8}), enc(I{Op: interp.OpADD, Rd: 7, Rs1: 7, Rs2: 6}))
	}
	w = append(w,
		enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}),
		enc(I{Op: interp.OpBNE, Rs1: 5, Rs2: 0, Imm: -4 * 801}),
		enc(I{Op: interp.OpADDI, Rd: 10}), enc(I{Op: interp.OpADDI, Rd: 17, Imm: 93}), enc(I{Op: interp.OpECALL}))
	vm, err := New(rvtest.MakeELF(w, nil, 4096), Options{Delay: 2, CacheSize: 4096, MaxTraceLen: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if code, err := vm.Run(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if st := vm.Stats(); st.TooLarge == 0 {
		t.Errorf("no trace was too large: %+v", st)
	}
}
