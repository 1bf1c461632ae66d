package amd64

import (
	"encoding/binary"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestPatchFields assembles the two sequences the code cache patches and
// checks that the named field offsets (linkRel32Field, exitIDField) land
// on the fields: patching a value there must change exactly the decoded
// jump displacement or immediate, and nothing else about the instruction.
func TestPatchFields(t *testing.T) {
	a := newAssembler()
	a.op(xMOVQ, reg(rAX), reg(rCX)) // something before, so offsets are not 0
	link := a.jmpPatchable()
	id := a.movExitID(StateExit)
	a.op(xRET, none, none)
	code, err := a.assemble()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		field patchField
		start int // offset of the instruction
		check func(in x86asm.Inst, v uint32) bool
	}{
		{"link jump rel32", link, link.offset() - linkRel32Field, func(in x86asm.Inst, v uint32) bool {
			return in.Op == x86asm.JMP && in.Len == 5 && in.Args[0] == x86asm.Rel(int32(v))
		}},
		{"exit ID imm32", id, id.offset() - exitIDField, func(in x86asm.Inst, v uint32) bool {
			m, ok := in.Args[0].(x86asm.Mem)
			return in.Op == x86asm.MOV && in.Len == 11 && in.DataSize == 32 && ok &&
				m.Base == x86asm.R15 && m.Disp == StateExit && in.Args[1] == x86asm.Imm(int32(v))
		}},
	} {
		for _, v := range []uint32{0, 0x12345678, 0xfffffff0} {
			b := append([]byte(nil), code...)
			binary.LittleEndian.PutUint32(b[tc.field.offset():], v)
			in, err := x86asm.Decode(b[tc.start:], 64)
			if err != nil || !tc.check(in, v) {
				t.Errorf("%s: patching %#x at offset %d (instruction at %d) gives %v (%v), bytes % x",
					tc.name, v, tc.field.offset(), tc.start, in, err, b[tc.start:tc.start+in.Len])
			}
		}
	}
}

// TestIBLSet checks the set function on a few pcs (the probe computes
// the same thing in native code, tested end to end in package fragment),
// and IBLPlace and IBLRemove on one set: two pcs of a set both stay, a
// third evicts the older, a removal empties only its own slot.
func TestIBLSet(t *testing.T) {
	for _, tc := range []struct{ pc, set uint64 }{
		{0, 0}, {2, 1}, {4, 2}, {2 * (IBLSets - 1), IBLSets - 1}, {2 * IBLSets, 0},
		{1<<63 | 12, 6}, {^uint64(1), IBLSets - 1},
	} {
		if got := IBLSet(tc.pc); got != tc.set {
			t.Errorf("IBLSet(%#x) = %d, want %d", tc.pc, got, tc.set)
		}
	}
	if IBLWays*IBLSlotBytes != 1<<iblSetShift || IBLSets&(IBLSets-1) != 0 || IBLEmpty&1 == 0 || IBLWays != 2 {
		t.Error("IBL constants inconsistent")
	}
	table := make([]uint64, 2*IBLEntries)
	IBLClear(table, true)
	look := func(pc uint64) uint64 { // the probe's answer, 0 for a miss
		i := 2 * IBLWays * IBLSet(pc)
		for w := range uint64(IBLWays) {
			if table[i+2*w] == pc {
				return table[i+2*w+1]
			}
		}
		return 0
	}
	const stride = 2 * IBLSets // the same set
	a, b, c := uint64(0x10000), uint64(0x10000+stride), uint64(0x10000+2*stride)
	IBLPlace(table, a, 1)
	IBLPlace(table, b, 2)
	if look(a) != 1 || look(b) != 2 {
		t.Fatalf("two pcs of one set: %d, %d", look(a), look(b))
	}
	IBLPlace(table, a, 3) // again: in place, b stays
	IBLPlace(table, c, 4) // evicts the older of the two
	if look(c) != 4 || look(a)+look(b) == 0 || look(a) != 0 && look(b) != 0 {
		t.Fatalf("a third pc: c %d, a %d, b %d", look(c), look(a), look(b))
	}
	IBLRemove(table, c)
	if look(c) != 0 || look(a)+look(b) == 0 {
		t.Fatalf("after removing c: c %d, a %d, b %d", look(c), look(a), look(b))
	}
	IBLPlace(table, 0, 5) // target 0 has a set of its own, tagged empty by IBLClear
	if look(0) != 5 || look(2) != 0 {
		t.Fatalf("pc 0: %d, pc 2: %d", look(0), look(2))
	}
}

// TestFlagNibbles checks fflagsInto's table: nibble i of flagNibbles is
// i with its four bits reversed, so that MXCSR's ZE, OE, UE, PE (bits
// 2..5) become fflags' DZ, OF, UF, NX (bits 3..0).
func TestFlagNibbles(t *testing.T) {
	n := int64(flagNibbles)
	table := uint64(n)
	for i := uint64(0); i < 16; i++ {
		var rev uint64
		for b := uint64(0); b < 4; b++ {
			rev |= (i >> b & 1) << (3 - b)
		}
		if got := table >> (4 * i) & 15; got != rev {
			t.Errorf("nibble %d = %#x, want %#x", i, got, rev)
		}
	}
}

// TestJumpsReachTheirLabels assembles jumps, conditional and not,
// forward and backward, over distances around the reach of a rel8
// (NOP padding of 0 to 300 bytes), some of them moved to the end with
// moveToEnd, and decodes the code: every jump must land on its label's
// instruction; all are short when the gaps are small, none when they
// are far beyond a byte's reach.
func TestJumpsReachTheirLabels(t *testing.T) {
	for _, gap := range []int{0, 1, 60, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 200, 300} {
		a := newAssembler()
		a.reserveMarks(8)
		back, fwd, end := &label{}, &label{}, &label{}
		a.bind(back)
		backMark := a.mark()
		a.op(xMOVQ, reg(rAX), reg(rCX))
		a.nops(gap)
		a.jcc(condNE, back)
		a.jmp(fwd)
		a.nops(gap)
		a.jcc(condPS, end)
		moved := a.mark()
		a.jcc(condLT, back) // moved to the end: its reach changes
		a.nops(gap / 2)
		last := a.last
		a.bind(fwd)
		fwdMark := a.mark()
		a.op(xADDQ, imm(1), reg(rAX))
		a.moveToEnd(moved, last)
		a.bind(end)
		endMark := a.mark()
		a.op(xRET, none, none)
		code, err := a.assemble()
		if err != nil {
			t.Fatal(err)
		}
		targets := map[int]bool{a.markOffset(backMark): true, a.markOffset(fwdMark): true, a.markOffset(endMark): true}
		jumps, shorts := 0, 0
		for pc := 0; pc < len(code); {
			in, err := x86asm.Decode(code[pc:], 64)
			if err != nil {
				t.Fatalf("gap %d: decoding at %d: %v", gap, pc, err)
			}
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				jumps++
				to := pc + in.Len + int(rel)
				if !targets[to] {
					t.Errorf("gap %d: %v at %d goes to %d, no label there (labels %v)", gap, in, pc, to, targets)
				}
				if in.Len == 2 {
					shorts++
				}
			}
			pc += in.Len
		}
		if jumps != 4 {
			t.Errorf("gap %d: %d jumps decoded, want 4", gap, jumps)
		}
		if gap < 30 && shorts != 4 || gap > 260 && shorts != 0 {
			t.Errorf("gap %d: %d of the jumps are short", gap, shorts)
		}
		a.release()
	}
}
