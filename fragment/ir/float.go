// Floating point in the IR: a recorded F or D instruction -> an IR instruction over f registers, or none when fragments leave it to the interpreter.

package ir

import (
	"fmt"

	"golang.org/x/sys/cpu"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// FloatArgs are the f register operands and the rounding of a
// floating-point IR instruction (one whose Op is an interp F or D op).
// Its x register operands use the ordinary fields: A is the x register
// read (fmv.d.x, fcvt.d.l, ...; the base of flw, fld, fsw and fsd, with
// Off), Dst the x register written (feq.d, fcvt.w.d, fmv.x.d, ...; 0
// when the result goes to x0, which native code still computes for its
// exception flags).
type FloatArgs struct {
	D       uint8 // f register written (FloatUses says whether the op has one)
	A, B, C uint8 // f registers read: rs1, rs2, rs3
	// RM is the rounding mode the op rounds by: 0 rne, 1 rtz, 2 rdn,
	// 3 rup, or 7, dynamic: frm, which an OpFrm before the first such
	// instruction of the Func (and the first after a write of frm)
	// installs as the host's rounding mode.
	RM uint8
	// Quiet marks a compare (flt, fle, feq) whose flags nothing can
	// observe (QuietCompare): it raises none, and gives 0 for a NaN.
	Quiet bool
}

// FloatUses reports which f register operands a floating-point op has:
// d written, a, b and c read (rs1, rs2, rs3).
func FloatUses(op interp.Op) (d, a, b, c bool) {
	switch op {
	case interp.OpFLW, interp.OpFLD:
		return true, false, false, false
	case interp.OpFSW, interp.OpFSD:
		return false, false, true, false
	case interp.OpFMADDS, interp.OpFMSUBS, interp.OpFNMSUBS, interp.OpFNMADDS,
		interp.OpFMADDD, interp.OpFMSUBD, interp.OpFNMSUBD, interp.OpFNMADDD:
		return true, true, true, true
	}
	d, a, b = op.FRegs()
	return d, a, b && twoOperand(op), false
}

// twoOperand reports whether a floating-point computational op reads
// rs2 (the others use its field for a format or nothing).
func twoOperand(op interp.Op) bool {
	switch op {
	case interp.OpFADDS, interp.OpFSUBS, interp.OpFMULS, interp.OpFDIVS, interp.OpFSGNJS, interp.OpFSGNJNS, interp.OpFSGNJXS,
		interp.OpFMINS, interp.OpFMAXS, interp.OpFEQS, interp.OpFLTS, interp.OpFLES,
		interp.OpFADDD, interp.OpFSUBD, interp.OpFMULD, interp.OpFDIVD, interp.OpFSGNJD, interp.OpFSGNJND, interp.OpFSGNJXD,
		interp.OpFMIND, interp.OpFMAXD, interp.OpFEQD, interp.OpFLTD, interp.OpFLED:
		return true
	}
	return false
}

// IsFloat reports whether op is a floating-point IR instruction (its f
// registers in Inst.F). The CSR instructions are not (IsCSRRead).
func IsFloat(op interp.Op) bool { return op.IsFloat() && op < interp.NumOps }

// IsFloatLoad reports whether op loads an f register from memory.
func IsFloatLoad(op interp.Op) bool { return op == interp.OpFLW || op == interp.OpFLD }

// IsFloatStore reports whether op stores an f register to memory.
func IsFloatStore(op interp.Op) bool { return op == interp.OpFSW || op == interp.OpFSD }

// HostFMA reports whether the host has fused multiply-add (FMA3): without
// it, fmadd and its kind stay interpreted (the exact software fused
// multiply-add is the interpreter's).
var HostFMA = cpu.X86.HasFMA && cpu.X86.HasAVX

// hostRound reports whether the host has ROUNDSD (SSE4.1), which the
// conversions that round down or up use.
var hostRound = cpu.X86.HasSSE41

// FloatCompiles reports whether fragments run the floating-point
// instruction in natively. The others (fclass, round-to-max-magnitude,
// and a static rounding mode where the result can be inexact, except in
// the conversions to integers, and in those from integers while their
// result is exact: ExactGuarded) stay interpreted: a trace is cut before
// them. Compilers emit the dynamic mode for arithmetic.
func FloatCompiles(in interp.Inst) bool {
	op := in.Op
	rm := in.RM()
	nearest := rm == 7 // the host rounds by frm (OpFrm)
	switch op {
	case interp.OpFLW, interp.OpFLD, interp.OpFSW, interp.OpFSD,
		interp.OpFSGNJS, interp.OpFSGNJNS, interp.OpFSGNJXS, interp.OpFMINS, interp.OpFMAXS,
		interp.OpFSGNJD, interp.OpFSGNJND, interp.OpFSGNJXD, interp.OpFMIND, interp.OpFMAXD,
		interp.OpFEQS, interp.OpFLTS, interp.OpFLES, interp.OpFEQD, interp.OpFLTD, interp.OpFLED,
		interp.OpFMVXW, interp.OpFMVWX, interp.OpFMVXD, interp.OpFMVDX,
		interp.OpFCLASSS, interp.OpFCLASSD,
		interp.OpFCVTDW, interp.OpFCVTDWU, interp.OpFCVTDS: // exact
		return true
	case interp.OpFMADDS, interp.OpFMSUBS, interp.OpFNMSUBS, interp.OpFNMADDS,
		interp.OpFMADDD, interp.OpFMSUBD, interp.OpFNMSUBD, interp.OpFNMADDD:
		return nearest && HostFMA
	case interp.OpFADDS, interp.OpFSUBS, interp.OpFMULS, interp.OpFDIVS, interp.OpFSQRTS,
		interp.OpFADDD, interp.OpFSUBD, interp.OpFMULD, interp.OpFDIVD, interp.OpFSQRTD,
		interp.OpFCVTSD:
		return nearest
	case interp.OpFCVTDL, interp.OpFCVTSW, interp.OpFCVTSWU, interp.OpFCVTSL, interp.OpFCVTDLU, interp.OpFCVTSLU:
		return nearest || rm <= 4 // a static mode: exact or leave (ExactGuarded)
	case interp.OpFCVTWS, interp.OpFCVTLS, interp.OpFCVTWD, interp.OpFCVTLD:
		return rm == 7 || rm == 1 || rm <= 4 && hostRound
	case interp.OpFCVTWUS, interp.OpFCVTLUS, interp.OpFCVTWUD, interp.OpFCVTLUD:
		return rm != 4 && hostRound
	}
	return false
}

// roundsAway reports whether op keeps rmm, round to nearest with ties
// away from zero, in the IR: the signed conversions to integers
// (glibc's lround and llround are fcvt.l.d ..., rmm).
func roundsAway(op interp.Op) bool {
	switch op {
	case interp.OpFCVTWS, interp.OpFCVTLS, interp.OpFCVTWD, interp.OpFCVTLD:
		return true
	}
	return false
}

// ExactGuarded reports whether the conversion from an integer op, with
// rounding mode rm, runs natively only when its result is exact: under a
// static rounding mode the host's conversion would round by frm, so
// native code converts when the integer fits the significand (53 bits
// for a double, 24 for a single: no rounding, no flags, whatever the
// mode) and leaves to the interpreter through the instruction's exit
// otherwise. glibc's floor, ceil, trunc and round (RV64GC without Zfa)
// convert back with fcvt.d.l ..., rdn and the like; where the value is
// that large it is already an integer and they do not get there.
func ExactGuarded(op interp.Op, rm uint8) bool {
	switch op {
	case interp.OpFCVTDL, interp.OpFCVTSW, interp.OpFCVTSWU, interp.OpFCVTSL, interp.OpFCVTDLU, interp.OpFCVTSLU:
		return rm != 7
	}
	return false
}

// CSRCompiles reports whether fragments run the CSR instruction in
// natively: reads of fflags, frm and fcsr (csrrs and csrrc with x0,
// csrrsi and csrrci with 0) and writes of them (csrrw and csrrwi, the
// old value read too): the frflags/fsflags pair compilers put around a
// quiet comparison, fesetround's fsrm. The others (setting and clearing
// bits, the counters) stay interpreted.
func CSRCompiles(in interp.Inst) bool {
	csr := uint16(in.Imm) & 0xfff
	switch in.Op {
	case interp.OpCSRRS, interp.OpCSRRC, interp.OpCSRRSI, interp.OpCSRRCI:
		return in.Rs1 == 0 && (csr == interp.CSRFflags || csr == interp.CSRFrm || csr == interp.CSRFcsr)
	case interp.OpCSRRW, interp.OpCSRRWI:
		return csr == interp.CSRFflags || csr == interp.CSRFrm || csr == interp.CSRFcsr
	}
	return false
}

// IsCSRRead and IsCSRWrite tell the two CSR instructions of the IR:
// Dst = the CSR numbered Off (OpCSRRS with A = 0), and Dst = the CSR,
// the CSR = A (OpCSRRW). Off is fflags, frm or fcsr.
func IsCSRRead(op interp.Op) bool  { return op == interp.OpCSRRS }
func IsCSRWrite(op interp.Op) bool { return op == interp.OpCSRRW }

// lowerCSR appends the IR of a CSR instruction CSRCompiles accepts. A
// write of frm (or fcsr) changes the rounding of what follows: the next
// instruction that rounds by the dynamic mode gets an OpFrm of its own.
func (f *Func) lowerCSR(x Inst, in interp.Inst, frmGuarded *bool) {
	x.Dst, x.Off = in.Rd, in.Imm&0xfff
	switch in.Op {
	case interp.OpCSRRW:
		x.Op, x.A = interp.OpCSRRW, R(in.Rs1)
	case interp.OpCSRRWI:
		x.Op, x.A = interp.OpCSRRW, C(uint64(in.Rs1))
	default:
		x.Op, x.A = interp.OpCSRRS, C(0)
	}
	if x.Op == interp.OpCSRRW && x.Off != interp.CSRFflags {
		*frmGuarded = false
	}
	f.Insts = append(f.Insts, x)
}

// lowerFloat appends the IR of floating-point instruction in (at pc,
// step i, with x prefilled) to f: the instruction, preceded by an
// OpFrm if it is the first in f to round by the dynamic mode.
func (f *Func) lowerFloat(x Inst, in interp.Inst, addr uint64, i int, frmGuarded *bool) {
	op := in.Op
	x.Op = op
	d, a, b, c := FloatUses(op)
	xd, xa, _ := op.FRegs()
	switch {
	case IsFloatLoad(op):
		x.F.D, x.A, x.Off = in.Rd, R(in.Rs1), in.Imm
		x.Exit, x.Stack = f.newExit(exit.Interp, x.PC, x.PC, i), f.env.InStack(addr)
		x.Mapped = !x.Stack && f.env.InMapped(addr, false)
	case IsFloatStore(op):
		x.F.B, x.A, x.Off = in.Rs2, R(in.Rs1), in.Imm
		x.Exit, x.Stack = f.newExit(exit.Interp, x.PC, x.PC, i), f.env.InStack(addr)
		x.Mapped = !x.Stack && f.env.InMapped(addr, true)
	default:
		if d {
			x.F.D = in.Rd
		} else if !xd {
			x.Dst = in.Rd
		}
		if a {
			x.F.A = in.Rs1
		} else if !xa {
			x.A = R(in.Rs1)
		}
		if b {
			x.F.B = in.Rs2
		}
		if c {
			x.F.C = in.Rs3()
		}
		if op.HasRM() {
			x.F.RM = in.RM()
			if x.F.RM == 7 && !*frmGuarded {
				g := x
				g.Op, g.Dst, g.A, g.F = OpFrm, 0, Val{}, FloatArgs{}
				g.Exit = f.newExit(exit.Interp, x.PC, x.PC, i)
				f.Insts = append(f.Insts, g)
				*frmGuarded = true
			}
			if ExactGuarded(x.Op, x.F.RM) {
				x.Exit = f.newExit(exit.Interp, x.PC, x.PC, i)
			}
			if x.F.RM == 4 && !roundsAway(x.Op) {
				x.F.RM = 0 // rmm: FloatCompiles allows it only where the result is exact
			}
		}
	}
	f.Insts = append(f.Insts, x)
}

// floatString renders a floating-point IR instruction (after "dst = ").
func (in Inst) floatString() string {
	d, a, b, c := FloatUses(in.Op)
	var args []string
	dst := ""
	if d {
		dst = interp.FRegName(in.F.D) + " = "
	}
	switch {
	case IsFloatLoad(in.Op):
		return dst + in.Op.String() + " " + fmtOff(in.Off, in.A)
	case IsFloatStore(in.Op):
		return in.Op.String() + " " + interp.FRegName(in.F.B) + ", " + fmtOff(in.Off, in.A)
	}
	if a {
		args = append(args, interp.FRegName(in.F.A))
	} else if _, xa, _ := in.Op.FRegs(); !xa {
		args = append(args, in.A.String())
	}
	if b {
		args = append(args, interp.FRegName(in.F.B))
	}
	if c {
		args = append(args, interp.FRegName(in.F.C))
	}
	s := dst + in.Op.String()
	for k, arg := range args {
		if k == 0 {
			s += " " + arg
		} else {
			s += ", " + arg
		}
	}
	if in.F.Quiet {
		s += ", quiet"
	}
	if in.Op.HasRM() && in.F.RM != 7 {
		s += ", " + [...]string{"rne", "rtz", "rdn", "rup", "rmm", "?", "?", "dyn"}[in.F.RM&7]
	}
	return s
}

// fmtOff renders an address operand: off(base).
func fmtOff(off int64, base Val) string { return fmt.Sprintf("%d(%v)", off, base) }
