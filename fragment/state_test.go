package fragment

import (
	"testing"
	"unsafe"

	"rvdyn/fragment/amd64"
)

// TestStateLayout pins the State offsets that generated code hard-codes.
func TestStateLayout(t *testing.T) {
	var s State
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"CPU.X", unsafe.Offsetof(s.CPU) + unsafe.Offsetof(s.CPU.X), amd64.StateX},
		{"CPU.PC", unsafe.Offsetof(s.CPU) + unsafe.Offsetof(s.CPU.PC), amd64.StatePC},
		{"Budget", unsafe.Offsetof(s.Budget), amd64.StateBudget},
		{"Exit", unsafe.Offsetof(s.Exit), amd64.StateExit},
		{"IBL", unsafe.Offsetof(s.IBL), amd64.StateIBL},
		{"Countdown", unsafe.Offsetof(s.Countdown), amd64.StateCountdown},
		{"FlagSnaps", unsafe.Offsetof(s.FlagSnaps), amd64.StateFlagSnaps},
		{"Native", unsafe.Offsetof(s.Native), amd64.StateNative},
		{"MXCSR", unsafe.Offsetof(s.MXCSR), amd64.StateMXCSR},
	} {
		if tc.got != tc.want {
			t.Errorf("offset of %s = %d, generated code uses %d", tc.name, tc.got, tc.want)
		}
	}
	if NumFlagSnaps != amd64.MaxFlagSnaps || unsafe.Sizeof(s.FlagSnaps[0]) != 4 {
		t.Errorf("State.FlagSnaps holds %d 4-byte slots; generated code uses %d", NumFlagSnaps, amd64.MaxFlagSnaps)
	}
	if n := unsafe.Sizeof(s.CPU.X) / unsafe.Sizeof(s.CPU.X[0]); n != 32 || unsafe.Sizeof(s.CPU.X[0]) != 8 {
		t.Errorf("CPU.X is %d registers of %d bytes; generated code assumes 32 of 8", n, unsafe.Sizeof(s.CPU.X[0]))
	}
}
