// Records: an interp.Event and its profile tag in, the words of a profile record out (Table 2, sec. 3.1).

package rpa

import "rvdyn/interp"

// A Record is a profile record: up to MaxRecordWords 32-bit words, the
// collected fields in Table 2 order (FieldMask.Fields). Words past the
// collected fields are zero.
type Record [MaxRecordWords]uint32

// Thread is the thread id every record carries: rvdyn guests are single
// threaded, and gettid answers 1.
const Thread = 1

// Operands are the 64-bit operand and result values of one retired
// instruction, before they are cut into 32-bit record words (Table 2). The
// mapping from RV64IM operands (docs/rpa.md):
//
//	class     op1              op2            op3          res1            res2
//	opBRANCH  rs1              rs2            pc+imm       1 taken, 0 not  next pc
//	opJMP     rs1 (jalr; jal 0) 0             target       link (rd)       target
//	opLOAD    0                base rs1       eff. addr    value loaded    eff. addr
//	opSTORE   value stored     base rs1       eff. addr    0               eff. addr
//	opALU     rs1 (auipc: pc)  rs2 or imm     0            rd              0
//	opMULT    rs1              rs2            0            rd              0
//	opSYS     a7 (ecall)       a0 before      0            a0 after        0
//
// Values are as the instruction saw them: a store's value truncated to its
// width, a load's after extension, an immediate sign-extended to 64 bits.
type Operands struct {
	Op1, Op2, Op3, Res1, Res2 uint64
	Misc                      uint32
}

// OperandsOf maps a retired instruction's event to its operands; tag is
// the instruction's profile tag (it goes into Misc).
func OperandsOf(e *interp.Event, tag uint8) Operands {
	var o Operands
	in := e.Inst
	switch e.Class {
	case interp.ClassBranch:
		o.Op1, o.Op2, o.Op3, o.Res2 = e.Src1, e.Src2, e.PC+uint64(in.Imm), e.Next
		if e.Taken {
			o.Res1 = 1
		}
		if e.Taken != (in.Imm < 0) {
			o.Misc |= MiscMispredict
		}
	case interp.ClassJump:
		if in.Op == interp.OpJALR {
			o.Op1 = e.Src1
		}
		o.Op3, o.Res1, o.Res2 = e.Next, e.Value, e.Next
		if in.IsCall() {
			o.Misc |= MiscCall
		}
		if in.Op == interp.OpJALR && in.Rd == 0 && (in.Rs1 == 1 || in.Rs1 == 5) && in.Imm == 0 {
			o.Misc |= MiscReturn
		}
	case interp.ClassLoad:
		o.Op2, o.Op3, o.Res1, o.Res2 = e.Src1, e.Addr, e.Value, e.Addr
	case interp.ClassStore:
		o.Op1, o.Op2, o.Op3, o.Res2 = e.Value, e.Src1, e.Addr, e.Addr
	case interp.ClassALU, interp.ClassMul, interp.ClassFloat:
		o.Op1, o.Op2, o.Res1 = e.Src1, e.Src2, e.Value
		switch {
		case in.Op == interp.OpLUI:
			o.Op1, o.Op2 = 0, uint64(in.Imm)
		case in.Op == interp.OpAUIPC:
			o.Op1, o.Op2 = e.PC, uint64(in.Imm)
		case in.Op >= interp.OpADDI && in.Op <= interp.OpSRAIW:
			o.Op2 = uint64(in.Imm)
		}
	case interp.ClassSys:
		if in.Op == interp.OpECALL {
			o.Op1, o.Op2, o.Res1 = e.Src1, e.Src2, e.Value
		}
	}
	if e.Taken {
		o.Misc |= MiscTaken
		if e.Next <= e.PC {
			o.Misc |= MiscBackward
		}
	}
	o.Misc |= uint32(in.Op)<<MiscOpShift | uint32(tag&3)<<MiscTagShift
	return o
}

// FieldValue returns field f of the record of the instruction whose event
// is e and whose operands are o. Timing fields follow rvdyn's cost model,
// since a DBT has no pipeline to observe: the guest runs one instruction
// per cycle, in order, so the clock is the retired-instruction count
// (e.Seq): the instruction is fetched, issued and retired in cycle Seq
// (ftime = rtime = Seq, low 32 bits), its window and execution latencies
// are 1 cycle, the fetch, dispatch and issue rates are 1, and rrate packs
// the paper's c (stall cycles before it, 0) and n (instructions retired in
// its cycle, 1) as c<<16 | n = 1.
func FieldValue(f Field, e *interp.Event, o *Operands) uint32 {
	switch f {
	case FieldPC:
		return uint32(e.PC)
	case FieldThread:
		return Thread
	case FieldOp1:
		return uint32(o.Op1)
	case FieldOp1Up:
		return uint32(o.Op1 >> 32)
	case FieldOp2:
		return uint32(o.Op2)
	case FieldOp2Up:
		return uint32(o.Op2 >> 32)
	case FieldOp3:
		return uint32(o.Op3)
	case FieldRes1:
		return uint32(o.Res1)
	case FieldRes1U:
		return uint32(o.Res1 >> 32)
	case FieldRes2:
		return uint32(o.Res2)
	case FieldMisc:
		return o.Misc
	case FieldFTime, FieldRTime:
		return uint32(e.Seq)
	case FieldFRate, FieldDRate, FieldIRate, FieldWLat, FieldELat, FieldRRate:
		return 1
	}
	return 0
}

// BuildRecord fills rec with the fields of mask, in record order, for the
// instruction of event e with profile tag tag, and returns the number of
// words.
func BuildRecord(rec *Record, mask FieldMask, e *interp.Event, tag uint8) int {
	o := OperandsOf(e, tag)
	*rec = Record{}
	n := 0
	for f := Field(0); f < NumFields && n < MaxRecordWords; f++ {
		if mask.Has(f) {
			rec[n] = FieldValue(f, e, &o)
			n++
		}
	}
	return n
}
