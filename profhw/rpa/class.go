// Instruction and event classes: interp classes and profile tags in, PCT entry indices out (sec. 3.1, Table 1, sec. 3.4.1).

package rpa

import (
	"fmt"
	"strings"

	"rvdyn/interp"
)

// A Class is a profiling class of the RPA: one of the paper's eight
// instruction classes (Table 1) or one of the three event classes of
// section 3.4.1. Instruction classes are numbered in Table 1's order.
type Class uint8

// The classes. OpFLOAT matches the F and D computational instructions of
// RV64GC guests (their loads and stores are OpLOAD and OpSTORE, as
// Table 1 classes memory operations). The event classes are accepted by the
// language and have PCT entries, but never fire in rvdyn: they need a
// model of the TLBs and the L2 cache, which rvdyn does not have.
const (
	OpJMP      Class = iota // unconditional jumps: jal, jalr
	OpBRANCH                // conditional branches
	OpLOAD                  // loads
	OpSTORE                 // stores
	OpALU                   // integer arithmetic and logic, lui, auipc
	OpMULT                  // the M extension
	OpFLOAT                 // floating point: F and D arithmetic, conversions, moves, compares
	OpSYS                   // ecall, ebreak, fence, fence.i
	EvITLBMISS              // instruction TLB miss (never fires in rvdyn)
	EvDTLBMISS              // data TLB miss (never fires in rvdyn)
	EvL2DMISS               // L2 data cache miss (never fires in rvdyn)
	NumClasses
)

// NumOpClasses is the number of instruction classes (Table 1).
const NumOpClasses = 8

// NumTags is the number of profile tags: a tag is 2 bits (sec. 3.1).
const NumTags = 4

// NumEntries is the number of PCT entries: 8 instruction classes times 4
// tags, plus the three event classes (sec. 3.4.1).
const NumEntries = NumOpClasses*NumTags + 3

var classNames = [NumClasses]string{
	"opJMP", "opBRANCH", "opLOAD", "opSTORE", "opALU", "opMULT", "opFLOAT", "opSYS",
	"evITLBMISS", "evDTLBMISS", "evL2DMISS",
}

// String returns the class's mnemonic as the language spells it, e.g.
// "opBRANCH".
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// IsEvent reports whether c is an event class (sec. 3.4.1).
func (c Class) IsEvent() bool { return c >= EvITLBMISS && c < NumClasses }

// ParseClass returns the class named s (case-insensitive).
func ParseClass(s string) (Class, bool) {
	for i, n := range classNames {
		if strings.EqualFold(n, s) {
			return Class(i), true
		}
	}
	return 0, false
}

// FromInterp maps an interpreter class to the RPA class.
func FromInterp(c interp.Class) Class {
	switch c {
	case interp.ClassJump:
		return OpJMP
	case interp.ClassBranch:
		return OpBRANCH
	case interp.ClassLoad:
		return OpLOAD
	case interp.ClassStore:
		return OpSTORE
	case interp.ClassMul:
		return OpMULT
	case interp.ClassSys:
		return OpSYS
	case interp.ClassFloat:
		return OpFLOAT
	}
	return OpALU
}

// ToInterp maps an instruction class to the interpreter class it selects;
// ok is false for the event classes, which select nothing.
func (c Class) ToInterp() (ic interp.Class, ok bool) {
	switch c {
	case OpJMP:
		return interp.ClassJump, true
	case OpBRANCH:
		return interp.ClassBranch, true
	case OpLOAD:
		return interp.ClassLoad, true
	case OpSTORE:
		return interp.ClassStore, true
	case OpALU:
		return interp.ClassALU, true
	case OpMULT:
		return interp.ClassMul, true
	case OpSYS:
		return interp.ClassSys, true
	case OpFLOAT:
		return interp.ClassFloat, true
	}
	return 0, false
}

// An Entry indexes the PCT: Class*4+tag for an instruction class (0..31),
// 32+i for the i-th event class (32..34).
type Entry uint8

// EntryOf returns the PCT entry of an instruction class and tag (tag < 4);
// for an event class the tag is ignored.
func EntryOf(c Class, tag uint8) Entry {
	if c.IsEvent() {
		return Entry(NumOpClasses*NumTags) + Entry(c-EvITLBMISS)
	}
	return Entry(c)*NumTags + Entry(tag&3)
}

// Class returns the class of the entry.
func (e Entry) Class() Class {
	if e >= NumOpClasses*NumTags {
		return EvITLBMISS + Class(e-NumOpClasses*NumTags)
	}
	return Class(e / NumTags)
}

// Tag returns the profile tag of an instruction-class entry (0 for events).
func (e Entry) Tag() uint8 {
	if e >= NumOpClasses*NumTags {
		return 0
	}
	return uint8(e % NumTags)
}

// String renders the entry as "opSTORE/1" or "evL2DMISS".
func (e Entry) String() string {
	if e.Class().IsEvent() {
		return e.Class().String()
	}
	return fmt.Sprintf("%v/%d", e.Class(), e.Tag())
}
