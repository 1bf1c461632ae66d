package fragment_test

import (
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// TestIndirectJumpCheck records a jalr through a register to one target
// and replays with the register pointing elsewhere: the fragment must
// leave through the indirect exit with the jalr completed (its link
// register written), for any even target.
func TestIndirectJumpCheck(t *testing.T) {
	const T = rvtest.MakeELFText
	enc := rvtest.Encode
	words := []uint32{
		enc(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}), // 0x00
		enc(interp.Inst{Op: interp.OpJALR, Rd: 1, Rs1: 8, Imm: 0}),   // 0x04: jump through s0
		enc(interp.Inst{Op: interp.OpADDI, Rd: 11, Rs1: 11, Imm: 1}), // 0x08
		enc(interp.Inst{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1}), // 0x0c
		enc(interp.Inst{Op: interp.OpECALL}),                         // 0x10
	}
	img := rvtest.MakeELF(words, nil, 4096)
	rec := load(t, img)
	rec.CPU.X[8] = T + 0x0c
	trace, _, err := net.Record(rec, 100, func(uint64) bool { return false })
	if err != nil || trace.Len() != 3 {
		t.Fatalf("recorded %v, %v", trace, err)
	}
	code, err := fragment.Compile(trace, fragment.EnvOf(rec), fragment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := codecache.New(codecache.Options{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	f, err := cache.Insert(code)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		s0         uint64
		kind       exit.Kind
		target     uint64
		retired    int64
		ra, a1, a2 uint64
	}{
		{"recorded target", T + 0x0c, exit.Branch, T + 0x10, 3, T + 8, 0, 1},
		{"other target", T + 0x08, exit.Indirect, T + 0x08, 2, T + 8, 0, 0},
		{"target 2 mod 4", T + 0x0a, exit.Indirect, T + 0x0a, 2, T + 8, 0, 0}, // legal with compressed instructions
		{"odd target", T + 0x0d, exit.Branch, T + 0x10, 3, T + 8, 0, 1},       // jalr clears bit 0
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := load(t, img)
			st := new(fragment.State)
			m.UseCPU(&st.CPU)
			st.CPU.X[8] = tc.s0
			st.Budget = 100
			e := cache.Enter(f, st, m.Mem.Base())
			target := e.Target
			if e.Kind == exit.Indirect {
				target = st.CPU.PC
			}
			if e.Kind != tc.kind || target != tc.target || 100-st.Budget != tc.retired {
				t.Fatalf("exit %v to 0x%x after %d, want %v to 0x%x after %d", e.Kind, target, 100-st.Budget, tc.kind, tc.target, tc.retired)
			}
			if st.CPU.X[1] != tc.ra || st.CPU.X[11] != tc.a1 || st.CPU.X[12] != tc.a2 || st.CPU.X[10] != 1 {
				t.Fatalf("ra=%#x a0=%d a1=%d a2=%d", st.CPU.X[1], st.CPU.X[10], st.CPU.X[11], st.CPU.X[12])
			}
		})
	}
}
