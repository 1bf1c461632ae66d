package interp_test

import (
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// hugeText returns a one-segment image whose text claims memsz bytes of
// memory but holds two instructions in the file: "li a7,93; ecall".
func hugeText(memsz uint64) []byte {
	img := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 0)
	binary.LittleEndian.PutUint16(img[56:], 1)        // one program header: the text
	binary.LittleEndian.PutUint64(img[64+40:], memsz) // its memsz
	return img
}

// TestHugeTextIsCheap: a small file whose text segment claims most of the
// address space loads and runs without allocating or decoding that much.
func TestHugeTextIsCheap(t *testing.T) {
	for _, memsz := range []uint64{64 << 20, 900 << 20} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		m, err := interp.Load(hugeText(memsz), interp.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(100); err != nil || !m.Exited() || m.Retired() != 2 {
			t.Errorf("memsz %d: %v after %d instructions", memsz, err, m.Retired())
		}
		took := time.Since(start)
		m.Close()
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 || took > time.Second {
			t.Errorf("memsz %d: loading and running allocated %d bytes and took %v", memsz, alloc, took)
		}
	}
}

// TestZeroPaddingIsIllegal: the rest of the text's last page is
// executable zeros, as Linux maps it: jumping there is an illegal
// instruction (SIGILL), not a bad jump target; past that page it is.
func TestZeroPaddingIsIllegal(t *testing.T) {
	for _, tc := range []struct {
		target int64
		kind   interp.FaultKind
	}{{8, interp.FaultIllegal}, {4092, interp.FaultIllegal}, {4096, interp.FaultFetch}} {
		img := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpJAL, Imm: tc.target}), rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 4096)
		for _, step := range []bool{false, true} {
			m, err := interp.Load(img, interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if step {
				m.Step()
				_, err = m.Step()
			} else {
				err = m.Run(10)
			}
			f, ok := err.(*interp.Fault)
			if !ok || f.Kind != tc.kind || f.PC != rvtest.MakeELFText+uint64(tc.target) {
				t.Errorf("jump to text+%d (step %v): %v, want %v", tc.target, step, err, tc.kind)
			}
			m.Close()
		}
	}
}
