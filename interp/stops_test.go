// Tests of the stop set: a program with a backward branch, a fence.i and a marked entry -> the stops each StopSet asks for, in both interpreter loops.

package interp_test

import (
	"fmt"
	"slices"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// stopsProgram runs the body twice:
//
//	0x00 addi a0,zero,2
//	0x04 fence.i           <- backward target
//	0x08 jal  zero,+8      to 0x10 (marked in the test)
//	0x0c ebreak            (skipped)
//	0x10 addi a0,a0,-1
//	0x14 bne  a0,zero,-16  back to 0x04
//	0x18 addi a7,zero,93
//	0x1c ecall             exit(a0 = 0)
func stopsProgram() []byte {
	return rvtest.MakeELF([]uint32{
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 10, Imm: 2}),
		rvtest.Encode(interp.Inst{Op: interp.OpFENCEI}),
		rvtest.Encode(interp.Inst{Op: interp.OpJAL, Imm: 8}),
		rvtest.Encode(interp.Inst{Op: interp.OpEBREAK}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1}),
		rvtest.Encode(interp.Inst{Op: interp.OpBNE, Rs1: 10, Imm: -16}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}),
		rvtest.Encode(interp.Inst{Op: interp.OpECALL}),
	}, nil, 4096)
}

type stopAt struct {
	stop    interp.Stop
	pc      uint64
	retired uint64
}

func TestStopSet(t *testing.T) {
	const T = rvtest.MakeELFText
	all := []stopAt{
		{interp.StopFenceI, T + 8, 2}, {interp.StopMarked, T + 0x10, 3}, {interp.StopBackward, T + 4, 5},
		{interp.StopFenceI, T + 8, 6}, {interp.StopMarked, T + 0x10, 7}, {interp.StopExit, T + 0x20, 11},
	}
	want := func(s interp.StopSet, quiet bool) []stopAt {
		var w []stopAt
		for _, a := range all {
			switch a.stop {
			case interp.StopFenceI:
				if s&interp.StopOnFenceI == 0 {
					continue
				}
			case interp.StopMarked:
				if s&interp.StopOnMarked == 0 {
					continue
				}
			case interp.StopBackward:
				if s&interp.StopOnBackward == 0 || quiet {
					continue
				}
			}
			w = append(w, a)
		}
		return w
	}
	for s := interp.StopSet(0); s <= interp.StopOnBackward|interp.StopOnMarked|interp.StopOnFenceI; s++ {
		for _, hooked := range []bool{false, true} {
			for _, quiet := range []bool{false, true} {
				t.Run(fmt.Sprintf("set %03b hooked %v quiet %v", s, hooked, quiet), func(t *testing.T) {
					m, err := interp.Load(stopsProgram(), interp.Config{})
					if err != nil {
						t.Fatal(err)
					}
					defer m.Close()
					m.Mark(T+0x10, true)
					if quiet {
						m.Quiet(T + 4)
					}
					if hooked {
						m.SetHook(interp.MaskOf(interp.ClassBranch, interp.ClassJump), interp.HookFunc(func(*interp.Event) {}))
					}
					var got []stopAt
					for !m.Exited() && len(got) < 20 {
						stop, err := m.RunUntil(100, s)
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, stopAt{stop, m.CPU.PC, m.Retired()})
					}
					if w := want(s, quiet); !slices.Equal(got, w) {
						t.Errorf("stops %v\nwant  %v", got, w)
					}
				})
			}
		}
	}
}

func TestBackward(t *testing.T) {
	for _, tc := range []struct {
		pc, target uint64
		want       bool
	}{{0x100, 0x100, true}, {0x100, 0xfc, true}, {0x100, 0x104, false}, {0, 0, true}} {
		if got := interp.Backward(tc.pc, tc.target); got != tc.want {
			t.Errorf("Backward(%#x, %#x) = %v", tc.pc, tc.target, got)
		}
	}
}
