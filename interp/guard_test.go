package interp_test

import (
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestGuardGap checks the layout Load gives a 16 MiB address space (a
// 4 MiB stack under the top page, a 1 MiB guard gap under it, the brk limit
// at the gap) and that every access path refuses the gap: the loops' and
// Step's checks and the system calls' range checks.
func TestGuardGap(t *testing.T) {
	img := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpLD, Rd: 10, Rs1: 11}), rvtest.Encode(interp.Inst{Op: interp.OpSD, Rs1: 11, Rs2: 10})}, nil, 4096)
	m, err := interp.Load(img, interp.Config{MemSize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const top = 16<<20 - 4096
	lo, hi := m.Mem.Guard()
	if hi != top-4<<20 || lo != hi-1<<20 || m.BrkLimit() != lo {
		t.Fatalf("guard gap [%#x, %#x), brk limit %#x", lo, hi, m.BrkLimit())
	}
	for _, tc := range []struct {
		addr uint64
		ok   bool
	}{
		{lo - 8, true}, {lo, false}, {lo + 4096, false}, {hi - 8, false}, {hi - 1, false}, {hi, true}, {top, true}, {16 << 20, false},
	} {
		if m.Mem.ReadOK(tc.addr) != tc.ok || m.Mem.WriteOK(tc.addr) != tc.ok || m.Mem.CanRead(tc.addr, 8) != tc.ok || m.Mem.CanWrite(tc.addr, 8) != tc.ok {
			t.Errorf("address %#x: read %v write %v, want %v", tc.addr, m.Mem.ReadOK(tc.addr), m.Mem.WriteOK(tc.addr), tc.ok)
		}
		for _, fast := range []bool{true, false} {
			m.CPU.PC, m.CPU.X[11] = rvtest.MakeELFText, tc.addr
			var err error
			if fast {
				_, err = m.RunUntil(2, 0)
			} else if _, err = m.Step(); err == nil {
				_, err = m.Step()
			}
			if f, isFault := err.(*interp.Fault); (err == nil) != tc.ok || isFault && f.Addr != tc.addr {
				t.Errorf("address %#x (fast loop %v): %v", tc.addr, fast, err)
			}
		}
	}
	// A range that starts below the gap and runs into it is refused.
	if m.Mem.CanRead(lo-8, 16) || m.Mem.CanWrite(lo-4096, 8192) {
		t.Error("a range running into the guard gap passes")
	}
}
