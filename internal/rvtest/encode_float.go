// Encoder for F and D: interp.Inst -> 32-bit instruction word (registers, Imm = rm | rs3<<8 as interp keeps them).

package rvtest

import "rvdyn/interp"

// fpEnc describes an OP-FP instruction: funct5, the format (0 S, 1 D),
// and a fixed funct3 (-1: the rounding mode) and rs2 (-1: a register).
type fpEnc struct {
	f5, fmt uint32
	f3, rs2 int
}

var fpOps = func() map[interp.Op]fpEnc {
	m := map[interp.Op]fpEnc{}
	for fmt, ops := range [2][]interp.Op{
		{interp.OpFADDS, interp.OpFSUBS, interp.OpFMULS, interp.OpFDIVS, interp.OpFSQRTS, interp.OpFSGNJS, interp.OpFSGNJNS, interp.OpFSGNJXS,
			interp.OpFMINS, interp.OpFMAXS, interp.OpFCVTWS, interp.OpFCVTWUS, interp.OpFCVTLS, interp.OpFCVTLUS, interp.OpFMVXW,
			interp.OpFEQS, interp.OpFLTS, interp.OpFLES, interp.OpFCLASSS, interp.OpFCVTSW, interp.OpFCVTSWU, interp.OpFCVTSL, interp.OpFCVTSLU, interp.OpFMVWX},
		{interp.OpFADDD, interp.OpFSUBD, interp.OpFMULD, interp.OpFDIVD, interp.OpFSQRTD, interp.OpFSGNJD, interp.OpFSGNJND, interp.OpFSGNJXD,
			interp.OpFMIND, interp.OpFMAXD, interp.OpFCVTWD, interp.OpFCVTWUD, interp.OpFCVTLD, interp.OpFCVTLUD, interp.OpFMVXD,
			interp.OpFEQD, interp.OpFLTD, interp.OpFLED, interp.OpFCLASSD, interp.OpFCVTDW, interp.OpFCVTDWU, interp.OpFCVTDL, interp.OpFCVTDLU, interp.OpFMVDX},
	} {
		f := uint32(fmt)
		e := []fpEnc{{0, f, -1, -1}, {1, f, -1, -1}, {2, f, -1, -1}, {3, f, -1, -1}, {0xb, f, -1, 0}, {4, f, 0, -1}, {4, f, 1, -1}, {4, f, 2, -1},
			{5, f, 0, -1}, {5, f, 1, -1}, {0x18, f, -1, 0}, {0x18, f, -1, 1}, {0x18, f, -1, 2}, {0x18, f, -1, 3}, {0x1c, f, 0, 0},
			{0x14, f, 2, -1}, {0x14, f, 1, -1}, {0x14, f, 0, -1}, {0x1c, f, 1, 0}, {0x1a, f, -1, 0}, {0x1a, f, -1, 1}, {0x1a, f, -1, 2}, {0x1a, f, -1, 3}, {0x1e, f, 0, 0}}
		for i, op := range ops {
			m[op] = e[i]
		}
	}
	m[interp.OpFCVTSD] = fpEnc{8, 0, -1, 1}
	m[interp.OpFCVTDS] = fpEnc{8, 1, -1, 0}
	return m
}()

// encodeFloat encodes an F or D instruction; ok is false for other ops.
func encodeFloat(in interp.Inst) (word uint32, ok bool) {
	rd, rs1, rs2 := uint32(in.Rd&31), uint32(in.Rs1&31), uint32(in.Rs2&31)
	imm := uint32(in.Imm)
	switch op := in.Op; op {
	case interp.OpFLW, interp.OpFLD:
		return (imm&0xfff)<<20 | rs1<<15 | uint32(2+op-interp.OpFLW)<<12 | rd<<7 | 0x07, true
	case interp.OpFSW, interp.OpFSD:
		return (imm>>5&0x7f)<<25 | rs2<<20 | rs1<<15 | uint32(2+op-interp.OpFSW)<<12 | (imm&31)<<7 | 0x27, true
	case interp.OpFMADDS, interp.OpFMSUBS, interp.OpFNMSUBS, interp.OpFNMADDS, interp.OpFMADDD, interp.OpFMSUBD, interp.OpFNMSUBD, interp.OpFNMADDD:
		k, f := uint32(op-interp.OpFMADDS), uint32(0)
		if op >= interp.OpFMADDD {
			k, f = uint32(op-interp.OpFMADDD), 1
		}
		rs3, rm := uint32(in.Rs3()), uint32(in.RM())
		return rs3<<27 | f<<25 | rs2<<20 | rs1<<15 | rm<<12 | rd<<7 | (0x43 + 4*k), true
	}
	e, ok := fpOps[in.Op]
	if !ok {
		return 0, false
	}
	f3 := uint32(in.RM())
	if e.f3 >= 0 {
		f3 = uint32(e.f3)
	}
	if e.rs2 >= 0 {
		rs2 = uint32(e.rs2)
	}
	return (e.f5<<2|e.fmt)<<25 | rs2<<20 | rs1<<15 | f3<<12 | rd<<7 | 0x53, true
}
