// Tests of Options.Sample: the same seed gives the same sample set in interp and dynamo mode.

package rvdyn_test

import (
	"maps"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/layout"
)

func TestSampleSetSameInEveryMode(t *testing.T) {
	for _, name := range []string{"qsort", "bytecode", "scheme"} {
		image, err := corpus.ELF(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, period := range []uint64{997, 10000} {
			var sets [2]layout.SampleSet
			var retired [2]uint64
			for i, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
				opts := rvdyn.Options{Mode: mode, Sample: layout.SampleOptions{Period: period, Seed: 7}}
				opts.Args = corpus.Args(name, corpus.Small)
				vm, err := rvdyn.New(image, opts)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := vm.Run(); err != nil {
					t.Fatalf("%s %v: %v", name, mode, err)
				}
				sets[i] = maps.Clone(vm.Samples())
				st := vm.Stats()
				retired[i] = st.GuestInstructions
				if mode == rvdyn.ModeDynamo && period == 10000 && st.CacheInstructions == 0 {
					t.Errorf("%s: no instruction ran in the code cache while sampling", name)
				}
				vm.Close()
			}
			want := retired[0] / period
			if got := uint64(sets[0].Total()); got < want || got > want+1 {
				t.Errorf("%s period %d: %d samples for %d instructions", name, period, got, retired[0])
			}
			if !maps.Equal(sets[0], sets[1]) {
				t.Errorf("%s period %d: interp and dynamo sample sets differ (%v vs %v samples)", name, period, sets[0].Total(), sets[1].Total())
			}
		}
	}
}

func TestSampleOffSamplesNothing(t *testing.T) {
	image, err := corpus.ELF("sieve")
	if err != nil {
		t.Fatal(err)
	}
	opts := rvdyn.Options{Mode: rvdyn.ModeInterp}
	opts.Args = corpus.Args("sieve", corpus.Small)
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if _, err := vm.Run(); err != nil {
		t.Fatal(err)
	}
	if vm.Samples() != nil {
		t.Errorf("Samples() = %d samples without Options.Sample", len(vm.Samples()))
	}
}
