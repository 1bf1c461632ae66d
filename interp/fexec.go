// F and D execution: a decoded floating-point instruction and the f registers -> results and accrued fflags (arithmetic in package fpu).

package interp

import "rvdyn/interp/fpu"

// box NaN-boxes a single: the upper 32 bits all ones.
func box(v uint32) uint64 { return 0xffffffff_00000000 | uint64(v) }

// unbox reads a single from a 64-bit f register: a value that is not
// properly NaN-boxed reads as the canonical NaN (ISA manual, "NaN Boxing
// of Narrower Values").
func unbox(r uint64) uint32 {
	if r>>32 != 0xffffffff {
		return fpu.CanonicalNaN32
	}
	return uint32(r)
}

// sext32 of a 32-bit pattern, for results written to x registers.
func sextW(v uint32) uint64 { return uint64(int64(int32(v))) }

// execFloat executes an F or D computational instruction (loads and
// stores are in execExt). An instruction whose rounding mode is dynamic
// takes frm; if frm holds a reserved mode (5..7) it is an illegal
// instruction, as the ISA specifies. The exception flags the operation
// raises are ORed into fflags.
func (m *Machine) execFloat(in Inst, pc uint64, e *Event) error {
	f, x := &m.CPU.F, &m.CPU.X
	rm := fpu.RM(in.RM())
	if hasRM(in.Op) && rm == 7 {
		rm = fpu.RM(m.CPU.FCSR >> 5 & 7)
		if rm > fpu.RMM {
			return &Fault{Kind: FaultIllegal, PC: pc, Raw: in.Raw}
		}
	}
	a, b := f[in.Rs1&31], f[in.Rs2&31]
	xa := x[in.Rs1&31]
	sa, sb := unbox(a), unbox(b)
	var (
		v   uint64 // the result
		fl  fpu.Flags
		toX bool // v goes to x[rd], not f[rd]
	)
	s := func(r uint32, flags fpu.Flags) { v, fl = box(r), flags }
	d := func(r uint64, flags fpu.Flags) { v, fl = r, flags }
	xi := func(r uint64, flags fpu.Flags) { v, fl, toX = r, flags, true }
	cmp := func(t bool, flags fpu.Flags) {
		v, fl, toX = 0, flags, true
		if t {
			v = 1
		}
	}
	switch in.Op {
	// Single precision.
	case OpFMADDS, OpFMSUBS, OpFNMSUBS, OpFNMADDS:
		negProd := in.Op == OpFNMSUBS || in.Op == OpFNMADDS
		negAdd := in.Op == OpFMSUBS || in.Op == OpFNMADDS
		s(fpu.MulAdd32(sa, sb, unbox(f[in.Rs3()]), negProd, negAdd, rm))
	case OpFADDS:
		s(fpu.Add32(sa, sb, rm))
	case OpFSUBS:
		s(fpu.Sub32(sa, sb, rm))
	case OpFMULS:
		s(fpu.Mul32(sa, sb, rm))
	case OpFDIVS:
		s(fpu.Div32(sa, sb, rm))
	case OpFSQRTS:
		s(fpu.Sqrt32(sa, rm))
	case OpFSGNJS:
		s(sa&^(1<<31)|sb&(1<<31), 0)
	case OpFSGNJNS:
		s(sa&^(1<<31)|^sb&(1<<31), 0)
	case OpFSGNJXS:
		s(sa^sb&(1<<31), 0)
	case OpFMINS:
		s(fpu.Min32(sa, sb))
	case OpFMAXS:
		s(fpu.Max32(sa, sb))
	case OpFCVTWS:
		xi(fpu.F32ToI32(sa, rm))
	case OpFCVTWUS:
		xi(fpu.F32ToU32(sa, rm))
	case OpFCVTLS:
		xi(fpu.F32ToI64(sa, rm))
	case OpFCVTLUS:
		xi(fpu.F32ToU64(sa, rm))
	case OpFMVXW:
		xi(sextW(uint32(a)), 0) // the raw low bits, boxed or not
	case OpFEQS:
		cmp(fpu.Eq32(sa, sb))
	case OpFLTS:
		cmp(fpu.Lt32(sa, sb))
	case OpFLES:
		cmp(fpu.Le32(sa, sb))
	case OpFCLASSS:
		xi(fpu.Class32(sa), 0)
	case OpFCVTSW:
		s(fpu.I32ToF32(int32(xa), rm))
	case OpFCVTSWU:
		s(fpu.U32ToF32(uint32(xa), rm))
	case OpFCVTSL:
		s(fpu.I64ToF32(int64(xa), rm))
	case OpFCVTSLU:
		s(fpu.U64ToF32(xa, rm))
	case OpFMVWX:
		s(uint32(xa), 0)

	// Double precision.
	case OpFMADDD, OpFMSUBD, OpFNMSUBD, OpFNMADDD:
		negProd := in.Op == OpFNMSUBD || in.Op == OpFNMADDD
		negAdd := in.Op == OpFMSUBD || in.Op == OpFNMADDD
		d(fpu.MulAdd64(a, b, f[in.Rs3()], negProd, negAdd, rm))
	case OpFADDD:
		d(fpu.Add64(a, b, rm))
	case OpFSUBD:
		d(fpu.Sub64(a, b, rm))
	case OpFMULD:
		d(fpu.Mul64(a, b, rm))
	case OpFDIVD:
		d(fpu.Div64(a, b, rm))
	case OpFSQRTD:
		d(fpu.Sqrt64(a, rm))
	case OpFSGNJD:
		d(a&^(1<<63)|b&(1<<63), 0)
	case OpFSGNJND:
		d(a&^(1<<63)|^b&(1<<63), 0)
	case OpFSGNJXD:
		d(a^b&(1<<63), 0)
	case OpFMIND:
		d(fpu.Min64(a, b))
	case OpFMAXD:
		d(fpu.Max64(a, b))
	case OpFCVTWD:
		xi(fpu.F64ToI32(a, rm))
	case OpFCVTWUD:
		xi(fpu.F64ToU32(a, rm))
	case OpFCVTLD:
		xi(fpu.F64ToI64(a, rm))
	case OpFCVTLUD:
		xi(fpu.F64ToU64(a, rm))
	case OpFMVXD:
		xi(a, 0)
	case OpFEQD:
		cmp(fpu.Eq64(a, b))
	case OpFLTD:
		cmp(fpu.Lt64(a, b))
	case OpFLED:
		cmp(fpu.Le64(a, b))
	case OpFCLASSD:
		xi(fpu.Class64(a), 0)
	case OpFCVTDW:
		d(fpu.I32ToF64(int32(xa), rm))
	case OpFCVTDWU:
		d(fpu.U32ToF64(uint32(xa), rm))
	case OpFCVTDL:
		d(fpu.I64ToF64(int64(xa), rm))
	case OpFCVTDLU:
		d(fpu.U64ToF64(xa, rm))
	case OpFMVDX:
		d(xa, 0)
	case OpFCVTSD:
		s(fpu.F64ToF32(a, rm))
	case OpFCVTDS:
		d(fpu.F32ToF64(sa))
	default:
		return &Fault{Kind: FaultIllegal, PC: pc, Raw: in.Raw}
	}
	m.CPU.FCSR |= uint64(fl)
	if toX {
		x[in.Rd&31] = v
	} else {
		f[in.Rd&31] = v
	}
	if e != nil {
		e.Value = v
		if toX && in.Rd == 0 {
			e.Value = 0
		}
		_, f1, f2 := fregs(in.Op)
		if f1 {
			e.Src1 = a
		}
		if f2 {
			e.Src2 = b
		}
	}
	return nil
}
