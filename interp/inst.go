// Decoded instructions: the Op enum, the Inst record and instruction classes.

package interp

import (
	"fmt"
	"strings"
)

// An Op is an RV64GC operation (RV64IMAFD plus Zicsr and Zifencei; the
// compressed instructions decode to the operation they expand to). The
// zero value, OpIllegal, marks a word that does not decode to an RV64GC
// instruction. The RV64IM operations come first (up to OpEBREAK): they are
// the ones native code runs; IsBase tells them apart.
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
	// Zicsr: Imm is the CSR number (0..4095); the *I forms take the
	// 5-bit immediate in the Rs1 field.
	OpCSRRW
	OpCSRRS
	OpCSRRC
	OpCSRRWI
	OpCSRRSI
	OpCSRRCI
	// A extension: Rs1 is the address, Rs2 the source; the aq and rl
	// bits are accepted and ignored (one hart: every access is ordered).
	OpLRW
	OpSCW
	OpAMOSWAPW
	OpAMOADDW
	OpAMOXORW
	OpAMOANDW
	OpAMOORW
	OpAMOMINW
	OpAMOMAXW
	OpAMOMINUW
	OpAMOMAXUW
	OpLRD
	OpSCD
	OpAMOSWAPD
	OpAMOADDD
	OpAMOXORD
	OpAMOANDD
	OpAMOORD
	OpAMOMIND
	OpAMOMAXD
	OpAMOMINUD
	OpAMOMAXUD
	// F and D loads and stores: Rd (loads) and Rs2 (stores) name f
	// registers, Rs1 the x register holding the base.
	OpFLW
	OpFLD
	OpFSW
	OpFSD
	// F: single precision. Register fields name f registers except
	// where the operation moves to or from an x register (the x side:
	// Rd of fcvt.w*/l*, fmv.x.w, feq/flt/fle, fclass; Rs1 of fcvt.s.*,
	// fmv.w.x). Imm holds the rounding mode (RM) and rs3 (Rs3).
	OpFMADDS
	OpFMSUBS
	OpFNMSUBS
	OpFNMADDS
	OpFADDS
	OpFSUBS
	OpFMULS
	OpFDIVS
	OpFSQRTS
	OpFSGNJS
	OpFSGNJNS
	OpFSGNJXS
	OpFMINS
	OpFMAXS
	OpFCVTWS
	OpFCVTWUS
	OpFCVTLS
	OpFCVTLUS
	OpFMVXW
	OpFEQS
	OpFLTS
	OpFLES
	OpFCLASSS
	OpFCVTSW
	OpFCVTSWU
	OpFCVTSL
	OpFCVTSLU
	OpFMVWX
	// D: double precision, the same shapes, plus the conversions
	// between the two formats.
	OpFMADDD
	OpFMSUBD
	OpFNMSUBD
	OpFNMADDD
	OpFADDD
	OpFSUBD
	OpFMULD
	OpFDIVD
	OpFSQRTD
	OpFSGNJD
	OpFSGNJND
	OpFSGNJXD
	OpFMIND
	OpFMAXD
	OpFCVTWD
	OpFCVTWUD
	OpFCVTLD
	OpFCVTLUD
	OpFMVXD
	OpFEQD
	OpFLTD
	OpFLED
	OpFCLASSD
	OpFCVTDW
	OpFCVTDWU
	OpFCVTDL
	OpFCVTDLU
	OpFMVDX
	OpFCVTSD
	OpFCVTDS
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
	"csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
	"lr.w", "sc.w", "amoswap.w", "amoadd.w", "amoxor.w", "amoand.w", "amoor.w",
	"amomin.w", "amomax.w", "amominu.w", "amomaxu.w",
	"lr.d", "sc.d", "amoswap.d", "amoadd.d", "amoxor.d", "amoand.d", "amoor.d",
	"amomin.d", "amomax.d", "amominu.d", "amomaxu.d",
	"flw", "fld", "fsw", "fsd",
	"fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s", "fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fsqrt.s",
	"fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s",
	"fcvt.w.s", "fcvt.wu.s", "fcvt.l.s", "fcvt.lu.s", "fmv.x.w", "feq.s", "flt.s", "fle.s", "fclass.s",
	"fcvt.s.w", "fcvt.s.wu", "fcvt.s.l", "fcvt.s.lu", "fmv.w.x",
	"fmadd.d", "fmsub.d", "fnmsub.d", "fnmadd.d", "fadd.d", "fsub.d", "fmul.d", "fdiv.d", "fsqrt.d",
	"fsgnj.d", "fsgnjn.d", "fsgnjx.d", "fmin.d", "fmax.d",
	"fcvt.w.d", "fcvt.wu.d", "fcvt.l.d", "fcvt.lu.d", "fmv.x.d", "feq.d", "flt.d", "fle.d", "fclass.d",
	"fcvt.d.w", "fcvt.d.wu", "fcvt.d.l", "fcvt.d.lu", "fmv.d.x",
	"fcvt.s.d", "fcvt.d.s",
}

// String returns the assembler mnemonic of op, e.g. "addiw".
func (op Op) String() string {
	if op < NumOps {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// A Class is an instruction class of the relational profiling paper
// (Heil and Smith, "Relational Profiling: Enabling Thread-Level
// Parallelism in Virtual Machines", MICRO 2000, section 3: opJMP, opBRANCH,
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
	ClassSys                 // opSYS: ecall, ebreak, fence, fence.i, CSR accesses
	ClassFloat               // opFLOAT: F and D arithmetic, conversions, moves and compares
	NumClasses
)

var classNames = [NumClasses]string{"opALU", "opJMP", "opBRANCH", "opLOAD", "opSTORE", "opMULT", "opSYS", "opFLOAT"}

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

// Class returns the instruction class of op. Memory accesses are classed
// by what they do to memory whatever their registers: lr and the f
// register loads are opLOAD; sc, the AMOs (a read-modify-write) and the f
// register stores are opSTORE.
func (op Op) Class() Class {
	switch {
	case op >= OpFMADDS:
		return ClassFloat
	case op == OpLRW || op == OpLRD || op == OpFLW || op == OpFLD:
		return ClassLoad
	case op >= OpLRW:
		return ClassStore
	case op >= OpCSRRW:
		return ClassSys
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

// IsBase reports whether op is an RV64IM operation (not A, F, D or a CSR
// access): the operations package fragment compiles.
func (op Op) IsBase() bool { return op <= OpEBREAK }

// IsFloat reports whether op reads or writes an f register: the F and D
// operations, their loads and stores included.
func (op Op) IsFloat() bool { return op >= OpFLW }

// An Inst is one decoded RV64GC instruction. Imm holds the sign-extended
// immediate (for shifts, the shift amount; for lui and auipc, the value
// already shifted left by 12; for CSR accesses the CSR number; for F and D
// arithmetic the rounding mode and rs3, see RM and Rs3). Unused register
// fields are zero. Raw is the instruction as it appears in memory: a
// 32-bit word, or for a compressed instruction its 16-bit parcel (the
// fields are those of the instruction it expands to), so Len can tell.
type Inst struct {
	Op  Op
	Rd  uint8
	Rs1 uint8
	Rs2 uint8
	Raw uint32
	Imm int64
}

// Len returns the instruction's length in bytes: 2 for a compressed
// instruction, 4 otherwise (the low two bits of a 32-bit instruction are
// 11). It has no branch, for the interpreter's fall-through.
func (i Inst) Len() uint64 { return 2 + uint64((i.Raw&3+1)&4)>>1 }

// RM returns the rounding-mode field of an F or D instruction that has
// one (0..4, or 7 for the dynamic mode in frm; decoding rejects 5 and 6).
func (i Inst) RM() uint8 { return uint8(i.Imm) & 7 }

// Rs3 returns the third source register of a fused multiply-add.
func (i Inst) Rs3() uint8 { return uint8(i.Imm>>8) & 31 }

// IsCompressed reports whether the instruction is a 16-bit RVC one.
func (i Inst) IsCompressed() bool { return i.Raw&3 != 3 }

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

var fregNames = [32]string{
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7",
	"fs0", "fs1", "fa0", "fa1", "fa2", "fa3", "fa4", "fa5",
	"fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
	"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
}

// FRegName returns the ABI name of register f<r>, e.g. "fa0" for 10.
func FRegName(r uint8) string { return fregNames[r&31] }

var rmNames = [8]string{"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"}

// FRegs reports, for a floating-point computational op, which of rd,
// rs1 and rs2 name f registers (the others name x registers); an op with
// rs3 (the fused multiply-adds) reads it as an f register.
func (op Op) FRegs() (rd, rs1, rs2 bool) { return fregs(op) }

// HasRM reports whether a floating-point op has a rounding-mode field
// (Inst.RM): 0 rne, 1 rtz, 2 rdn, 3 rup, 4 rmm, 7 dynamic (frm).
func (op Op) HasRM() bool { return hasRM(op) }

// fregs reports which of rd, rs1 and rs2 of a floating-point op name f
// registers (the others name x registers).
func fregs(op Op) (rd, rs1, rs2 bool) {
	switch op {
	case OpFCVTWS, OpFCVTWUS, OpFCVTLS, OpFCVTLUS, OpFMVXW, OpFCLASSS,
		OpFCVTWD, OpFCVTWUD, OpFCVTLD, OpFCVTLUD, OpFMVXD, OpFCLASSD:
		return false, true, false
	case OpFEQS, OpFLTS, OpFLES, OpFEQD, OpFLTD, OpFLED:
		return false, true, true
	case OpFCVTSW, OpFCVTSWU, OpFCVTSL, OpFCVTSLU, OpFMVWX,
		OpFCVTDW, OpFCVTDWU, OpFCVTDL, OpFCVTDLU, OpFMVDX:
		return true, false, false
	}
	return true, true, true
}

// hasRM reports whether a floating-point op has a rounding-mode field.
func hasRM(op Op) bool {
	switch op {
	case OpFSGNJS, OpFSGNJNS, OpFSGNJXS, OpFMINS, OpFMAXS, OpFMVXW, OpFEQS, OpFLTS, OpFLES, OpFCLASSS, OpFMVWX,
		OpFSGNJD, OpFSGNJND, OpFSGNJXD, OpFMIND, OpFMAXD, OpFMVXD, OpFEQD, OpFLTD, OpFLED, OpFCLASSD, OpFMVDX:
		return false
	}
	return op >= OpFMADDS
}

// String renders the instruction in the assembler's syntax, with ABI
// register names and branch offsets relative to the instruction. A
// compressed instruction is shown as what it expands to.
func (i Inst) String() string {
	rd, rs1, rs2 := RegName(i.Rd), RegName(i.Rs1), RegName(i.Rs2)
	switch {
	case i.Op == OpIllegal:
		if i.IsCompressed() {
			return fmt.Sprintf("illegal 0x%04x", i.Raw)
		}
		return fmt.Sprintf("illegal 0x%08x", i.Raw)
	case i.Op == OpLUI || i.Op == OpAUIPC:
		return fmt.Sprintf("%v %s,0x%x", i.Op, rd, uint64(i.Imm>>12)&0xfffff)
	case i.Op == OpJAL:
		return fmt.Sprintf("jal %s,%+d", rd, i.Imm)
	case i.Op == OpFLW || i.Op == OpFLD:
		return fmt.Sprintf("%v %s,%d(%s)", i.Op, FRegName(i.Rd), i.Imm, rs1)
	case i.Op == OpFSW || i.Op == OpFSD:
		return fmt.Sprintf("%v %s,%d(%s)", i.Op, FRegName(i.Rs2), i.Imm, rs1)
	case i.Op == OpLRW || i.Op == OpLRD:
		return fmt.Sprintf("%v %s,(%s)", i.Op, rd, rs1)
	case i.Op >= OpSCW && i.Op <= OpAMOMAXUD:
		return fmt.Sprintf("%v %s,%s,(%s)", i.Op, rd, rs2, rs1)
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
	case i.Op >= OpCSRRW && i.Op <= OpCSRRC:
		return fmt.Sprintf("%v %s,%s,%s", i.Op, rd, CSRName(uint16(i.Imm)), rs1)
	case i.Op >= OpCSRRWI && i.Op <= OpCSRRCI:
		return fmt.Sprintf("%v %s,%s,%d", i.Op, rd, CSRName(uint16(i.Imm)), i.Rs1)
	case i.Op >= OpFMADDS:
		fd, f1, f2 := fregs(i.Op)
		name := func(f bool, r uint8) string {
			if f {
				return FRegName(r)
			}
			return RegName(r)
		}
		args := []string{name(fd, i.Rd), name(f1, i.Rs1)}
		switch i.Op {
		case OpFMADDS, OpFMSUBS, OpFNMSUBS, OpFNMADDS, OpFMADDD, OpFMSUBD, OpFNMSUBD, OpFNMADDD:
			args = append(args, FRegName(i.Rs2), FRegName(i.Rs3()))
		case OpFADDS, OpFSUBS, OpFMULS, OpFDIVS, OpFSGNJS, OpFSGNJNS, OpFSGNJXS, OpFMINS, OpFMAXS, OpFEQS, OpFLTS, OpFLES,
			OpFADDD, OpFSUBD, OpFMULD, OpFDIVD, OpFSGNJD, OpFSGNJND, OpFSGNJXD, OpFMIND, OpFMAXD, OpFEQD, OpFLTD, OpFLED:
			args = append(args, name(f2, i.Rs2))
		}
		if hasRM(i.Op) && i.RM() != 7 {
			args = append(args, rmNames[i.RM()])
		}
		return i.Op.String() + " " + strings.Join(args, ",")
	}
	return i.Op.String()
}
