// Tests of the profile comparisons on tiny profiles with known answers.

package layout

import (
	"math"
	"slices"
	"testing"
)

func TestChiSquare(t *testing.T) {
	c := Profile{10, 30, 60, 0}
	if chi, stray := ChiSquare(Profile{1, 3, 6, 0}, c); chi != 0 || stray != 0 {
		t.Errorf("proportional profiles: chi2 %v stray %v, want 0 0", chi, stray)
	}
	// Observed shares .2 .3 .5 against .1 .3 .6 of 1e6 trials:
	// (1e5)^2/1e5 + 0 + (1e5)^2/6e5.
	chi, _ := ChiSquare(Profile{2, 3, 5, 0}, c)
	if want := 1e5 + 1e10/6e5; chi < want*(1-1e-9) || chi > want*(1+1e-9) {
		t.Errorf("chi2 = %v, want %v", chi, want)
	}
	if _, stray := ChiSquare(Profile{1, 1, 1, 1}, c); stray != 0.25 {
		t.Errorf("stray = %v, want 0.25", stray)
	}
	// No samples is no evidence: the worst fit, never the 0 of a perfect one.
	if chi, _ := ChiSquare(Profile{0, 0, 0, 0}, c); !math.IsInf(chi, 1) {
		t.Errorf("empty sample set: chi2 %v, want +Inf", chi)
	}
	if chi, _ := ChiSquare(Profile{1, 2, 3, 4}, Profile{0, 0, 0, 0}); !math.IsNaN(chi) {
		t.Errorf("empty complete profile: chi2 %v, want NaN", chi)
	}
	e := Expected(Profile{100, 1, 50}, 1)
	if e[1] != 0 || e[0] < 100 || e[2] < 50 {
		t.Errorf("Expected = %v", e)
	}
}

func TestKeyMatch(t *testing.T) {
	ref := Profile{9, 8, 7, 6, 0}
	if got := KeyMatch(ref, ref, 0); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("identical: %v", got)
	}
	// Other ranks 1,0,3,2: top-1 differ, top-2 agree, ...
	if got := KeyMatch(ref, Profile{8, 9, 6, 7, 0}, 0); !slices.Equal(got, []int{0, 2, 2, 4}) {
		t.Errorf("swapped pairs: %v", got)
	}
}
