package fragment

import (
	"testing"
	"unsafe"
)

// TestStateLayout pins the State offsets that generated code hard-codes.
func TestStateLayout(t *testing.T) {
	var s State
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"CPU.X", unsafe.Offsetof(s.CPU) + unsafe.Offsetof(s.CPU.X), offX},
		{"CPU.PC", unsafe.Offsetof(s.CPU) + unsafe.Offsetof(s.CPU.PC), offPC},
		{"Budget", unsafe.Offsetof(s.Budget), offBudget},
		{"Exit", unsafe.Offsetof(s.Exit), offExit},
		{"IBL", unsafe.Offsetof(s.IBL), offIBL},
	} {
		if tc.got != tc.want {
			t.Errorf("offset of %s = %d, generated code uses %d", tc.name, tc.got, tc.want)
		}
	}
	if regOff(31) != 248 {
		t.Errorf("regOff(31) = %d", regOff(31))
	}
}
