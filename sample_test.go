// Tests of Options.Sample: the same seed gives the same sample set in interp and dynamo mode.

package rvdyn_test

import (
	"iter"
	"maps"
	"reflect"
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

// TestGuestPCAt checks the code cache's host->guest map: every entry of
// every fragment's pc map, read back through the host address, gives
// its guest pc, and that pc is an instruction of the guest's text.
func TestGuestPCAt(t *testing.T) {
	image, err := corpus.ELF("qsort")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := layout.Analyze(image)
	if err != nil {
		t.Fatal(err)
	}
	opts := rvdyn.Options{}
	opts.Args = corpus.Args("qsort", corpus.Small)
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		t.Skip(err) // no code cache on this host
	}
	defer vm.Close()
	if _, err := vm.Run(); err != nil {
		t.Fatal(err)
	}
	frags, entries := 0, 0
	var end uintptr
	vm.Fragments(func(head uint64, entry uintptr, size int, pcs iter.Seq2[int, uint64]) bool {
		frags++
		end = max(end, entry+uintptr(size))
		if pc, ok := vm.GuestPCAt(entry); !ok || pc != head {
			t.Errorf("fragment %#x: entry maps to %#x, %v", head, pc, ok)
		}
		for off, pc := range pcs {
			entries++
			got, ok := vm.GuestPCAt(entry + uintptr(off))
			if !ok || got != pc {
				t.Fatalf("fragment %#x +%d: GuestPCAt = %#x, %v; pc map says %#x", head, off, got, ok, pc)
			}
			if prog.BlockAt(pc) < 0 {
				t.Errorf("fragment %#x +%d: guest pc %#x outside the text", head, off, pc)
			}
		}
		return true
	})
	if frags == 0 || entries < frags {
		t.Fatalf("%d fragments, %d map entries", frags, entries)
	}
	if _, ok := vm.GuestPCAt(end + 4096); ok {
		t.Error("an address past the last fragment maps to a guest pc")
	}
	if _, ok := vm.GuestPCAt(reflect.ValueOf(TestGuestPCAt).Pointer()); ok {
		t.Error("an address in rvdyn's own code maps to a guest pc")
	}
}
