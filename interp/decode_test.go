package interp

import (
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
			regs = append(regs, int(a-riscv64asm.X0))
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
		w := rng.Uint32()
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
			refName = strings.ToLower(ref.Op.String())
		}
		if ours.Op == OpIllegal {
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
		or, oi := ourFields(ours)
		if !equalInts(rr, or) || !equalInts(ri, oi) {
			t.Fatalf("%08x: %v: regs %v imms %v, x/arch %v: regs %v imms %v", w, ours, or, oi, ref, rr, ri)
		}
	}
	for op := OpLUI; op < NumOps; op++ {
		if seen[op] == 0 {
			t.Errorf("random words never produced %v", op)
		}
	}
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
		{0x00000000, "illegal 0x00000000"},
		{0x00004501, "illegal 0x00004501"}, // compressed c.li
		{0x00053007, "illegal 0x00053007"}, // fld
		{0x30002573, "illegal 0x30002573"}, // csrr
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
		if in.Op != OpIllegal && in.Raw != w {
			t.Fatalf("Raw %08x != %08x", in.Raw, w)
		}
		if in.Rd > 31 || in.Rs1 > 31 || in.Rs2 > 31 {
			t.Fatalf("register out of range: %+v", in)
		}
	})
}
