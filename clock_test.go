// Tests of time-based sampling of a guest run: samples in the code cache come back as guest pcs (skipped where perf_event or BPF is refused).

package rvdyn_test

import (
	"errors"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
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
