// Tests of the interpreter event source on a hand-made guest.

package profhw

import (
	"errors"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// loopProgram is a hand-made guest:
//
//	0x10000  addi a0, zero, 5
//	0x10004  lui  a1, 0x20         ; a1 = data (holds 42)
//	0x10008  ld   a2, 0(a1)        ; loop:
//	0x1000c  jal  ra, +24          ; call f at 0x10024
//	0x10010  addi a0, a0, -1
//	0x10014  bne  a0, zero, -12    ; to loop
//	0x10018  addi a7, zero, 93
//	0x1001c  addi a0, zero, 3
//	0x10020  ecall                 ; exit(3)
//	0x10024  jalr zero, 0(ra)      ; f: return
func loopProgram() []byte {
	I := func(op interp.Op, rd, rs1, rs2 uint8, imm int64) uint32 {
		return rvtest.Encode(interp.Inst{Op: op, Rd: rd, Rs1: rs1, Rs2: rs2, Imm: imm})
	}
	text := []uint32{
		I(interp.OpADDI, 10, 0, 0, 5),
		I(interp.OpLUI, 11, 0, 0, 0x20000),
		I(interp.OpLD, 12, 11, 0, 0),
		I(interp.OpJAL, 1, 0, 0, 24),
		I(interp.OpADDI, 10, 10, 0, -1),
		I(interp.OpBNE, 0, 10, 0, -12),
		I(interp.OpADDI, 17, 0, 0, 93),
		I(interp.OpADDI, 10, 0, 0, 3),
		I(interp.OpECALL, 0, 0, 0, 0),
		I(interp.OpJALR, 0, 1, 0, 0),
	}
	data := []byte{42, 0, 0, 0, 0, 0, 0, 0}
	return rvtest.MakeELF(text, data, 4096)
}

func TestGuestSourceSelectsTuples(t *testing.T) {
	var all KindSet
	all = all.With(KindValue).With(KindEdge).With(KindCall)
	g := &GuestSource{Image: loopProgram(), Args: []string{"loop"}, Kinds: all}
	ts, rs, retired, err := collect(t, g)
	if err != nil {
		t.Fatal(err)
	}
	if g.ExitCode != 3 || g.Limited {
		t.Errorf("exit code %d, limited %v", g.ExitCode, g.Limited)
	}
	var want []Tuple
	for i := 0; i < 5; i++ {
		next := uint64(0x10008)
		if i == 4 {
			next = 0x10018
		}
		want = append(want,
			MakeTuple(KindValue, 0x10008, 42),
			MakeTuple(KindEdge, 0x1000c, 0x10024),
			MakeTuple(KindCall, 0x1000c, 0x10024),
			MakeTuple(KindEdge, 0x10024, 0x10010),
			MakeTuple(KindEdge, 0x10014, next))
	}
	if len(ts) != len(want) {
		t.Fatalf("%d tuples, want %d: %v", len(ts), len(want), ts)
	}
	for i := range want {
		if ts[i] != want[i] {
			t.Errorf("tuple %d = %v, want %v", i, ts[i], want[i])
		}
	}
	// Instruction counts: 2 before the loop, then 5 per iteration (ld,
	// jal, jalr, addi, bne); the ld of iteration i retires as 2+5i+1.
	if rs[0] != 3 || rs[len(rs)-1] != 27 {
		t.Errorf("retired at first/last tuple %d/%d, want 3/27", rs[0], rs[len(rs)-1])
	}
	if retired < 29 || retired > 30 {
		t.Errorf("total retired %d, want 29 or 30 (with or without the exit ecall)", retired)
	}
	// Only the selected profile.
	g = &GuestSource{Image: loopProgram(), Kinds: KindSet(0).With(KindCall)}
	ts, _, _, _ = collect(t, g)
	if len(ts) != 5 || ts[0].Kind() != KindCall {
		t.Errorf("call profile: %v", ts)
	}
}

func TestGuestSourceLimitAndErrors(t *testing.T) {
	g := &GuestSource{Image: loopProgram(), MaxInstructions: 10}
	_, _, retired, err := collect(t, g)
	if err != nil || !g.Limited || retired != 10 {
		t.Errorf("limit: retired %d, limited %v, err %v", retired, g.Limited, err)
	}
	g = &GuestSource{Image: []byte("not an elf")}
	if _, err := g.Run(func(Batch) error { return nil }); err == nil {
		t.Error("bad image accepted")
	}
	boom := errors.New("sink full")
	g = &GuestSource{Image: loopProgram()}
	if _, err := g.Run(func(Batch) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("emit error lost: %v", err)
	}
}
