package fragment_test

import (
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// TestIndirectLookupMisses runs a fragment whose jalr goes elsewhere than
// recorded: to its own head, which is in the lookup table (a hit, unless
// the fragment was compiled with NoIBL), and to guest address 0 and
// other targets that are not in the table (misses: the fragment returns
// with the target in PC). No target, 0 included, may select an empty
// slot's entry address.
func TestIndirectLookupMisses(t *testing.T) {
	const T = rvtest.MakeELFText
	enc := rvtest.Encode
	words := []uint32{
		enc(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}), // T:   a0++
		enc(interp.Inst{Op: interp.OpJALR, Rd: 0, Rs1: 8}),           // T+4: jr s0
		enc(interp.Inst{Op: interp.OpECALL}),                         // T+8
	}
	img := rvtest.MakeELF(words, nil, 4096)
	for _, cfg := range []struct{ noIBL, flushed bool }{{false, false}, {false, true}, {true, false}} {
		noIBL := cfg.noIBL
		rec := load(t, img)
		rec.CPU.X[8] = T + 8
		trace, _, err := net.Record(rec, 100, func(uint64) bool { return false })
		if err != nil || trace.Len() != 2 {
			t.Fatalf("recorded %v, %v", trace, err)
		}
		code, err := fragment.Compile(trace, fragment.EnvOf(rec), fragment.Options{NoIBL: noIBL})
		if err != nil {
			t.Fatal(err)
		}
		cache, err := codecache.New(codecache.Options{Size: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close()
		if cfg.flushed {
			// A flushed table is as empty as a new one (zero pages but
			// for slot 0's tag): fill the slots the misses probe, then
			// flush.
			for _, head := range []uint64{0, 4, 1 << 18} {
				c := *code
				c.Head = head
				if _, err := cache.Insert(&c); err != nil {
					t.Fatal(err)
				}
			}
			cache.Flush()
		}
		f, err := cache.Insert(code)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			s0     uint64
			looped bool // found in the table: runs until the budget
		}{
			{T, !noIBL}, {0, false}, {4, false}, {1 << 18, false}, {amd64.IBLEmpty &^ 3, false},
		} {
			m := load(t, img)
			st := new(fragment.State)
			m.UseCPU(&st.CPU)
			st.CPU.X[8] = tc.s0
			st.Budget = 1000
			e := cache.Enter(f, st, m.Mem.Base())
			switch {
			case tc.looped && (st.Budget > 0 || st.CPU.X[10] != 500):
				t.Errorf("noIBL=%v s0=%#x: budget %d, a0 %d: the table hit did not loop", noIBL, tc.s0, st.Budget, st.CPU.X[10])
			case !tc.looped && (e.Kind != exit.Indirect || st.CPU.PC != tc.s0 || st.Budget != 998):
				t.Errorf("noIBL=%v s0=%#x: exit %v to %#x, budget %d; want an indirect exit to %#x after 2",
					noIBL, tc.s0, e.Kind, st.CPU.PC, st.Budget, tc.s0)
			}
		}
	}
}
