package fragment_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestLazyFflagsLoop runs a self-loop with gcc's quiet compare (frflags,
// flt, fsflags, as every sqrt call under -fmath-errno has it) between
// operations that raise new flags, with side exits before and after the
// read of fflags taken at random iterations, on operands that raise
// every flag, against the interpreter: the register that holds the
// flags read (left to the exits, amd64's flagsnap.go), fflags and
// every other register must agree at every exit, the budget running
// out on the back edge included; the first iteration's early exit
// leaves the register's entry value. The same loop with the register
// read in the body computes it where it is read.
func TestLazyFflagsLoop(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	body := []I{
		{Op: interp.OpFDIVD, Rd: 1, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpAND, Rd: 5, Rs1: 10, Rs2: 9},
		{Op: interp.OpBEQ, Rs1: 5, Rs2: 0}, // to the end: before the read
		{Op: interp.OpCSRRS, Rd: 13, Rs1: 0, Imm: interp.CSRFflags},
		{Op: interp.OpFLTD, Rd: 14, Rs1: 1, Rs2: 13},
		{Op: interp.OpCSRRW, Rd: 0, Rs1: 13, Imm: interp.CSRFflags},
		{Op: interp.OpFSQRTD, Rd: 2, Rs1: 1, Imm: dyn},
		{Op: interp.OpFMULD, Rd: 3, Rs1: 2, Rs2: 12, Imm: dyn},
		{Op: interp.OpAND, Rd: 7, Rs1: 10, Rs2: 15},
		{Op: interp.OpBEQ, Rs1: 7, Rs2: 0}, // to the end: after it
		{Op: interp.OpFADDD, Rd: 11, Rs1: 11, Rs2: 3, Imm: dyn},
		{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 14},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	readBody := append(append([]I{}, body...), I{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 13})
	vals := []uint64{0x3ff0000000000000, 0xbff0000000000000, 0, 0x8000000000000000, 0x7ff0000000000000,
		0x7ff8000000000000, 0x7ff4000000000000, 0x0000000000000001, 0x7fefffffffffffff, 0x4008000000000000,
		0x3fb999999999999a, 0xc000000000000000}
	rng := rand.New(rand.NewPCG(27, 28))
	set := func(cpu *interp.CPU, iters uint64, masks bool) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[9], cpu.X[15] = iters, ^uint64(0), ^uint64(0)
		if masks {
			cpu.X[9], cpu.X[15] = uint64(rng.IntN(64)), uint64(rng.IntN(64))
		}
		cpu.X[13] = rng.Uint64() // the entry value an early exit keeps
		cpu.FCSR = uint64(rng.IntN(5))<<5 | uint64(rng.IntN(32))
		for _, r := range []int{11, 12, 13} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
	}
	checkFflagsLoop(t, []fflagsCase{{"unread", body, true}, {"read", readBody, false}}, []string{snapMark}, 600, rng, set, nil)
}

// TestQuietCompareRestores runs a self-loop with two quiet compares
// (frflags, flt or feq, fsflags) on operands that are often NaNs, the
// first read left to the exits and the second read in the body, with a
// division that raises new flags between them, against the interpreter:
// a quiet compare after a read left to the exits restores MXCSR from the
// read's slot where it compared a NaN (restoreOnNaN), and only from the
// read right before it: restoring the first read's flags at the second
// compare would lose the division's.
func TestQuietCompareRestores(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	for _, cmp := range []interp.Op{interp.OpFLTD, interp.OpFLED, interp.OpFEQD} {
		b := []I{
			{Op: interp.OpCSRRS, Rd: 13, Rs1: 0, Imm: interp.CSRFflags},
			{Op: cmp, Rd: 14, Rs1: 1, Rs2: 2},
			{Op: interp.OpCSRRW, Rd: 0, Rs1: 13, Imm: interp.CSRFflags},
			{Op: interp.OpFDIVD, Rd: 3, Rs1: 11, Rs2: 12, Imm: dyn},
			{Op: interp.OpCSRRS, Rd: 16, Rs1: 0, Imm: interp.CSRFflags},
			{Op: cmp, Rd: 17, Rs1: 2, Rs2: 1},
			{Op: interp.OpCSRRW, Rd: 0, Rs1: 16, Imm: interp.CSRFflags},
			{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 16}, // the second read is read
			{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 14},
			{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 17},
			{Op: interp.OpFADDD, Rd: 12, Rs1: 12, Rs2: 3, Imm: dyn},
			{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
		}
		vals := []uint64{0x3ff0000000000000, 0, 0x8000000000000000, 0x7ff0000000000000,
			0x7ff8000000000000, 0x7ff4000000000000, 0xfff8000000000001, 0x0000000000000001, 0x4008000000000000}
		rng := rand.New(rand.NewPCG(31, uint64(cmp)))
		img := loopImage(b, make([]byte, 64), 64)
		set := func(cpu *interp.CPU, iters uint64) {
			*cpu = interp.CPU{PC: rvtest.MakeELFText}
			cpu.X[10] = iters
			cpu.FCSR = uint64(rng.IntN(32)) // flags only: round to nearest
			for _, r := range []int{1, 2, 11, 12} {
				cpu.F[r] = vals[rng.IntN(len(vals))]
			}
		}
		trace, code := compileLoop(t, img, len(b), func(cpu *interp.CPU) { set(cpu, 20) }, fragment.Options{})
		var listing strings.Builder
		if err := fragment.WriteListing(&listing, trace, code); err != nil {
			t.Fatal(err)
		}
		l := listing.String()
		if strings.Count(l, "LDMXCSR") == 0 || !strings.Contains(l, fmt.Sprintf("STMXCSR %#x(R15)", amd64.StateFlagSnaps)) {
			t.Fatalf("%v: the first compare does not restore from the read's slot:\n%s", cmp, l)
		}
		// Every jump on parity tests a compare's: one after feq's AND
		// would restore for every unequal pair.
		lines := strings.Split(l, "\n")
		for k, line := range lines {
			if f := strings.Fields(line); len(f) >= 2 && f[1] == "JP" && !strings.Contains(lines[k-1], "COMIS") {
				t.Errorf("%v: %q follows %q, not a compare", cmp, line, lines[k-1])
			}
		}
		runLoop(t, cmp.String(), img, trace, code, 400, rng, func(cpu *interp.CPU, _ int) {
			set(cpu, uint64(1+rng.IntN(8)))
		})
	}
}

// TestRestoredFflagsLoop runs a self-loop with glibc's floor (frflags a ;
// a NaN test and a range test that leave the loop ; fcvt.l.d and fcvt.d.l
// rounding down, which raise inexact ; fsflags a), then a division that
// raises flags anew and a third exit, against the interpreter, on
// integral and fractional values, NaNs, infinities and values beyond
// 2^52, from random fflags: the read is left to the exits and the write
// that restores it loads MXCSR back from the read's slot, so the flags
// the conversions raised are gone after it and present at an exit
// before it. With the register read in the body as well, the read is
// computed where it is and the write lowered as a write.
func TestRestoredFflagsLoop(t *testing.T) {
	type I = interp.Inst
	const dyn, rdn = 7, 2
	body := []I{
		{Op: interp.OpCSRRS, Rd: 14, Rs1: 0, Imm: interp.CSRFflags},
		{Op: interp.OpFEQD, Rd: 15, Rs1: 10, Rs2: 10},
		{Op: interp.OpBEQ, Rs1: 15, Rs2: 0}, // a NaN: to the end, between read and write
		{Op: interp.OpFSGNJXD, Rd: 5, Rs1: 10, Rs2: 10},
		{Op: interp.OpFLTD, Rd: 15, Rs1: 5, Rs2: 11},
		{Op: interp.OpBEQ, Rs1: 15, Rs2: 0}, // |x| >= 2^52: to the end
		{Op: interp.OpFCVTLD, Rd: 15, Rs1: 10, Imm: rdn},
		{Op: interp.OpFCVTDL, Rd: 5, Rs1: 15, Imm: rdn},
		{Op: interp.OpFSGNJD, Rd: 10, Rs1: 5, Rs2: 10},
		{Op: interp.OpCSRRW, Rd: 0, Rs1: 14, Imm: interp.CSRFflags},
		{Op: interp.OpFDIVD, Rd: 12, Rs1: 12, Rs2: 13, Imm: dyn},
		{Op: interp.OpAND, Rd: 7, Rs1: 10, Rs2: 16},
		{Op: interp.OpBEQ, Rs1: 7, Rs2: 0}, // to the end: after the write
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 10},
		{Op: interp.OpADD, Rd: 9, Rs1: 9, Rs2: 6},
		{Op: interp.OpFADDD, Rd: 10, Rs1: 10, Rs2: 17, Imm: dyn},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	readBody := append(append([]I{}, body...), I{Op: interp.OpXOR, Rd: 9, Rs1: 9, Rs2: 14})
	// Another read, unread, before the one read in the body: left to the
	// exits it would be wrong after the write, which changes State's
	// flags, so it is not.
	twoBody := append([]I{{Op: interp.OpCSRRS, Rd: 13, Rs1: 0, Imm: interp.CSRFflags}}, readBody...)
	vals := []uint64{0x3ff0000000000000, 0xbff8000000000000, 0, 0x8000000000000000, 0x7ff0000000000000,
		0xfff0000000000000, 0x7ff8000000000000, 0x7ff4000000000000, 0x4330000000000001, 0xc3e0000000000000,
		0x3fb999999999999a, 0xc004000000000000, 0x0000000000000001}
	rng := rand.New(rand.NewPCG(29, 30))
	set := func(cpu *interp.CPU, iters uint64, masks bool) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[16] = iters, ^uint64(0)
		if masks {
			cpu.X[16] = uint64(rng.IntN(64)) | 1<<62
		}
		cpu.X[14] = rng.Uint64() // the entry value an early exit keeps
		cpu.FCSR = uint64(rng.IntN(5))<<5 | uint64(rng.IntN(32))
		cpu.F[11] = 0x4330000000000000 // 2^52
		for _, r := range []int{10, 12, 13, 17} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
	}
	restore := fmt.Sprintf("LDMXCSR %#x(R15)", amd64.StateFlagSnaps) // the write, from the read's slot
	checkFflagsLoop(t, []fflagsCase{{"unread", body, true}, {"read", readBody, false}, {"two reads", twoBody, false}},
		[]string{restore, snapMark}, 800, rng, set, func(cpu *interp.CPU) {
			cpu.F[10] = 0x4004000000000000 // 2.5: the recorded path converts
		})
}

// TestFflagsRegisterReused runs a self-loop whose read of fflags goes to a
// register the body writes again later (gcc reuses the register of
// sqrt's saved flags): read at the top of the body (the iteration
// before's later write), fflags read, a division that raises flags, side
// exits before and after the register's next write, the register written
// by an add and then by a load, and read after: against the interpreter,
// at exits taken at random iterations. The read is left to the exits
// that see it as the register's last write, and only those; a read of
// the register between its read of fflags and its next write keeps it
// where it is.
func TestFflagsRegisterReused(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	body := []I{
		{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 13}, // the iteration before's last write
		{Op: interp.OpCSRRS, Rd: 13, Rs1: 0, Imm: interp.CSRFflags},
		{Op: interp.OpFDIVD, Rd: 1, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpAND, Rd: 5, Rs1: 10, Rs2: 9},
		{Op: interp.OpBEQ, Rs1: 5, Rs2: 0}, // to the end: the read is the last write
		{Op: interp.OpADDI, Rd: 13, Rs1: 10, Imm: 77},
		{Op: interp.OpAND, Rd: 7, Rs1: 10, Rs2: 15},
		{Op: interp.OpBEQ, Rs1: 7, Rs2: 0}, // to the end: the add is
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 13},
		{Op: interp.OpLD, Rd: 13, Rs1: 8, Imm: 16},
		{Op: interp.OpFADDD, Rd: 11, Rs1: 11, Rs2: 1, Imm: dyn},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	readBetween := append([]I{}, body...)
	readBetween = slices.Insert(readBetween, 3, I{Op: interp.OpOR, Rd: 6, Rs1: 6, Rs2: 13})
	vals := []uint64{0x3ff0000000000000, 0xbff0000000000000, 0, 0x7ff0000000000000, 0x7ff8000000000000,
		0x7ff4000000000000, 0x0000000000000001, 0x7fefffffffffffff, 0x3fb999999999999a}
	rng := rand.New(rand.NewPCG(31, 32))
	set := func(cpu *interp.CPU, iters uint64, masks bool) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[8] = rvtest.MakeELFData
		cpu.X[10], cpu.X[9], cpu.X[15] = iters, ^uint64(0), ^uint64(0)
		if masks {
			cpu.X[9], cpu.X[15] = uint64(rng.IntN(64)), uint64(rng.IntN(64))
		}
		cpu.X[13] = rng.Uint64()
		cpu.FCSR = uint64(rng.IntN(5))<<5 | uint64(rng.IntN(32))
		for _, r := range []int{11, 12} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
	}
	checkFflagsLoop(t, []fflagsCase{{"reused", body, true}, {"read between", readBetween, false}}, []string{snapMark}, 800, rng, set, nil)
}

// snapMark is the code of a read of fflags left to the exits (slot 0).
var snapMark = fmt.Sprintf("STMXCSR %#x(R15)", amd64.StateFlagSnaps)

// A fflagsCase is one loop body of the lazy fflags tests: its side exits
// (beq) go to the loop's exit ecall, and left says whether the marks the
// test looks for are in its code with lazy fflags on.
type fflagsCase struct {
	name string
	body []interp.Inst
	left bool
}

// checkFflagsLoop compiles each case's self-loop with lazy fflags on and
// off, recorded from the state set leaves (20 iterations, no masks; then
// record, if not nil, adjusts it), checks that each of marks is in the
// listing exactly when lazy fflags are on and the case is left, and runs
// the loop runs times against the interpreter from states set leaves
// with masks, 1 to 30 iterations.
func checkFflagsLoop(t *testing.T, cases []fflagsCase, marks []string, runs int, rng *rand.Rand,
	set func(cpu *interp.CPU, iters uint64, masks bool), record func(cpu *interp.CPU)) {
	t.Helper()
	for _, tc := range cases {
		b := append([]interp.Inst{}, tc.body...)
		for k, in := range b {
			if in.Op == interp.OpBEQ {
				b[k].Imm = 4 * int64(len(b)-k+1)
			}
		}
		img := loopImage(b, make([]byte, 64), 64)
		for _, lazy := range []bool{true, false} {
			trace, code := compileLoop(t, img, len(b), func(cpu *interp.CPU) {
				set(cpu, 20, false)
				if record != nil {
					record(cpu)
				}
			}, fragment.Options{NoLazyFflags: !lazy})
			var listing strings.Builder
			if err := fragment.WriteListing(&listing, trace, code); err != nil {
				t.Fatal(err)
			}
			for _, mark := range marks {
				if in := strings.Contains(listing.String(), mark); in != (lazy && tc.left) {
					t.Fatalf("%s, lazy %v: %q in the code: %v, want %v\n%s", tc.name, lazy, mark, in, !in, listing.String())
				}
			}
			runLoop(t, fmt.Sprintf("%s, lazy %v", tc.name, lazy), img, trace, code, runs, rng, func(cpu *interp.CPU, _ int) {
				set(cpu, uint64(1+rng.IntN(30)), true)
			})
		}
	}
}
