// Record fields: Table 2's mnemonics in, field masks and record word layouts out (sec. 3.1).

package rpa

import (
	"fmt"
	"math/bits"
	"strings"
)

// A Field is one 32-bit word of information a profile record may carry
// (Table 2), numbered in Table 2's order. What each field holds for an
// RV64IM instruction is defined by BuildRecord (record.go) and docs/rpa.md.
type Field uint8

// The fields of Table 2.
const (
	FieldPC     Field = iota // instruction pc (low 32 bits; guest addresses are below 2 GiB)
	FieldThread              // thread id: always 1, the tid rvdyn's gettid answers
	FieldOp1                 // input operand 1, low 32 bits
	FieldOp1Up               // input operand 1, high 32 bits
	FieldOp2                 // input operand 2, low 32 bits
	FieldOp2Up               // input operand 2, high 32 bits
	FieldOp3                 // input operand 3 (an address or target), low 32 bits
	FieldRes1                // result 1, low 32 bits
	FieldRes1U               // result 1, high 32 bits
	FieldRes2                // result 2 (an effective address or next pc), low 32 bits
	FieldMisc                // branch outcome and instruction facts, see Misc*
	FieldFTime               // cycle fetched (cost model: one instruction per cycle)
	FieldFRate               // instructions fetched in that cycle (model: 1)
	FieldDRate               // instructions dispatched in that cycle (model: 1)
	FieldIRate               // instructions issued in that cycle (model: 1)
	FieldWLat                // execution window latency in cycles (model: 1)
	FieldELat                // execution latency in cycles (model: 1)
	FieldRTime               // cycle retired (model: the fetch cycle)
	FieldRRate               // retire rate: c<<16 | n (model: c = 0, n = 1)
	NumFields
)

// MaxRecordWords is the number of words in a profile record: "The proposed
// RPA limits the information collected to seven words per record" (sec. 3.1).
const MaxRecordWords = 7

var fieldNames = [NumFields]string{
	"pc", "thread", "op1", "op1up", "op2", "op2up", "op3", "res1", "res1u", "res2",
	"misc", "ftime", "frate", "drate", "irate", "wlat", "elat", "rtime", "rrate",
}

// String returns the field's mnemonic, e.g. "res1u".
func (f Field) String() string {
	if f < NumFields {
		return fieldNames[f]
	}
	return fmt.Sprintf("Field(%d)", uint8(f))
}

// ParseField returns the field named s (case-insensitive).
func ParseField(s string) (Field, bool) {
	for i, n := range fieldNames {
		if strings.EqualFold(n, s) {
			return Field(i), true
		}
	}
	return 0, false
}

// eventFields are the fields an event class may collect: "At least the
// instruction PC, a cycle count, and the effective address are expected to
// be available" (sec. 3.4.1).
const eventFields = FieldMask(1<<FieldPC | 1<<FieldThread | 1<<FieldRes2 | 1<<FieldFTime | 1<<FieldRTime)

// A FieldMask selects fields: bit f is set for Field f. A record holds the
// selected fields in Table 2's order (not the order a query lists them):
// the mask cannot encode another order, and the PCR holds only the mask.
type FieldMask uint32

// Has reports whether the mask selects f.
func (m FieldMask) Has(f Field) bool { return m&(1<<f) != 0 }

// Len returns the number of selected fields: the record's length in words.
func (m FieldMask) Len() int { return bits.OnesCount32(uint32(m)) }

// Fields returns the selected fields in record order.
func (m FieldMask) Fields() []Field {
	var fs []Field
	for f := Field(0); f < NumFields; f++ {
		if m.Has(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

// Word returns the record word that holds f, and false if f is not
// selected.
func (m FieldMask) Word(f Field) (int, bool) {
	if !m.Has(f) {
		return 0, false
	}
	return bits.OnesCount32(uint32(m) & (1<<f - 1)), true
}

// Misc bits (the misc field, Table 2: "exceptions and branch outcome").
// An instruction that faults does not retire and produces no record, so no
// exception bit is ever set in rvdyn; the paper's branch misprediction flag
// is computed against a stated static predictor.
const (
	MiscTaken      = 1 << 0 // a conditional branch was taken, or any jal/jalr
	MiscMispredict = 1 << 1 // a conditional branch went against static backward-taken/forward-not-taken prediction
	MiscBackward   = 1 << 2 // a taken control transfer to a target <= pc
	MiscCall       = 1 << 3 // a jal/jalr that writes ra or t0 (interp.Inst.IsCall)
	MiscReturn     = 1 << 4 // jalr x0, 0(ra) or 0(t0)
	MiscOpShift    = 8      // bits 8-15: the interp.Op of the instruction
	MiscTagShift   = 16     // bits 16-17: the instruction's profile tag
)
