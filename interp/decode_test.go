package interp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/arch/riscv64/riscv64asm"
)

// fields extracts the register numbers and immediates of an x/arch
// instruction in the manual's argument order.
func fields(in riscv64asm.Inst) (regs []int, imms []int64) {
	for _, a := range in.Args {
		switch a := a.(type) {
		case nil:
			return
		case riscv64asm.Reg:
			if a >= riscv64asm.F0 && a <= riscv64asm.F31 {
				regs = append(regs, 32+int(a-riscv64asm.F0)) // f registers are 32..63
			} else {
				regs = append(regs, int(a-riscv64asm.X0))
			}
		case riscv64asm.RegPtr: // "(x10)": its register is unexported
			var n int
			fmt.Sscanf(a.String(), "(x%d)", &n)
			regs = append(regs, n)
		case riscv64asm.CSR:
			imms = append(imms, int64(a))
		case riscv64asm.Simm:
			imms = append(imms, int64(a.Imm))
		case riscv64asm.Uimm:
			imms = append(imms, int64(a.Imm))
		case riscv64asm.RegOffset:
			regs = append(regs, int(a.OfsReg-riscv64asm.X0))
			imms = append(imms, int64(a.Ofs.Imm))
		}
	}
	return
}

// ourFields renders our decoding in the same order as fields.
func ourFields(in Inst) (regs []int, imms []int64) {
	r := func(x uint8) int { return int(x) }
	switch c := in.Op.Class(); {
	case in.Op == OpLUI || in.Op == OpAUIPC:
		return []int{r(in.Rd)}, []int64{(in.Imm >> 12) & 0xfffff}
	case in.Op == OpJAL:
		return []int{r(in.Rd)}, []int64{in.Imm}
	case in.Op == OpJALR || c == ClassLoad:
		return []int{r(in.Rd), r(in.Rs1)}, []int64{in.Imm}
	case c == ClassStore:
		return []int{r(in.Rs2), r(in.Rs1)}, []int64{in.Imm}
	case c == ClassBranch:
		return []int{r(in.Rs1), r(in.Rs2)}, []int64{in.Imm}
	case in.Op >= OpADDI && in.Op <= OpSRAIW:
		return []int{r(in.Rd), r(in.Rs1)}, []int64{in.Imm}
	case in.Op >= OpADD && in.Op <= OpREMUW:
		return []int{r(in.Rd), r(in.Rs1), r(in.Rs2)}, nil
	}
	return nil, nil
}

// ourFieldsGC is ourFields for the operations beyond RV64IM, with f
// registers numbered 32..63 as fields numbers them.
func ourFieldsGC(in Inst) (regs []int, imms []int64) {
	r := func(f bool, x uint8) int {
		if f {
			return 32 + int(x)
		}
		return int(x)
	}
	switch op := in.Op; {
	case op == OpFLW || op == OpFLD:
		return []int{r(true, in.Rd), r(false, in.Rs1)}, []int64{in.Imm}
	case op == OpFSW || op == OpFSD:
		return []int{r(true, in.Rs2), r(false, in.Rs1)}, []int64{in.Imm}
	case op == OpLRW || op == OpLRD:
		return []int{r(false, in.Rd), r(false, in.Rs1)}, nil
	case op >= OpSCW && op <= OpAMOMAXUD:
		return []int{r(false, in.Rd), r(false, in.Rs2), r(false, in.Rs1)}, nil
	case op >= OpCSRRW && op <= OpCSRRC:
		return []int{r(false, in.Rd), r(false, in.Rs1)}, []int64{in.Imm}
	case op >= OpCSRRWI && op <= OpCSRRCI:
		return []int{r(false, in.Rd)}, []int64{in.Imm, int64(in.Rs1)}
	case op >= OpFMADDS:
		fd, f1, f2 := fregs(op)
		regs = []int{r(fd, in.Rd), r(f1, in.Rs1)}
		switch op {
		case OpFMADDS, OpFMSUBS, OpFNMSUBS, OpFNMADDS, OpFMADDD, OpFMSUBD, OpFNMSUBD, OpFNMADDD:
			regs = append(regs, r(true, in.Rs2), r(true, in.Rs3()))
		case OpFADDS, OpFSUBS, OpFMULS, OpFDIVS, OpFSGNJS, OpFSGNJNS, OpFSGNJXS, OpFMINS, OpFMAXS, OpFEQS, OpFLTS, OpFLES,
			OpFADDD, OpFSUBD, OpFMULD, OpFDIVD, OpFSGNJD, OpFSGNJND, OpFSGNJXD, OpFMIND, OpFMAXD, OpFEQD, OpFLTD, OpFLED:
			regs = append(regs, r(f2, in.Rs2))
		}
		return regs, nil
	}
	return ourFields(in)
}

func equalInts[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecodeAgainstXArch decodes random words of every RV64IM major opcode
// (and fully random words) with our decoder and with
// golang.org/x/arch/riscv64/riscv64asm, and requires the same operation and
// operands, or "illegal" exactly when x/arch decodes something outside
// RV64IM.
func TestDecodeAgainstXArch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opcodes := []uint32{0x37, 0x17, 0x6f, 0x67, 0x63, 0x03, 0x23, 0x13, 0x1b, 0x33, 0x3b, 0x0f, 0x73}
	seen := map[Op]int{}
	for i := 0; i < 300000; i++ {
		w := rng.Uint32() | 3 // 32-bit encodings; compressed ones are the next test's
		switch {
		case i == 0:
			w = 0x00000073 // ecall: fixed words random draws never hit
		case i == 1:
			w = 0x00100073 // ebreak
		case i%4 != 0:
			w = w&^0x7f | opcodes[rng.IntN(len(opcodes))]
			if rng.IntN(2) == 0 { // make funct7 plausible more often
				w = w&^(0x7f<<25) | []uint32{0, 0x20, 1}[rng.IntN(3)]<<25
			}
		}
		ours := Decode(w)
		seen[ours.Op]++
		ref, err := riscv64asm.Decode([]byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)})
		refName := ""
		if err == nil && ref.Len == 4 {
			refName = refOpName(ref)
		}
		if ours.Op == OpIllegal {
			if rm := (w >> 12) & 7; w&0x7f == 0x53 || rm == 5 || rm == 6 {
				continue // OP-FP and rounding modes: checks x/arch does not make, the next test's
			}
			if refName != "" && isRV64IMName(refName) {
				t.Fatalf("%08x: we say illegal, x/arch says %v", w, ref)
			}
			continue
		}
		if refName != ours.Op.String() {
			t.Fatalf("%08x: we decode %v, x/arch %q (%v)", w, ours, refName, err)
		}
		if ours.Op == OpFENCE || ours.Op == OpFENCEI || ours.Op == OpECALL || ours.Op == OpEBREAK {
			continue
		}
		rr, ri := fields(ref)
		or, oi := ourFieldsGC(ours)
		if !equalInts(rr, or) || !equalInts(ri, oi) {
			t.Fatalf("%08x: %v: regs %v imms %v, x/arch %v: regs %v imms %v", w, ours, or, oi, ref, rr, ri)
		}
	}
	for op := OpLUI; op <= OpEBREAK; op++ {
		if seen[op] == 0 {
			t.Errorf("random words never produced %v", op)
		}
	}
}

// TestDecodeGCAgainstXArch is TestDecodeAgainstXArch for the rest of
// RV64GC: random words of the A, F, D and Zicsr opcodes and random 16-bit
// compressed parcels, decoded by us and by x/arch (which expands a
// compressed instruction to its base operation, as we do). Where we
// decode, x/arch must agree on the operation and every operand; where we
// say illegal, x/arch may decode only what it does not check: a reserved
// rounding mode (5 or 6) or a nonzero rs2 in fields the ISA fixes.
func TestDecodeGCAgainstXArch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	opcodes := []uint32{0x2f, 0x07, 0x27, 0x43, 0x47, 0x4b, 0x4f, 0x53, 0x53, 0x53, 0x73}
	seen := map[Op]int{}
	for i := 0; i < 600000; i++ {
		var b []byte
		var w uint32
		if i%3 == 0 {
			h := uint16(rng.Uint32())
			if h&3 == 3 {
				h &^= uint16(rng.IntN(3) + 1) // a compressed quadrant
			}
			w = uint32(h)
			b = []byte{byte(h), byte(h >> 8), 0, 0}
		} else {
			w = rng.Uint32()&^0x7f | opcodes[rng.IntN(len(opcodes))]
			switch w & 0x7f {
			case 0x53: // plausible funct7 and rs2 for OP-FP
				f7 := []uint32{0, 1, 4, 5, 8, 9, 0xc, 0xd, 0x2c, 0x2d, 0x10, 0x11, 0x14, 0x15, 0x20, 0x21, 0x50, 0x51, 0x60, 0x61, 0x68, 0x69, 0x70, 0x71, 0x78, 0x79}[rng.IntN(26)]
				w = w&^(0x7f<<25) | f7<<25
				if rng.IntN(2) == 0 {
					w = w&^(31<<20) | uint32(rng.IntN(4))<<20
				}
			case 0x73: // the CSRs we know, often
				if rng.IntN(2) == 0 {
					w = w&^(0xfff<<20) | []uint32{1, 2, 3, 0xc00, 0xc01, 0xc02}[rng.IntN(6)]<<20
				}
			}
			if rng.IntN(3) == 0 { // valid rounding modes more often
				w = w&^(7<<12) | []uint32{0, 1, 2, 3, 4, 7}[rng.IntN(6)]<<12
			}
			b = []byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)}
		}
		ours := Decode(w)
		seen[ours.Op]++
		ref, err := riscv64asm.Decode(b)
		refName := ""
		if err == nil {
			refName = refOpName(ref)
		}
		if ours.Op == OpIllegal {
			if refName == "" || !isRV64IMName(refName) || w == 0 { // the ISA defines parcel 0 as illegal
				continue
			}
			rm := (w >> 12) & 7
			if w&3 == 3 && (rm == 5 || rm == 6 || w&0x7f == 0x53) {
				continue // checks x/arch does not make
			}
			t.Fatalf("%08x: we say illegal, x/arch says %v", w, ref)
		}
		hint := ours.IsCompressed() && (ours.Rd == 0 || (ours.Op == OpSLLI || ours.Op == OpSRLI || ours.Op == OpSRAI || ours.Op == OpADDI && ours.Rs1 == ours.Rd) && ours.Imm == 0)
		if hint && (err != nil || refName == ours.Op.String()) {
			continue // a HINT: x/arch refuses it, or decodes c.nop's as plain
		}
		if ours.Len() != uint64(ref.Len) {
			t.Fatalf("%08x: length %d, x/arch %d (%v)", w, ours.Len(), ref.Len, ref)
		}
		if refName != ours.Op.String() {
			t.Fatalf("%08x: we decode %v, x/arch %q (%v)", w, ours, refName, err)
		}
		if ours.Op == OpFENCE || ours.Op == OpFENCEI || ours.Op == OpECALL || ours.Op == OpEBREAK {
			continue
		}
		rr, ri := fields(ref)
		or, oi := ourFieldsGC(ours)
		if ours.Op == OpLUI { // x/arch gives c.lui's 20-bit field
			ri = []int64{ri[0] & 0xfffff}
		}
		if w&0xe003 == 0xa001 {
			// c.j: x/arch v0.32 scrambles its offset bits (0xad91 is
			// +1620 to GNU objdump and to the ISA's bit map, +1624 to
			// x/arch); TestDecodeCompressedJumps checks it against GNU.
			ri = oi
		}
		if !equalInts(rr, or) || !equalInts(ri, oi) {
			t.Fatalf("%08x: %v: regs %v imms %v, x/arch %v: regs %v imms %v", w, ours, or, oi, ref, rr, ri)
		}
	}
	for op := OpCSRRW; op < NumOps; op++ {
		if seen[op] == 0 {
			t.Errorf("random words never produced %v", op)
		}
	}
}

// TestDecodeCompressedJumps checks compressed jump and branch offsets
// against GNU objdump (riscv64-linux-gnu-objdump -d -M no-aliases of the
// parcels at consecutive addresses): target minus address.
func TestDecodeCompressedJumps(t *testing.T) {
	for _, tc := range []struct {
		h    uint16
		op   Op
		rs1  uint8
		disp int64
	}{
		{0xad91, OpJAL, 0, 0x656 - 2},
		{0xbf75, OpJAL, 0, -0x44},
		{0xa165, OpJAL, 0, 0x4aa - 2},
		{0xbde5, OpJAL, 0, -0x104 - 4},
		{0xbbc9, OpJAL, 0, -0x228 - 6},
		{0xab91, OpJAL, 0, 0x55c - 8},
		{0xb0c1, OpJAL, 0, -0x736 - 0xa},
		{0xb145, OpJAL, 0, -0x354 - 0xc},
		{0xa7b1, OpJAL, 0, 0x762 - 0x16},
		{0xe76d, OpBNE, 14, 0x102 - 0x18},
		{0xf731, OpBNE, 14, -0x9a - 0x1a},
		{0xd17d, OpBEQ, 10, 2 - 0x1c},
		{0xc621, OpBEQ, 12, 0x66 - 0x1e},
		{0xdcf9, OpBEQ, 9, 0 - 0x22},
	} {
		in := DecodeCompressed(tc.h)
		if in.Op != tc.op || in.Imm != tc.disp || in.Rs1 != tc.rs1 || in.Len() != 2 {
			t.Errorf("%04x: %v (rs1 %d, offset %d), want %v rs1 %d offset %d", tc.h, in, in.Rs1, in.Imm, tc.op, tc.rs1, tc.disp)
		}
	}
}

// refOpName returns x/arch's operation name as we spell it: lower case,
// without the aq/rl suffixes of the atomics.
func refOpName(ref riscv64asm.Inst) string {
	name := strings.ToLower(ref.Op.String())
	for _, suffix := range []string{".aqrl", ".aq", ".rl"} {
		name = strings.TrimSuffix(name, suffix)
	}
	return name
}

func isRV64IMName(name string) bool {
	for op := OpLUI; op < NumOps; op++ {
		if op.String() == name {
			return true
		}
	}
	return false
}

func TestDecodeExamples(t *testing.T) {
	for _, tc := range []struct {
		w    uint32
		want string
	}{
		{0x00a00513, "addi a0,zero,10"},
		{0xfff00293, "addi t0,zero,-1"},
		{0x00000073, "ecall"},
		{0x02b50533, "mul a0,a0,a1"},
		{0x02b54533, "div a0,a0,a1"},
		{0x0005051b, "addiw a0,a0,0"},
		{0x40b50533, "sub a0,a0,a1"},
		{0xfe051ee3, "bne a0,zero,-4"},
		{0x00813083, "ld ra,8(sp)"},
		{0x00113423, "sd ra,8(sp)"},
		{0x00008067, "jalr zero,0(ra)"},
		{0x4025d593, "srai a1,a1,2"},
		{0x03f51513, "slli a0,a0,63"},
		{0x00001537, "lui a0,0x1"},
		{0x0000100f, "fence.i"},
		{0x00000000, "illegal 0x0000"},     // the all-zero parcel
		{0xffffffff, "illegal 0xffffffff"}, // a 32-bit word of no extension
		{0x00004501, "addi a0,zero,0"},     // c.li
		{0x00008082, "jalr zero,0(ra)"},    // c.jr ra (ret)
		{0x00009002, "ebreak"},             // c.ebreak
		{0x00001141, "addi sp,sp,-16"},     // c.addi sp
		{0x00006105, "addi sp,sp,32"},      // c.addi16sp
		{0x00000001, "addi zero,zero,0"},   // c.nop
		{0x00053007, "fld ft0,0(a0)"},
		{0x02b57553, "fadd.d fa0,fa0,fa1"},
		{0x02b50553, "fadd.d fa0,fa0,fa1,rne"},
		{0x0ab5f543, "fmadd.d fa0,fa1,fa1,ft1"},
		{0xa2b52553, "feq.d a0,fa0,fa1"},
		{0xc0257553, "fcvt.l.s a0,fa0"},
		{0xd2257553, "fcvt.d.l fa0,a0"},
		{0x02b55553, "illegal 0x02b55553"}, // rounding mode 5
		{0x1005252f, "lr.w a0,(a0)"},
		{0x18b5252f, "sc.w a0,a1,(a0)"},
		{0x00202573, "csrrs a0,frm,zero"},
		{0x00115073, "csrrwi zero,fflags,2"},
		{0x30002573, "csrrs a0,0x300,zero"}, // mstatus: decodes, faults when executed
	} {
		if got := Decode(tc.w).String(); got != tc.want {
			t.Errorf("Decode(%08x) = %q, want %q", tc.w, got, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint32(0x00a00513))
	f.Add(uint32(0x02b54533))
	f.Fuzz(func(t *testing.T, w uint32) {
		in := Decode(w)
		_ = in.String()
		if in.Op != OpIllegal && in.Raw != w && in.Raw != w&0xffff {
			t.Fatalf("Raw %08x != %08x", in.Raw, w)
		}
		if in.Rd > 31 || in.Rs1 > 31 || in.Rs2 > 31 {
			t.Fatalf("register out of range: %+v", in)
		}
	})
}
