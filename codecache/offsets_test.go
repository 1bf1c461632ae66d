package codecache

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"unsafe"

	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
)

// TestTrampolineOffsets pins the State offsets enter_amd64.s uses (the
// #defines of state_amd64.h) against the Go struct and the backend's
// constants, as wazero's Test_ExecutionContextOffsets does.
func TestTrampolineOffsets(t *testing.T) {
	src, err := os.ReadFile("state_amd64.h")
	if err != nil {
		t.Fatal(err)
	}
	defines := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^#define (\w+) (\d+)$`).FindAllStringSubmatch(string(src), -1) {
		defines[m[1]], _ = strconv.Atoi(m[2])
	}
	var s fragment.State
	for _, tc := range []struct {
		name    string
		offset  uintptr
		backend int
	}{
		{"State_Budget", unsafe.Offsetof(s.Budget), amd64.StateBudget},
		{"State_MXCSR", unsafe.Offsetof(s.MXCSR), amd64.StateMXCSR},
	} {
		got, ok := defines[tc.name]
		switch {
		case !ok:
			t.Errorf("state_amd64.h does not define %s", tc.name)
		case uintptr(got) != tc.offset || got != tc.backend:
			t.Errorf("%s = %d, but the Go struct has it at %d and the backend at %d", tc.name, got, tc.offset, tc.backend)
		}
	}
	if len(defines) != 2 {
		t.Errorf("state_amd64.h defines %d names; check each here", len(defines))
	}
}
