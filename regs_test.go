package rvdyn_test

import (
	"fmt"
	"testing"

	"rvdyn"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// homeCall is a loop run 300,000 times that calls a function placed
// before it, so that NET makes two fragments linked to each other: A (the
// loop up to the call) and B (the function, its return and the loop's
// back edge). A computes 32-bit (W) values whose upper halves the code
// generator may leave stale, and keeps three non-home registers busy
// enough to borrow the homes of a0, a4 and a5; B reads the W values in
// full (an address, a checksum in a0) and stores through sp, a home
// register A's transitions must carry. With wild set, B's store address
// leaves guest memory for the last 99 iterations: the fault must come at
// the interpreter's pc, address and instruction count.
func homeCall(wild bool) []byte {
	const (
		zero, ra, sp, t0, t2, s0 = 0, 1, 2, 5, 7, 8
		a0, a1, a2, a3           = 10, 11, 12, 13
		s2, t3, t4, t5           = 18, 28, 29, 30
	)
	pick := I{Op: interp.OpSLTIU, Rd: t0, Rs1: s0, Imm: 100} // t0 = s0 < 100
	if !wild {
		pick = I{Op: interp.OpADDI, Rd: t0}
	}
	prog := cat(li(s0, 300000), li(s2, 0x20000), li(a0, 0))
	jumpAt := len(prog)
	prog = append(prog, I{Op: interp.OpJAL}) // j loop, patched below
	f := len(prog)
	prog = append(prog,
		pick,
		I{Op: interp.OpSLLI, Rd: t0, Rs1: t0, Imm: 40},
		I{Op: interp.OpADD, Rd: t0, Rs1: t0, Rs2: s2},
		I{Op: interp.OpANDI, Rd: t2, Rs1: a3, Imm: 0x7f8},
		I{Op: interp.OpADD, Rd: t0, Rs1: t0, Rs2: t2},
		I{Op: interp.OpSD, Rs1: t0, Rs2: a2},          // wild when s0 < 100
		I{Op: interp.OpSD, Rs1: sp, Rs2: a1, Imm: -8}, // through sp
		I{Op: interp.OpADD, Rd: a0, Rs1: a0, Rs2: a3}, // checksum of full values
		I{Op: interp.OpJALR, Rs1: ra},
	)
	loop := len(prog)
	prog[jumpAt].Imm = int64(4 * (loop - jumpAt))
	prog = append(prog,
		I{Op: interp.OpADDIW, Rd: a1, Rs1: s0, Imm: 0x123},
		I{Op: interp.OpSLLIW, Rd: a2, Rs1: a1, Imm: 5},
		I{Op: interp.OpXOR, Rd: a3, Rs1: a2, Rs2: a1},
		I{Op: interp.OpADD, Rd: t3, Rs1: t3, Rs2: a3},
		I{Op: interp.OpADD, Rd: t4, Rs1: t4, Rs2: t3},
		I{Op: interp.OpADD, Rd: t5, Rs1: t5, Rs2: t4},
		I{Op: interp.OpADD, Rd: t3, Rs1: t3, Rs2: t5},
	)
	prog = append(prog, I{Op: interp.OpJAL, Rd: ra, Imm: int64(4 * (f - len(prog)))})
	prog = append(prog, I{Op: interp.OpADDI, Rd: s0, Rs1: s0, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: s0, Rs2: zero, Imm: int64(4 * (loop - len(prog)))})
	prog = append(prog, I{Op: interp.OpXOR, Rd: a0, Rs1: a0, Rs2: t5})
	prog = append(prog, exitWith()...)
	return rvtest.MakeELF(words(prog...), nil, 4096)
}

// TestHomeRegistersAcrossLinks runs homeCall under the interpreter, under
// the optimizer with and without each register mechanism, and under
// qemu-riscv64: every outcome, fault and instruction count included, must
// agree.
func TestHomeRegistersAcrossLinks(t *testing.T) {
	cfgs := hardeningConfigs()
	for _, m := range []string{"home-regs", "lazy-sext", "bp-reg"} {
		o := rvdyn.Options{NET: net.Options{Delay: 10}}
		if err := o.Disable(m); err != nil {
			t.Fatal(err)
		}
		cfgs["no "+m] = o
	}
	for _, wild := range []bool{false, true} {
		t.Run(fmt.Sprintf("wild=%v", wild), func(t *testing.T) {
			img := homeCall(wild)
			ref := agreeEverywhere(t, img, rvdyn.Options{}, cfgs)
			f := faultOf(ref.err)
			switch {
			case wild && (f == nil || f.Kind != interp.FaultStore || ref.code != 139):
				t.Fatalf("interp: exit %d, %v; want a store fault (139)", ref.code, ref.err)
			case !wild && ref.err != nil:
				t.Fatalf("interp: %v", ref.err)
			}
			checkQemu(t, img, ref)
		})
	}
}

// staleHeadReentered is an inner loop that leaves a W result (t0) stale at
// its head although a side exit comes before t0 is written again (the fragment tests on entry that t0 is a sign extension), entered
// 400 times by an outer loop that puts 2^32, no sign extension, into t0
// first: every entry's test fails until the dispatcher compiles the head
// again without the stale register.
func staleHeadReentered() []byte {
	const (
		zero, t0, s1, a0, a1, a2, a3, a4 = 0, 5, 9, 10, 11, 12, 13, 14
	)
	prog := cat(li(s1, 400), li(a0, 0x20000), li(a1, 0x7ffffff0), li(a2, 0))
	outer := len(prog)
	prog = append(prog,
		I{Op: interp.OpADDI, Rd: t0, Imm: 1},
		I{Op: interp.OpSLLI, Rd: t0, Rs1: t0, Imm: 32}, // 2^32
		I{Op: interp.OpADDI, Rd: a3, Imm: 200},
	)
	inner := len(prog)
	prog = append(prog,
		I{Op: interp.OpLW, Rd: a4, Rs1: a0},
		I{Op: interp.OpBLT, Rs1: a4, Rs2: zero, Imm: 8}, // a side exit before t0's next value
		I{Op: interp.OpADDW, Rd: t0, Rs1: a4, Rs2: a1},  // stale at the end of the body
		I{Op: interp.OpADDW, Rd: a2, Rs1: a2, Rs2: t0},  // reads t0's low half only
		I{Op: interp.OpADDI, Rd: a3, Rs1: a3, Imm: -1},
		I{Op: interp.OpSW, Rs1: a0, Rs2: a2},
	)
	prog = append(prog, I{Op: interp.OpBNE, Rs1: a3, Rs2: zero, Imm: int64(4 * (inner - len(prog)))})
	prog = append(prog, I{Op: interp.OpADDI, Rd: s1, Rs1: s1, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: s1, Rs2: zero, Imm: int64(4 * (outer - len(prog)))})
	prog = append(prog, I{Op: interp.OpANDI, Rd: a0, Rs1: a2, Imm: 0x7f})
	prog = append(prog, exitWith()...)
	return rvtest.MakeELF(words(prog...), nil, 4096)
}

// TestStaleHeadEntryTestFails: where the entry test of a register left
// stale at a loop head keeps failing, the head is compiled again without
// it after a bounded number of failures (each runs an iteration in the
// interpreter), and every configuration agrees with the interpreter.
func TestStaleHeadEntryTestFails(t *testing.T) {
	checkEntryTestsGiveUp(t, staleHeadReentered(), hardeningConfigs(), nil)
}

// checkEntryTestsGiveUp runs img, a guest whose fragment's entry tests
// (exit.Record.EntryTest) keep failing, in every configuration of cfgs
// against the interpreter (and qemu-riscv64), checks the interpreter's
// outcome with want (if not nil), and checks that the default dynamo
// run failed its entry tests and removed the fragment for it after a
// bounded number of failures.
func checkEntryTestsGiveUp(t *testing.T, img []byte, cfgs map[string]rvdyn.Options, want func(ref outcome)) {
	t.Helper()
	ref := agreeEverywhere(t, img, rvdyn.Options{}, cfgs)
	if ref.err != nil {
		t.Fatalf("interp: %v", ref.err)
	}
	if want != nil {
		want(ref)
	}
	got := run(t, img, rvdyn.Options{Mode: rvdyn.ModeDynamo})
	if d := sameOutcome(ref, got); d != "" {
		t.Fatal(d)
	}
	s := got.stats
	t.Logf("entry tests failed %d, fragments removed %d", s.EntryTestFails, s.EntryTestRemoved)
	if s.EntryTestFails == 0 || s.EntryTestRemoved == 0 || s.EntryTestFails > 2*16 {
		t.Errorf("entry tests failed %d, fragments removed for them %d: want some, each removal after 16", s.EntryTestFails, s.EntryTestRemoved)
	}
	checkQemu(t, img, ref)
}

// accumulatorReentered is a guest whose inner loop adds to an f register
// it reads only as a value before it writes it (fa0 += fa1, fa0 left
// dirty at the loop head), entered 400 times with fa0 a quiet NaN that
// carries a payload, which the guest reads back as bits after the loop
// once in 16 entries: the head's entry test fails on every entry.
func accumulatorReentered() []byte {
	const (
		zero, t0, t1, s1, a0, a2, a4, a5, fa0, fa1 = 0, 5, 6, 9, 10, 12, 14, 15, 10, 11
	)
	prog := cat(li(s1, 400), li(a2, 0), li(t1, 0x3ff0), // fa1 = 1.0
		[]I{{Op: interp.OpSLLI, Rd: t1, Rs1: t1, Imm: 48}, {Op: interp.OpFMVDX, Rd: fa1, Rs1: t1}})
	outer := len(prog)
	prog = append(prog, cat(li(t0, 0x7ff8), []I{ // fa0 = a quiet NaN with a payload, or 2.0 once in 16
		{Op: interp.OpSLLI, Rd: t0, Rs1: t0, Imm: 48},
		{Op: interp.OpADDI, Rd: t0, Rs1: t0, Imm: 0x123},
		{Op: interp.OpANDI, Rd: a5, Rs1: s1, Imm: 15},
		{Op: interp.OpBNE, Rs1: a5, Rs2: zero, Imm: 8},
		{Op: interp.OpADDI, Rd: t0, Rs1: t1, Imm: 0}, // (1.0's bits; the loop's first add makes it 2.0)
		{Op: interp.OpFMVDX, Rd: fa0, Rs1: t0},
	}, li(a5, 50))...)
	inner := len(prog)
	prog = append(prog,
		I{Op: interp.OpFADDD, Rd: fa0, Rs1: fa0, Rs2: fa1, Imm: 7},
		I{Op: interp.OpADDI, Rd: a5, Rs1: a5, Imm: -1},
	)
	prog = append(prog, I{Op: interp.OpBNE, Rs1: a5, Rs2: zero, Imm: int64(4 * (inner - len(prog)))})
	prog = append(prog,
		I{Op: interp.OpFMVXD, Rd: a4, Rs1: fa0}, // the bits: the canonical NaN, or 51.0
		I{Op: interp.OpXOR, Rd: a2, Rs1: a2, Rs2: a4},
		I{Op: interp.OpSRLI, Rd: a4, Rs1: a4, Imm: 32},
		I{Op: interp.OpADD, Rd: a2, Rs1: a2, Rs2: a4},
		I{Op: interp.OpADDI, Rd: s1, Rs1: s1, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: s1, Rs2: zero, Imm: int64(4 * (outer - len(prog)))})
	prog = append(prog, I{Op: interp.OpANDI, Rd: a0, Rs1: a2, Imm: 0x7f})
	prog = append(prog, exitWith()...)
	return rvtest.MakeELF(words(prog...), nil, 4096)
}

// TestHeadNaNEntryFails: where the entry test of an f register left
// dirty at a loop head keeps failing (the loop is entered with a NaN
// there every time), the head is compiled again without it after a
// bounded number of failures, and every configuration, the mechanism
// off among them, agrees with the interpreter and qemu-riscv64.
func TestHeadNaNEntryFails(t *testing.T) {
	cfgs := hardeningConfigs()
	for _, m := range []string{"head-nan", "lazy-nan"} {
		o := rvdyn.Options{NET: net.Options{Delay: 10}}
		if err := o.Disable(m); err != nil {
			t.Fatal(err)
		}
		cfgs["no "+m] = o
	}
	checkEntryTestsGiveUp(t, accumulatorReentered(), cfgs, nil)
}
