package rvdyn_test

import (
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
)

// TestSpecializeValueShift runs valueshift, whose hot loop loads a step,
// a divisor and a table pointer that stay constant long enough to be
// specialized on and then change (every few rounds, then on every
// iteration): the specialized fragments must leave through their guards
// and the run must match the interpreter's output, instruction count and
// registers exactly.
func TestSpecializeValueShift(t *testing.T) {
	image := sysImage(t, "valueshift")
	args := []string{"valueshift", "120"}
	ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args}})
	if ref.err != nil || ref.code != 0 || !strings.Contains(ref.stdout, "total ") {
		t.Fatalf("interp: exit %d, %v, output %q", ref.code, ref.err, ref.stdout)
	}
	for _, tc := range []struct {
		name  string
		delay int
		spec  rvdyn.SpecializeOptions
	}{
		{"default", 50, rvdyn.SpecializeOptions{Profile: "default"}},
		{"perfect", 50, rvdyn.SpecializeOptions{Profile: "perfect"}},
		{"aggressive", 10, rvdyn.SpecializeOptions{Profile: "perfect", MinCount: 4, MinInvariance: 0.5, MaxFailures: 1 << 30}},
		{"random sampler", 50, rvdyn.SpecializeOptions{Profile: "R2", MinCount: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, image, rvdyn.Options{NET: net.Options{Delay: tc.delay}, Specialize: tc.spec, Config: interp.Config{Args: args}})
			if got.err != nil || got.code != ref.code || got.stdout != ref.stdout {
				t.Fatalf("exit %d (%v), output %q; interp: %q", got.code, got.err, got.stdout, ref.stdout)
			}
			if got.insts != ref.insts || got.cpu != ref.cpu {
				t.Errorf("%d instructions, registers %x; interp %d, %x", got.insts, got.cpu, ref.insts, ref.cpu)
			}
			s := got.stats.Specialize
			if s == nil {
				t.Fatal("no specialization stats")
			}
			if s.Specialized == 0 || s.GuardExits == 0 {
				t.Errorf("specialized %d loads, %d guard exits: the guards were never exercised (%+v)", s.Specialized, s.GuardExits, *s)
			}
			// The values change for good: with the default limit of 16
			// failures, the fragments go and are compiled again.
			if tc.spec.MaxFailures == 0 && (s.Despecialized == 0 || s.Removed == 0) {
				t.Errorf("no pc given up, no fragment removed: %+v", *s)
			}
			t.Logf("%+v", *s)
		})
	}
}

// TestSpecializeCorpus checks that the default value profile specializes
// something on the corpus's interpreter-style guests (and the results
// agree; TestGuestsAgree covers every guest).
func TestSpecializeCorpus(t *testing.T) {
	for _, name := range []string{"bytecode", "scheme"} {
		t.Run(name, func(t *testing.T) {
			image, err := corpus.ELF(name)
			if err != nil {
				t.Fatal(err)
			}
			args := corpus.Args(name, corpus.Small)
			got := run(t, image, rvdyn.Options{Specialize: rvdyn.SpecializeOptions{Profile: "default"}, Config: interp.Config{Args: args}})
			if got.err != nil || got.code != 0 {
				t.Fatalf("exit %d, %v", got.code, got.err)
			}
			if s := got.stats.Specialize; s == nil || s.Specialized == 0 || s.LoadsProfiled == 0 {
				t.Errorf("stats %+v: nothing specialized", s)
			}
		})
	}
}

func TestSpecializeBadOptions(t *testing.T) {
	image, err := corpus.ELF("sieve")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []rvdyn.SpecializeOptions{{Profile: "H[Q4]12"}, {Profile: "multihash:tables=2"}, {Profile: "P4", MinInvariance: 1.5}} {
		if vm, err := rvdyn.New(image, rvdyn.Options{Specialize: o}); err == nil {
			vm.Close()
			t.Errorf("%+v: no error", o)
		}
	}
}
