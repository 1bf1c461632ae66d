package fragment_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// TestLazyNaNObservers checks that an arithmetic result left with x86's
// NaN (lazy canonicalization) reads as the canonical NaN wherever its
// bits can be seen inside one fragment: a move to an x register of
// either width, a store of either width, a sign injection, fclass, and a
// read as a value of the other precision (a double NaN whose low half is
// a boxed single's, read by a single operation). The operands are NaNs
// with payloads, NaN-boxed singles read as doubles, infinities and zeros
// (0/0, inf-inf give x86's negative default NaN), against the
// interpreter, with lazy canonicalization and without.
func TestLazyNaNObservers(t *testing.T) {
	type I = interp.Inst
	const dyn = 7 // the dynamic rounding mode
	prog := []I{
		{Op: interp.OpFADDD, Rd: 1, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFMVXD, Rd: 5, Rs1: 1},
		{Op: interp.OpFSUBD, Rd: 2, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFSGNJND, Rd: 3, Rs1: 2, Rs2: 2},
		{Op: interp.OpFMULD, Rd: 4, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFCLASSD, Rd: 6, Rs1: 4},
		{Op: interp.OpFDIVD, Rd: 5, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFSD, Rs1: 18, Rs2: 5},
		{Op: interp.OpFADDD, Rd: 1, Rs1: 11, Rs2: 13, Imm: dyn},
		{Op: interp.OpFADDS, Rd: 6, Rs1: 1, Rs2: 1, Imm: dyn},
		{Op: interp.OpFSUBD, Rd: 2, Rs1: 12, Rs2: 13, Imm: dyn},
		{Op: interp.OpFMVXW, Rd: 7, Rs1: 2},
		{Op: interp.OpFSQRTD, Rd: 4, Rs1: 11, Imm: dyn},
		{Op: interp.OpFSW, Rs1: 18, Rs2: 4, Imm: 8},
		{Op: interp.OpFADDS, Rd: 5, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFMVXD, Rd: 8, Rs1: 5},
		{Op: interp.OpFMULS, Rd: 7, Rs1: 12, Rs2: 13, Imm: dyn},
		{Op: interp.OpFSGNJXS, Rd: 3, Rs1: 7, Rs2: 11},
	}
	for _, in := range prog {
		if fragment.Refuses(in) {
			t.Fatalf("%v is refused", in)
		}
	}
	vals := []uint64{
		0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, // zeros, infinities
		0x7ff8000000000000, 0x7ff8000000000123, 0xfff8000000000456, 0x7ff4000000000000, // NaNs: canonical, payloads, signalling
		0xffffffff_3f800000, 0xffffffff_7fc00001, 0xffffffff_ff800000, 0xffffffff_7f800000, // boxed singles (NaNs as doubles)
		0x3ff0000000000000, 0xc000000000000000,
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var operands [][]uint64
	for k := 0; k < 2000; k++ {
		c := []uint64{uint64(rng.IntN(5)) << 5}
		for j := 0; j < 3; j++ {
			c = append(c, vals[rng.IntN(len(vals))])
		}
		operands = append(operands, c)
	}
	data := func(cpu *interp.CPU) { cpu.X[18] = rvtest.MakeELFData }
	for _, lazy := range []bool{true, false} {
		opts := fragment.Options{NoLazyNaN: !lazy}
		checkProgramOpts(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng, data, opts)
	}
}

// TestLazyNaNLoop runs a self-loop whose body reads, at its top, the bits
// of an f register the previous iteration left dirty (so the back edge
// must canonicalize it), keeps an accumulator, and writes another f
// register before anything reads it (so the back edge may leave it
// dirty, but not the write back when the budget runs out there), on NaN
// operands with payloads, against the interpreter: the
// x registers that collect the bits seen must agree after every number
// of iterations, the budget running out on the back edge included.
func TestLazyNaNLoop(t *testing.T) {
	type I = interp.Inst
	body := []I{
		{Op: interp.OpFMVXD, Rd: 7, Rs1: 4},
		{Op: interp.OpFDIVD, Rd: 4, Rs1: 11, Rs2: 12, Imm: 7},
		{Op: interp.OpFADDD, Rd: 1, Rs1: 1, Rs2: 4, Imm: 7},
		{Op: interp.OpFSUBD, Rd: 2, Rs1: 11, Rs2: 13, Imm: 7},
		{Op: interp.OpFMVXD, Rd: 5, Rs1: 2},
		{Op: interp.OpFMULD, Rd: 3, Rs1: 12, Rs2: 13, Imm: 7}, // dirty on the back edge, and unread
		{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 7},
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 5},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	img := loopImage(body, make([]byte, 64), 64)
	vals := []uint64{0, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000123, 0xfff8000000000456,
		0x7ff4000000000000, 0xffffffff_3f800000, 0x3ff0000000000000, 0x8000000000000000}
	rng := rand.New(rand.NewPCG(13, 14))
	set := func(cpu *interp.CPU, iters uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10] = iters
		for _, r := range []int{1, 4, 11, 12, 13} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
	}
	for _, lazy := range []bool{true, false} {
		checkSelfLoop(t, fmt.Sprintf("lazy %v", lazy), img, len(body), fragment.Options{NoLazyNaN: !lazy}, 500, 40, rng, set)
	}
}

// TestFusedCheckPaired runs a self-loop whose fused multiply-adds test
// their results together with a register an earlier operation left
// dirty (canonicalizePair), a square and one whose addend is a converted
// integer, which test nothing, and a single one whose addend is that
// double (a NaN as a single, which must be tested), on factors
// that are often 0 and infinity and addends that are often quiet NaNs,
// against the interpreter: fflags after each iteration (read into x
// registers), the bits of every result and the registers at every exit
// must agree, with lazy NaNs and without. Where the paired test finds
// the fused result a NaN it must still raise RISC-V's invalid for 0 *
// inf plus a quiet NaN, and canonicalize the partner.
func TestFusedCheckPaired(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	body := []I{
		{Op: interp.OpFSUBD, Rd: 4, Rs1: 11, Rs2: 14, Imm: dyn},           // dirty: the partner
		{Op: interp.OpFMADDD, Rd: 5, Rs1: 12, Rs2: 13, Imm: dyn | 14<<8},  // 0 * inf + qNaN
		{Op: interp.OpFNMSUBD, Rd: 6, Rs1: 11, Rs2: 13, Imm: dyn | 12<<8}, // pairs with nothing left
		{Op: interp.OpFMADDD, Rd: 7, Rs1: 13, Rs2: 13, Imm: dyn | 14<<8},  // a square (rs3 in Imm's bits 8..12)
		{Op: interp.OpFCVTDW, Rd: 15, Rs1: 11, Imm: dyn},                  // a number
		{Op: interp.OpFMADDD, Rd: 8, Rs1: 12, Rs2: 13, Imm: dyn | 15<<8},  // 0 * inf + a number: x86 raises invalid itself
		{Op: interp.OpFMADDS, Rd: 9, Rs1: 12, Rs2: 13, Imm: dyn | 15<<8},  // a double read as a single: a NaN
		{Op: interp.OpFCVTDW, Rd: 16, Rs1: 11, Imm: dyn},
		{Op: interp.OpFADDD, Rd: 16, Rs1: 16, Rs2: 14, Imm: dyn},          // no longer a number
		{Op: interp.OpFMADDD, Rd: 17, Rs1: 18, Rs2: 19, Imm: dyn | 16<<8}, // 0 * inf + qNaN again, other factors
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 8},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 9},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 17},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 5, Rs1: 4},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 5},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 7},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpCSRRS, Rd: 6, Rs1: 0, Imm: interp.CSRFflags},
		{Op: interp.OpADD, Rd: 9, Rs1: 9, Rs2: 6},
		{Op: interp.OpCSRRW, Rd: 0, Rs1: 0, Imm: interp.CSRFflags}, // clear: the next iteration raises afresh
		{Op: interp.OpADD, Rd: 9, Rs1: 9, Rs2: 5},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	img := loopImage(body, make([]byte, 64), 64)
	vals := []uint64{0, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
		0x7ff8000000000123, 0xfff8000000000456, 0x3ff0000000000000, 0x4008000000000000}
	rng := rand.New(rand.NewPCG(41, 42))
	set := func(cpu *interp.CPU, iters uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10] = iters
		cpu.X[11] = uint64(rng.Int64N(1<<40) - 1<<39)
		for _, r := range []int{11, 12, 13, 14, 18, 19} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
		if rng.IntN(2) == 0 { // singles: boxed, or not
			cpu.F[12] = 0xffffffff_00000000 | []uint64{0, 0x7f800000, 0xff800000, 0x7fc00000}[rng.IntN(4)]
			cpu.F[13] = 0xffffffff_00000000 | []uint64{0, 0x7f800000, 0x80000000, 0x3f800000}[rng.IntN(4)]
		}
	}
	for _, lazy := range []bool{true, false} {
		checkSelfLoop(t, fmt.Sprintf("lazy %v", lazy), img, len(body), fragment.Options{NoLazyNaN: !lazy}, 600, 6, rng, set)
	}
}

// TestHeadNaNKeepsGuestBits runs a self-loop whose body reads an f
// register by value at its top (an accumulator's shape, left dirty at the
// head) and whose last write of it is a sign injection, which keeps a
// NaN's payload, against the interpreter: a register whose last write is
// not arithmetic must not be taken as dirty at the head, or the exits
// would make the guest's NaN canonical.
func TestHeadNaNKeepsGuestBits(t *testing.T) {
	body := []interp.Inst{
		{Op: interp.OpAND, Rd: 8, Rs1: 10, Rs2: 9},
		{Op: interp.OpBEQ, Rs1: 8, Rs2: 0}, // to the end, before the write: an exit that sees f1
		{Op: interp.OpFADDD, Rd: 2, Rs1: 1, Rs2: 3, Imm: 7},
		{Op: interp.OpFMVXD, Rd: 5, Rs1: 2},
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 5},
		{Op: interp.OpFSGNJND, Rd: 1, Rs1: 4, Rs2: 4},
		{Op: interp.OpFADDD, Rd: 7, Rs1: 7, Rs2: 3, Imm: 7}, // an accumulator the head may take as dirty
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	body[1].Imm = 4 * int64(len(body)-1+1) // past the loop's bne, to its exit
	img := loopImage(body, make([]byte, 64), 64)
	vals := []uint64{0x7ff8000000000123, 0xfff8000000000456, 0x7ff4000000000789, 0x3ff0000000000000, 0, 0x7ff0000000000000}
	rng := rand.New(rand.NewPCG(51, 52))
	set := func(cpu *interp.CPU, iters uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[9] = iters, ^uint64(0)
		if iters < 20 {
			cpu.X[9] = uint64(rng.IntN(8)) // leave early at some iteration
		}
		for _, r := range []int{1, 3, 4} {
			cpu.F[r] = vals[rng.IntN(len(vals))]
		}
		cpu.F[7] = vals[3+rng.IntN(3)] // not a NaN on entry: the head's test passes
	}
	checkSelfLoop(t, "sign injection last", img, len(body), fragment.Options{}, 300, 5, rng, set)
}

// checkSelfLoop records the loop of img (a body of n instructions) from
// the state set(cpu, 20) leaves, compiles it with opts, requires a
// self-loop, and runs it runs times against the interpreter from
// set(cpu, 1..maxIters) (runLoop).
func checkSelfLoop(t *testing.T, what string, img []byte, n int, opts fragment.Options, runs, maxIters int, rng *rand.Rand, set func(cpu *interp.CPU, iters uint64)) {
	t.Helper()
	trace, code := compileLoop(t, img, n, func(cpu *interp.CPU) { set(cpu, 20) }, opts)
	if !code.SelfLoop {
		t.Fatalf("the trace does not loop:\n%s", dump(trace))
	}
	runLoop(t, what, img, trace, code, runs, rng, func(cpu *interp.CPU, _ int) { set(cpu, uint64(1+rng.IntN(maxIters))) })
}

// loopImage is body followed by "bne a0, zero, body" and an exit ecall,
// with data (and bss bytes of it) in the data segment.
func loopImage(body []interp.Inst, data []byte, bss int) []byte {
	words := rvtest.EncodeAll(body)
	words = append(words, rvtest.Encode(interp.Inst{Op: interp.OpBNE, Rs1: 10, Rs2: 0, Imm: -4 * int64(len(body))}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), rvtest.Encode(interp.Inst{Op: interp.OpECALL}))
	return rvtest.MakeELF(words, data, bss)
}

// compileLoop records the loop of img (a body of n instructions, from
// the state init leaves) and compiles it with opts.
func compileLoop(t *testing.T, img []byte, n int, init func(*interp.CPU), opts fragment.Options) (*interp.Trace, *fragment.Code) {
	t.Helper()
	rec := loadSmall(t, img)
	init(rec.CPU)
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	rec.Close()
	if err != nil || trace.Len() != n+1 {
		t.Fatalf("recorded %v, %v", trace, err)
	}
	code, err := fragment.Compile(trace, fragment.EnvOf(rec), opts)
	if err != nil {
		t.Fatal(err)
	}
	return trace, code
}

// runLoop enters the loop's code runs times, from the states set leaves
// (run k) with a budget of 7 to 4000 instructions, and matches each
// against the interpreter.
func runLoop(t *testing.T, what string, img []byte, trace *interp.Trace, code *fragment.Code, runs int, rng *rand.Rand, set func(cpu *interp.CPU, k int)) {
	t.Helper()
	cache := newCache(t)
	f, err := cache.Insert(code)
	if err != nil {
		t.Fatal(err)
	}
	native, ref := loadSmall(t, img), loadSmall(t, img)
	defer native.Close()
	defer ref.Close()
	st := new(fragment.State)
	native.UseCPU(&st.CPU)
	for k := 0; k < runs; k++ {
		set(&st.CPU, k)
		*ref.CPU = st.CPU
		budget := int64([]int{7, 30, 100, 4000}[rng.IntN(4)])
		st.Budget = budget
		e := cache.Enter(f, st, native.Mem.Base())
		matchInterpreter(t, fmt.Sprintf("%s, run %d", what, k), trace, ref, budget-st.Budget, e.Kind, e.Target, st)
	}
}

// TestNaNBoxKnown checks the NaN boxes the backend knows without testing:
// a single read after a single result skips the test, so a single read
// after anything else (a double result, fld, fmv.d.x, fcvt.d.s, a double
// sign injection) must still test, and read an unboxed value as the
// canonical NaN, against the interpreter.
func TestNaNBoxKnown(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	prog := []I{
		{Op: interp.OpFMVDX, Rd: 1, Rs1: 11},
		{Op: interp.OpFADDS, Rd: 2, Rs1: 1, Rs2: 1, Imm: dyn},
		{Op: interp.OpFSD, Rs1: 18, Rs2: 13},
		{Op: interp.OpFLD, Rd: 3, Rs1: 18},
		{Op: interp.OpFMULS, Rd: 4, Rs1: 3, Rs2: 3, Imm: dyn},
		{Op: interp.OpFCVTDS, Rd: 5, Rs1: 12, Imm: dyn},
		{Op: interp.OpFSQRTS, Rd: 6, Rs1: 5, Imm: dyn},
		{Op: interp.OpFADDS, Rd: 7, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFSUBS, Rd: 8, Rs1: 7, Rs2: 7, Imm: dyn},
		{Op: interp.OpFSGNJD, Rd: 9, Rs1: 13, Rs2: 13},
		{Op: interp.OpFADDS, Rd: 10, Rs1: 9, Rs2: 11, Imm: dyn},
		{Op: interp.OpFADDD, Rd: 7, Rs1: 13, Rs2: 13, Imm: dyn},
		{Op: interp.OpFMADDS, Rd: 14, Rs1: 7, Rs2: 8, Imm: dyn | 2<<8},
		{Op: interp.OpFLW, Rd: 3, Rs1: 18},
		{Op: interp.OpFMULS, Rd: 15, Rs1: 3, Rs2: 8, Imm: dyn},
	}
	for _, in := range prog {
		if fragment.Refuses(in) {
			t.Fatalf("%v is refused", in)
		}
	}
	vals := []uint64{
		0, 0x3ff0000000000000, 0x7ff8000000000000, 0x00000000_3f800000, 0x12345678_40000000, // unboxed
		0xffffffff_3f800000, 0xffffffff_7fc00001, 0xffffffff_40490fdb, 0xffffffff_00000000, // boxed
	}
	rng := rand.New(rand.NewPCG(13, 14))
	var operands [][]uint64
	for range 1000 {
		c := []uint64{0}
		for range 3 {
			c = append(c, vals[rng.IntN(len(vals))])
		}
		operands = append(operands, c)
	}
	data := func(cpu *interp.CPU) { cpu.X[18] = rvtest.MakeELFData }
	for _, known := range []bool{true, false} {
		checkProgramOpts(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng, data, fragment.Options{NoBoxKnown: !known})
	}
}

// TestBoxCheckLoop runs a self-loop of singles that reads a loop
// invariant (f11), an accumulator (f1) and a register it writes with a
// double later in the body (f4, which the entry check must not cover)
// before writing them, and loads singles through a pointer whose bounds
// check is hoisted (so the box check's exit follows a loop check's), on
// boxed and unboxed values, against the interpreter: with the entry check, an unboxed invariant or accumulator
// leaves before the first instruction; without it, every iteration tests.
// The code must carry the check only when asked for.
func TestBoxCheckLoop(t *testing.T) {
	type I = interp.Inst
	body := []I{
		{Op: interp.OpFMULS, Rd: 2, Rs1: 11, Rs2: 4, Imm: 7},
		{Op: interp.OpFADDS, Rd: 1, Rs1: 1, Rs2: 2, Imm: 7},
		{Op: interp.OpFLW, Rd: 3, Rs1: 18}, // a hoisted load check's exit comes first
		{Op: interp.OpFADDS, Rd: 1, Rs1: 1, Rs2: 3, Imm: 7},
		{Op: interp.OpADDI, Rd: 18, Rs1: 18, Imm: 4},
		{Op: interp.OpFMVXD, Rd: 5, Rs1: 1},
		{Op: interp.OpFCVTDS, Rd: 4, Rs1: 2, Imm: 7}, // f4 becomes a double
		{Op: interp.OpFMVXD, Rd: 7, Rs1: 4},
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 7},
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 5},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(i * 37)
	}
	img := loopImage(body, data, 256)
	vals := []uint64{0xffffffff_3f800000, 0xffffffff_40490fdb, 0xffffffff_7fc00000, 0xffffffff_00000000, // boxed
		0x3ff0000000000000, 0x00000000_3f800000, 0} // not
	rng := rand.New(rand.NewPCG(15, 16))
	set := func(cpu *interp.CPU, iters uint64, boxed bool) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[18] = iters, rvtest.MakeELFData
		for _, r := range []int{1, 4, 11} {
			cpu.F[r] = vals[rng.IntN(4)]
			if !boxed && rng.IntN(3) == 0 {
				cpu.F[r] = vals[4+rng.IntN(3)]
			}
		}
	}
	for _, check := range []bool{true, false} {
		trace, code := compileLoop(t, img, len(body), func(cpu *interp.CPU) { set(cpu, 20, true) }, fragment.Options{NoBoxCheck: !check})
		var listing strings.Builder
		if err := fragment.WriteListing(&listing, trace, code); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(listing.String(), "loopcheck load") || strings.Contains(listing.String(), "boxcheck ft1 fa1 else exit 1") != check {
			t.Fatalf("box check %v, listing:\n%s", check, listing.String())
		}
		runLoop(t, fmt.Sprintf("check %v", check), img, trace, code, 500, rng, func(cpu *interp.CPU, k int) { set(cpu, uint64(1+rng.IntN(40)), k%2 == 0) })
	}
}

// TestSignInjectOneOperand checks fmv, fneg and fabs (sign injection of
// a register into itself, which compiles to a move, an xor or two
// shifts) of both precisions, on NaNs with payloads, infinities, zeros
// and unboxed singles, after arithmetic whose NaN may be x86's, against
// the interpreter.
func TestSignInjectOneOperand(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	prog := []I{
		{Op: interp.OpFSGNJD, Rd: 1, Rs1: 11, Rs2: 11},
		{Op: interp.OpFSGNJND, Rd: 2, Rs1: 12, Rs2: 12},
		{Op: interp.OpFSGNJXD, Rd: 3, Rs1: 13, Rs2: 13},
		{Op: interp.OpFSGNJS, Rd: 4, Rs1: 11, Rs2: 11},
		{Op: interp.OpFSGNJNS, Rd: 5, Rs1: 12, Rs2: 12},
		{Op: interp.OpFSGNJXS, Rd: 6, Rs1: 13, Rs2: 13},
		{Op: interp.OpFSUBD, Rd: 7, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFSGNJD, Rd: 8, Rs1: 7, Rs2: 7},
		{Op: interp.OpFSGNJND, Rd: 9, Rs1: 7, Rs2: 7},
		{Op: interp.OpFADDS, Rd: 10, Rs1: 12, Rs2: 13, Imm: dyn},
		{Op: interp.OpFSGNJS, Rd: 14, Rs1: 10, Rs2: 10},
		{Op: interp.OpFSGNJD, Rd: 11, Rs1: 11, Rs2: 11},
		{Op: interp.OpFSGNJXD, Rd: 12, Rs1: 12, Rs2: 12},
	}
	vals := []uint64{
		0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000123, 0xfff4000000000000,
		0xffffffff_3f800000, 0xffffffff_ff800001, 0xffffffff_80000000, 0x00000000_3f800000, 0x3ff0000000000000,
	}
	rng := rand.New(rand.NewPCG(17, 18))
	var operands [][]uint64
	for range 1000 {
		c := []uint64{0}
		for range 3 {
			c = append(c, vals[rng.IntN(len(vals))])
		}
		operands = append(operands, c)
	}
	for _, lazy := range []bool{true, false} {
		checkProgramOpts(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng, nil, fragment.Options{NoLazyNaN: !lazy})
	}
}

// TestFrmHoistLoop runs a self-loop that rounds by frm under every value
// frm can hold (the four modes the host has, rmm and the reserved ones,
// which leave), with its test of frm hoisted to the entry and in the body,
// against the interpreter; a loop that writes frm keeps the test in its
// body.
func TestFrmHoistLoop(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	body := []I{
		{Op: interp.OpFDIVD, Rd: 1, Rs1: 11, Rs2: 12, Imm: dyn},
		{Op: interp.OpFADDD, Rd: 2, Rs1: 2, Rs2: 1, Imm: dyn},
		{Op: interp.OpFCVTWD, Rd: 5, Rs1: 2, Imm: dyn},
		{Op: interp.OpFMULS, Rd: 3, Rs1: 13, Rs2: 13, Imm: dyn},
		{Op: interp.OpFMVXD, Rd: 7, Rs1: 3},
		{Op: interp.OpXOR, Rd: 6, Rs1: 6, Rs2: 7},
		{Op: interp.OpADD, Rd: 6, Rs1: 6, Rs2: 5},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	writesFrm := append([]I{{Op: interp.OpCSRRW, Rd: 0, Rs1: 8, Imm: interp.CSRFrm}}, body...)
	for _, tc := range []struct {
		name   string
		body   []I
		hoists bool
	}{{"hoisted", body, true}, {"writes frm", writesFrm, false}} {
		img := loopImage(tc.body, make([]byte, 64), 64)
		vals := []uint64{0x3ff0000000000000, 0x4008000000000000, 0xbfd5555555555555, 0x7ff0000000000000, 0x4330000000000001,
			0xffffffff_3f800001, 0xffffffff_40490fdb}
		rng := rand.New(rand.NewPCG(19, 20))
		set := func(cpu *interp.CPU, iters uint64, frm uint64) {
			*cpu = interp.CPU{PC: rvtest.MakeELFText}
			cpu.X[10], cpu.X[8] = iters, uint64(rng.IntN(5))
			cpu.FCSR = frm<<5 | uint64(rng.IntN(32))
			for _, r := range []int{2, 11, 12, 13} {
				cpu.F[r] = vals[rng.IntN(len(vals))]
			}
		}
		for _, hoist := range []bool{true, false} {
			trace, code := compileLoop(t, img, len(tc.body), func(cpu *interp.CPU) { set(cpu, 20, 0) }, fragment.Options{NoFrmHoist: !hoist})
			var listing strings.Builder
			if err := fragment.WriteListing(&listing, trace, code); err != nil {
				t.Fatal(err)
			}
			entry := strings.Contains(listing.String(), "entry      round by frm")
			if entry != (hoist && tc.hoists) {
				t.Fatalf("%s, hoist %v: the test of frm on entry is %v:\n%s", tc.name, hoist, entry, listing.String())
			}
			runLoop(t, fmt.Sprintf("%s, hoist %v", tc.name, hoist), img, trace, code, 400, rng, func(cpu *interp.CPU, _ int) {
				set(cpu, uint64(1+rng.IntN(30)), uint64(rng.IntN(8)))
			})
		}
	}
}
