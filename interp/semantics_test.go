package interp_test

import (
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestInstructionSemantics runs single instructions through the
// interpreter and checks their effect on registers, memory and pc.
func TestInstructionSemantics(t *testing.T) {
	const T, D = rvtest.MakeELFText, rvtest.MakeELFData
	data := []byte{0x80, 0xff, 0x7f, 0x80, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88}
	type regs map[uint8]uint64
	for _, tc := range []struct {
		name   string
		in     interp.Inst
		before regs
		after  regs
		pc     uint64 // expected next pc (0: T+4)
		mem    []byte // expected 16 bytes at D (nil: unchanged)
	}{
		{"lui", interp.Inst{Op: interp.OpLUI, Rd: 10, Imm: -4096}, nil, regs{10: 0xffff_ffff_ffff_f000}, 0, nil},
		{"auipc", interp.Inst{Op: interp.OpAUIPC, Rd: 10, Imm: 0x1000}, nil, regs{10: T + 0x1000}, 0, nil},
		{"jal", interp.Inst{Op: interp.OpJAL, Rd: 1, Imm: 8}, nil, regs{1: T + 4}, T + 8, nil},
		{"jal x0", interp.Inst{Op: interp.OpJAL, Rd: 0, Imm: 8}, nil, regs{0: 0}, T + 8, nil},
		{"jalr clears bit 0", interp.Inst{Op: interp.OpJALR, Rd: 1, Rs1: 5, Imm: 1}, regs{5: T + 7}, regs{1: T + 4}, T + 8, nil},
		{"jalr rd=rs1", interp.Inst{Op: interp.OpJALR, Rd: 5, Rs1: 5}, regs{5: T + 8}, regs{5: T + 4}, T + 8, nil},
		{"beq taken", interp.Inst{Op: interp.OpBEQ, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: 3, 6: 3}, nil, T + 8, nil},
		{"bne not taken", interp.Inst{Op: interp.OpBNE, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: 3, 6: 3}, nil, 0, nil},
		{"blt signed", interp.Inst{Op: interp.OpBLT, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: ^uint64(0), 6: 0}, nil, T + 8, nil},
		{"bltu unsigned", interp.Inst{Op: interp.OpBLTU, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: ^uint64(0), 6: 0}, nil, 0, nil},
		{"bge equal", interp.Inst{Op: interp.OpBGE, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: 7, 6: 7}, nil, T + 8, nil},
		{"bgeu", interp.Inst{Op: interp.OpBGEU, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: 1, 6: ^uint64(0)}, nil, 0, nil},
		{"lb sign-extends", interp.Inst{Op: interp.OpLB, Rd: 10, Rs1: 5}, regs{5: D}, regs{10: 0xffff_ffff_ffff_ff80}, 0, nil},
		{"lbu", interp.Inst{Op: interp.OpLBU, Rd: 10, Rs1: 5}, regs{5: D}, regs{10: 0x80}, 0, nil},
		{"lh", interp.Inst{Op: interp.OpLH, Rd: 10, Rs1: 5, Imm: 2}, regs{5: D}, regs{10: 0xffff_ffff_ffff_807f}, 0, nil},
		{"lhu", interp.Inst{Op: interp.OpLHU, Rd: 10, Rs1: 5, Imm: 2}, regs{5: D}, regs{10: 0x807f}, 0, nil},
		{"lw", interp.Inst{Op: interp.OpLW, Rd: 10, Rs1: 5, Imm: 4}, regs{5: D}, regs{10: ^uint64(0)}, 0, nil},
		{"lwu", interp.Inst{Op: interp.OpLWU, Rd: 10, Rs1: 5, Imm: 4}, regs{5: D}, regs{10: 0xffff_ffff}, 0, nil},
		{"ld negative offset", interp.Inst{Op: interp.OpLD, Rd: 10, Rs1: 5, Imm: -8}, regs{5: D + 16}, regs{10: 0x8807060504030201}, 0, nil},
		{"ld misaligned", interp.Inst{Op: interp.OpLD, Rd: 10, Rs1: 5, Imm: 1}, regs{5: D}, regs{10: 0x01ffffffff807fff}, 0, nil},
		{"load to x0", interp.Inst{Op: interp.OpLD, Rd: 0, Rs1: 5}, regs{5: D}, regs{0: 0}, 0, nil},
		{"sb", interp.Inst{Op: interp.OpSB, Rs1: 5, Rs2: 6, Imm: 1}, regs{5: D, 6: 0x1234}, nil, 0,
			[]byte{0x80, 0x34, 0x7f, 0x80, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 0x88}},
		{"sh", interp.Inst{Op: interp.OpSH, Rs1: 5, Rs2: 6}, regs{5: D, 6: 0x1234}, nil, 0,
			[]byte{0x34, 0x12, 0x7f, 0x80, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 0x88}},
		{"sw", interp.Inst{Op: interp.OpSW, Rs1: 5, Rs2: 6, Imm: 8}, regs{5: D, 6: 0xaabbccdd11223344}, nil, 0,
			[]byte{0x80, 0xff, 0x7f, 0x80, 0xff, 0xff, 0xff, 0xff, 0x44, 0x33, 0x22, 0x11, 5, 6, 7, 0x88}},
		{"sd x0", interp.Inst{Op: interp.OpSD, Rs1: 5, Rs2: 0}, regs{5: D}, nil, 0,
			[]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 0x88}},
		{"addi to x0", interp.Inst{Op: interp.OpADDI, Rd: 0, Rs1: 5, Imm: 1}, regs{5: 9}, regs{0: 0}, 0, nil},
		{"srai", interp.Inst{Op: interp.OpSRAI, Rd: 10, Rs1: 5, Imm: 63}, regs{5: 1 << 63}, regs{10: ^uint64(0)}, 0, nil},
		{"sraiw", interp.Inst{Op: interp.OpSRAIW, Rd: 10, Rs1: 5, Imm: 4}, regs{5: 0x1_8000_0000}, regs{10: 0xffff_ffff_f800_0000}, 0, nil},
		{"addiw wraps", interp.Inst{Op: interp.OpADDIW, Rd: 10, Rs1: 5, Imm: 1}, regs{5: 0x7fff_ffff}, regs{10: 0xffff_ffff_8000_0000}, 0, nil},
		{"fence", interp.Inst{Op: interp.OpFENCE}, nil, nil, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := interp.Load(rvtest.MakeELF([]uint32{rvtest.Encode(tc.in), 0, 0}, data, 4096), interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for r, v := range tc.before {
				m.CPU.X[r] = v
			}
			for _, step := range []func() error{
				func() error { _, err := m.Step(); return err },
				func() error { _, err := m.RunUntil(1, 0); return err },
			} {
				m.CPU.PC = T
				copy(m.Mem.Bytes(D, 16), data)
				saved := m.CPU.X
				if err := step(); err != nil {
					t.Fatal(err)
				}
				want := tc.pc
				if want == 0 {
					want = T + 4
				}
				if m.CPU.PC != want {
					t.Errorf("pc = %#x, want %#x", m.CPU.PC, want)
				}
				for r, v := range tc.after {
					if m.CPU.X[r] != v {
						t.Errorf("x%d = %#x, want %#x", r, m.CPU.X[r], v)
					}
				}
				if tc.mem != nil && string(m.Mem.Bytes(D, 16)) != string(tc.mem) {
					t.Errorf("memory % x, want % x", m.Mem.Bytes(D, 16), tc.mem)
				}
				m.CPU.X = saved
			}
		})
	}
}

// TestFaultsLeaveStateUnchanged checks that a faulting instruction neither
// retires nor changes registers, in both interpreter loops.
func TestFaultsLeaveStateUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   interp.Inst
		kind interp.FaultKind
	}{
		{"load null", interp.Inst{Op: interp.OpLD, Rd: 10, Rs1: 0, Imm: 8}, interp.FaultLoad},
		{"store text", interp.Inst{Op: interp.OpSW, Rs1: 5, Rs2: 6}, interp.FaultStore},
		{"ebreak", interp.Inst{Op: interp.OpEBREAK}, interp.FaultBreakpoint},
		// amoadd.w ra,a0,(t2): t2 is not 4-byte aligned.
		{"amo misaligned", interp.Inst{Raw: 0x00a3a0af}, interp.FaultMisaligned},
		// csrr ra,mstatus: a CSR user mode may not access.
		{"csr privileged", interp.Inst{Raw: 0x300020f3}, interp.FaultIllegal},
		// csrw cycle,a0: a read-only counter.
		{"csr read-only", interp.Inst{Raw: 0xc0051073}, interp.FaultIllegal},
		// fadd.d ft0,ft0,ft0 with the dynamic rounding mode while frm holds 5.
		{"reserved frm", interp.Inst{Raw: 0x02007053}, interp.FaultIllegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, fast := range []bool{false, true} {
				w := tc.in.Raw
				if w == 0 {
					w = rvtest.Encode(tc.in)
				}
				m, err := interp.Load(rvtest.MakeELF([]uint32{w, 0}, nil, 4096), interp.Config{})
				if err != nil {
					t.Fatal(err)
				}
				m.CPU.X[5], m.CPU.X[7], m.CPU.X[10], m.CPU.X[1] = rvtest.MakeELFText, rvtest.MakeELFText+6, 42, 43
				m.CPU.FCSR = 5 << 5
				if fast {
					_, err = m.RunUntil(10, 0)
				} else {
					_, err = m.Step()
				}
				f, ok := err.(*interp.Fault)
				if !ok || f.Kind != tc.kind || f.PC != rvtest.MakeELFText || m.CPU.PC != rvtest.MakeELFText || m.Retired() != 0 || m.CPU.X[10] != 42 || m.CPU.X[1] != 43 {
					t.Errorf("fast=%v: err %v, pc %#x, retired %d, a0 %d, ra %d", fast, err, m.CPU.PC, m.Retired(), m.CPU.X[10], m.CPU.X[1])
				}
				m.Close()
			}
		})
	}
}
