// Decoded instructions: the Op enum, the Inst record and instruction classes.

package interp

import "fmt"

// An Op is an RV64IM operation. The zero value, OpIllegal, marks a word that
// does not decode to an RV64IM instruction.
type Op uint8

// The RV64IM operations, in the order of the ISA manual's opcode map.
const (
	OpIllegal Op = iota
	// U and J formats.
	OpLUI
	OpAUIPC
	OpJAL
	OpJALR
	// Conditional branches.
	OpBEQ
	OpBNE
	OpBLT
	OpBGE
	OpBLTU
	OpBGEU
	// Loads.
	OpLB
	OpLH
	OpLW
	OpLD
	OpLBU
	OpLHU
	OpLWU
	// Stores.
	OpSB
	OpSH
	OpSW
	OpSD
	// Register-immediate ALU.
	OpADDI
	OpSLTI
	OpSLTIU
	OpXORI
	OpORI
	OpANDI
	OpSLLI
	OpSRLI
	OpSRAI
	OpADDIW
	OpSLLIW
	OpSRLIW
	OpSRAIW
	// Register-register ALU.
	OpADD
	OpSUB
	OpSLL
	OpSLT
	OpSLTU
	OpXOR
	OpSRL
	OpSRA
	OpOR
	OpAND
	OpADDW
	OpSUBW
	OpSLLW
	OpSRLW
	OpSRAW
	// M extension.
	OpMUL
	OpMULH
	OpMULHSU
	OpMULHU
	OpDIV
	OpDIVU
	OpREM
	OpREMU
	OpMULW
	OpDIVW
	OpDIVUW
	OpREMW
	OpREMUW
	// System.
	OpFENCE
	OpFENCEI
	OpECALL
	OpEBREAK
	// NumOps is the number of operations; it is not an operation.
	NumOps
)

var opNames = [NumOps]string{
	"illegal", "lui", "auipc", "jal", "jalr",
	"beq", "bne", "blt", "bge", "bltu", "bgeu",
	"lb", "lh", "lw", "ld", "lbu", "lhu", "lwu",
	"sb", "sh", "sw", "sd",
	"addi", "slti", "sltiu", "xori", "ori", "andi", "slli", "srli", "srai",
	"addiw", "slliw", "srliw", "sraiw",
	"add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
	"addw", "subw", "sllw", "srlw", "sraw",
	"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
	"mulw", "divw", "divuw", "remw", "remuw",
	"fence", "fence.i", "ecall", "ebreak",
}

// String returns the assembler mnemonic of op, e.g. "addiw".
func (op Op) String() string {
	if op < NumOps {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// A Class is an instruction class of the relational profiling paper
// (papers/relational-profiling-architecture.txt, section 3: opJMP, opBRANCH,
// opLOAD, opSTORE, opALU, opMULT, opSYS). Profiling hooks select
// instructions by class.
type Class uint8

// The instruction classes.
const (
	ClassALU    Class = iota // opALU: integer arithmetic, logic, lui, auipc
	ClassJump                // opJMP: jal, jalr
	ClassBranch              // opBRANCH: conditional branches
	ClassLoad                // opLOAD
	ClassStore               // opSTORE
	ClassMul                 // opMULT: the M extension
	ClassSys                 // opSYS: ecall, ebreak, fence, fence.i
	NumClasses
)

var classNames = [NumClasses]string{"opALU", "opJMP", "opBRANCH", "opLOAD", "opSTORE", "opMULT", "opSYS"}

// String returns the paper's name of the class, e.g. "opBRANCH".
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// A ClassMask selects instruction classes: bit c is set for Class c.
type ClassMask uint8

// Has reports whether the mask selects class c.
func (m ClassMask) Has(c Class) bool { return m&(1<<c) != 0 }

// MaskOf returns the mask selecting exactly the given classes.
func MaskOf(cs ...Class) ClassMask {
	var m ClassMask
	for _, c := range cs {
		m |= 1 << c
	}
	return m
}

// Class returns the instruction class of op.
func (op Op) Class() Class {
	switch {
	case op == OpJAL || op == OpJALR:
		return ClassJump
	case op >= OpBEQ && op <= OpBGEU:
		return ClassBranch
	case op >= OpLB && op <= OpLWU:
		return ClassLoad
	case op >= OpSB && op <= OpSD:
		return ClassStore
	case op >= OpMUL && op <= OpREMUW:
		return ClassMul
	case op >= OpFENCE:
		return ClassSys
	}
	return ClassALU
}

// An Inst is one decoded RV64IM instruction. Imm holds the sign-extended
// immediate (for shifts, the shift amount; for lui and auipc, the value
// already shifted left by 12). Unused register fields are zero. Raw is the
// instruction word as it appears in memory.
type Inst struct {
	Op  Op
	Rd  uint8
	Rs1 uint8
	Rs2 uint8
	Raw uint32
	Imm int64
}

// IsBranch reports whether the instruction is a conditional branch.
func (i Inst) IsBranch() bool { return i.Op >= OpBEQ && i.Op <= OpBGEU }

// IsCall reports whether the instruction is a call by the standard calling
// convention: a jal or jalr that writes the return address to ra (x1) or t0 (x5).
func (i Inst) IsCall() bool {
	return (i.Op == OpJAL || i.Op == OpJALR) && (i.Rd == 1 || i.Rd == 5)
}

var regNames = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
	"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
}

// RegName returns the ABI name of register x<r>, e.g. "a0" for 10.
func RegName(r uint8) string { return regNames[r&31] }

// String renders the instruction in the assembler's syntax, with ABI
// register names and branch offsets relative to the instruction.
func (i Inst) String() string {
	rd, rs1, rs2 := RegName(i.Rd), RegName(i.Rs1), RegName(i.Rs2)
	switch {
	case i.Op == OpIllegal:
		return fmt.Sprintf("illegal 0x%08x", i.Raw)
	case i.Op == OpLUI || i.Op == OpAUIPC:
		return fmt.Sprintf("%v %s,0x%x", i.Op, rd, uint64(i.Imm>>12)&0xfffff)
	case i.Op == OpJAL:
		return fmt.Sprintf("jal %s,%+d", rd, i.Imm)
	case i.Op == OpJALR, i.Op.Class() == ClassLoad:
		return fmt.Sprintf("%v %s,%d(%s)", i.Op, rd, i.Imm, rs1)
	case i.IsBranch():
		return fmt.Sprintf("%v %s,%s,%+d", i.Op, rs1, rs2, i.Imm)
	case i.Op.Class() == ClassStore:
		return fmt.Sprintf("%v %s,%d(%s)", i.Op, rs2, i.Imm, rs1)
	case i.Op >= OpADDI && i.Op <= OpSRAIW:
		return fmt.Sprintf("%v %s,%s,%d", i.Op, rd, rs1, i.Imm)
	case i.Op >= OpADD && i.Op <= OpREMUW:
		return fmt.Sprintf("%v %s,%s,%s", i.Op, rd, rs1, rs2)
	}
	return i.Op.String()
}
