package ir

import (
	"strings"
	"testing"

	"rvdyn/fragment/exit"
)

// oracle is a ValueOracle over a fixed map of pcs to values.
type oracle map[uint64]uint64

func (o oracle) Invariant(pc uint64) (uint64, bool) { v, ok := o[pc]; return v, ok }

func TestSpecialize(t *testing.T) {
	// pcs are 0x1000+4i: the loads below are at 0x1000 and 0x1008.
	src := `
		a0 = ld 0(a1)
		a2 = ld 8(a1)
		a3 = divu a2, a0
		exit if bltu a3, a4
		a5 = ld 0(a3)`
	t.Run("guards follow the invariant loads and constants flow", func(t *testing.T) {
		f := build(t, src)
		n := Specialize(f, oracle{0x1000: 4, 0x1004: 12, 0x1010: 7})
		if n != 2 {
			t.Fatalf("specialized %d loads, want 2 (a5's value is never read)", n)
		}
		if err := Verify(f); err != nil {
			t.Fatalf("%v\n%v", err, f)
		}
		ConstFold(f)
		if err := Verify(f); err != nil {
			t.Fatalf("%v\n%v", err, f)
		}
		got := text(f)
		for _, want := range []string{"exit if bne a0, 4", "exit if bne a2, 12", "a3 = mov 3", "a5 = ld 0(3)"} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %q in\n%s", want, got)
			}
		}
		// Each guard's exit continues after its load, which has retired.
		var spec int
		for _, e := range f.Exits {
			if e.Spec {
				spec++
				if e.Kind != exit.Branch || e.Target != e.From+4 {
					t.Errorf("guard exit %v", e)
				}
			}
		}
		if spec != 2 {
			t.Errorf("%d guard exits, want 2", spec)
		}
	})
	t.Run("no oracle, no answer: the Func is unchanged", func(t *testing.T) {
		for _, o := range []ValueOracle{nil, oracle{}} {
			f := build(t, src)
			before := text(f)
			if n := Specialize(f, o); n != 0 || text(f) != before {
				t.Errorf("oracle %v changed the Func:\n%s", o, text(f))
			}
		}
	})
}
