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

// TestIBLIndex checks the slot function on a few pcs: the probe computes
// the same thing in native code (tested end to end in package fragment).
func TestIBLIndex(t *testing.T) {
	for _, tc := range []struct{ pc, slot uint64 }{
		{0, 0}, {2, 1}, {4, 2}, {2 * (IBLEntries - 1), IBLEntries - 1}, {2 * IBLEntries, 0},
		{1<<63 | 12, 6}, {^uint64(1), IBLEntries - 1},
	} {
		if got := IBLIndex(tc.pc); got != tc.slot {
			t.Errorf("IBLIndex(%#x) = %d, want %d", tc.pc, got, tc.slot)
		}
	}
	if IBLSlotBytes != 1<<iblSlotShift || IBLEntries&(IBLEntries-1) != 0 || IBLEmpty&1 == 0 {
		t.Error("IBL constants inconsistent")
	}
}
