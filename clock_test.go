// Tests of time-based sampling of a guest run: samples in the code cache come back as guest pcs (skipped where perf_event or BPF is refused).

package rvdyn_test

import (
	"errors"
	"io"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/layout"
)

func TestRunClockSampled(t *testing.T) {
	s, err := layout.NewClockSampler(layout.DefaultHz)
	if errors.Is(err, layout.ErrClockUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	image, err := corpus.ELF("scheme")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := layout.Analyze(image)
	if err != nil {
		t.Fatal(err)
	}
	opts := rvdyn.Options{}
	opts.Args = corpus.Args("scheme", corpus.Small)
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		t.Skip(err)
	}
	defer vm.Close()
	code, cs, err := vm.RunClockSampled(s)
	if errors.Is(err, layout.ErrClockUnavailable) {
		t.Skip(err)
	}
	if err != nil || code != 0 {
		t.Fatalf("run: %d, %v", code, err)
	}
	if cs.Guest.Total() == 0 {
		t.Fatalf("no sample mapped to a guest pc (%d elsewhere)", cs.Host)
	}
	for pc := range cs.Guest {
		if prog.BlockAt(pc) < 0 {
			t.Errorf("sample mapped to %#x, outside the guest's text", pc)
		}
	}
	t.Logf("%v samples in the code cache, %d in rvdyn", cs.Guest.Total(), cs.Host)
}

// TestRunClockSampledAcrossFlushes runs a guest in a code cache small
// enough to be flushed many times, so that fragments of different epochs
// occupy the same host addresses. Samples taken before a flush must
// still map (ClockSamples.Flushed; before the placement history they
// were lost), and every mapped pc must be an instruction of the text
// that the guest executed. The epoch bookkeeping itself is checked
// exactly by codecache's TestFragmentAtEpoch (resolution) and layout's
// TestClockSamplerEpochs (the kernel's keys).
func TestRunClockSampledAcrossFlushes(t *testing.T) {
	s, err := layout.NewClockSampler(layout.DefaultHz)
	if errors.Is(err, layout.ErrClockUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const guest = "scheme"
	image, err := corpus.ELF(guest)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := layout.Analyze(image)
	if err != nil {
		t.Fatal(err)
	}
	argv := corpus.Args(guest, corpus.Small)
	// The instructions the guest executes, from the interpreter.
	complete := layout.NewComplete(prog)
	m, err := interp.Load(image, interp.Config{Args: argv, Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	m.SetHook(layout.AllClasses, complete)
	if err := m.Run(0); err != nil {
		t.Fatal(err)
	}
	m.Close()

	opts := rvdyn.Options{}
	opts.Args, opts.Stdout = argv, io.Discard
	opts.Cache.Size = 64 << 10
	var cs rvdyn.ClockSamples
	var flushes uint64
	// Repeat until some sample falls in a flushed fragment (the runs are
	// short; the bound only stops a broken sampler).
	for try := 0; try < 20 && cs.Flushed == 0; try++ {
		vm, err := rvdyn.New(image, opts)
		if err != nil {
			t.Skip(err)
		}
		if err := s.Reset(); err != nil {
			t.Fatal(err)
		}
		code, got, err := vm.RunClockSampled(s)
		flushes = vm.Stats().Flushes
		vm.Close()
		if errors.Is(err, layout.ErrClockUnavailable) {
			t.Skip(err)
		}
		if err != nil || code != 0 {
			t.Fatalf("run: %d, %v", code, err)
		}
		cs.Guest, cs.Flushed, cs.Host = got.Guest, cs.Flushed+got.Flushed, got.Host
		for pc, n := range got.Guest {
			if pc-complete.Lo < complete.Hi-complete.Lo && complete.Counts[(pc-complete.Lo)/2] == 0 {
				t.Errorf("%v samples mapped to %#x, which the guest never executes", n, pc)
			}
			if prog.BlockAt(pc) < 0 {
				t.Errorf("%v samples mapped to %#x, outside the guest's text", n, pc)
			}
		}
	}
	if flushes < 2 {
		t.Fatalf("only %d flushes with a 64 KiB cache", flushes)
	}
	if cs.Flushed == 0 {
		t.Fatalf("no sample in a flushed fragment over %d flushes", flushes)
	}
	t.Logf("%d flushes; last run: %v samples mapped (%v of them in flushed fragments), %d elsewhere",
		flushes, cs.Guest.Total(), cs.Flushed, cs.Host)
}
