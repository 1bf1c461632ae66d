package fragment_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/ir"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// oracleCases reads the operands of the floating-point reference cases
// (package fpu's golden file, results from qemu-riscv64): mnemonic ->
// rounding mode and operands of each case. Results are not needed: the
// interpreter, which matches them all, is the reference here.
func oracleCases(t *testing.T) map[string][][]uint64 {
	t.Helper()
	fh, err := os.Open("../interp/fpu/testdata/oracle.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	z, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][][]uint64{}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		var vals []uint64
		for _, s := range f[1 : len(f)-2] { // rm and the operands
			v, err := strconv.ParseUint(s, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, v)
		}
		cases[f[0]] = append(cases[f[0]], vals)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// floatOps are the floating-point computational operations.
var floatOps = func() []interp.Op {
	var ops []interp.Op
	for op := interp.OpFMADDS; op < interp.NumOps; op++ {
		if op.IsFloat() {
			ops = append(ops, op)
		}
	}
	return ops
}()

// TestFloatMatchesInterpreter compiles every floating-point operation
// fragments run natively, in every rounding mode they compile (static,
// and dynamic with each frm), into a one-instruction fragment and runs it
// on the operands of the qemu-riscv64 reference cases (the interpreter
// matches every one of them) and on special values, NaN-boxed and not:
// results, x registers and fflags must equal the interpreter's.
func TestFloatMatchesInterpreter(t *testing.T) {
	cases := oracleCases(t)
	cache := newCache(t)
	rng := rand.New(rand.NewPCG(7, 8))
	compiled := 0
	for _, op := range floatOps {
		name := op.String()
		for _, rm := range []uint8{0, 1, 2, 3, 4, 7} {
			in := interp.Inst{Op: op, Rd: 10, Rs1: 11, Rs2: 12, Imm: int64(rm) | 13<<8}
			if !op.HasRM() && rm != 0 || !ir.FloatCompiles(in) {
				continue
			}
			compiled++
			var operands [][]uint64
			for _, c := range cases[name] {
				if op.HasRM() && rm != 7 && uint8(c[0]) != rm {
					continue
				}
				operands = append(operands, c)
			}
			for k := 0; k < 300; k++ {
				operands = append(operands, []uint64{uint64(rng.IntN(5)), specialFloat(rng), specialFloat(rng), specialFloat(rng)})
			}
			checkFloatOp(t, cache, in, operands, rng)
		}
	}
	if compiled < 60 {
		t.Errorf("only %d operation and rounding pairs compile", compiled)
	}
}

// specialFloat returns a value worth converting or computing with: a
// special double or single pattern, or a random one.
func specialFloat(rng *rand.Rand) uint64 {
	s := []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff4000000000000, 0x3ff0000000000000,
		0x41e0000000000000, 0xc1e0000000000000, 0x43e0000000000000, 0xc3e0000000000000, 0x41dfffffffc00000, 0x000fffffffffffff,
		0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000, 0x3f800000, 0x4f000000, 0xcf000000, 0x5f000000, 0xdf000000, 0x80000000,
		0x7fffffff, 0xffffffff, 1 << 31, 1<<63 - 1}
	if rng.IntN(2) == 0 {
		return s[rng.IntN(len(s))]
	}
	return rng.Uint64() >> (rng.IntN(3) * 16)
}

// checkFloatOp compiles in (followed by one addi, so that the trace is
// not empty after it) into a fragment and runs it on each operand set
// (rm, then rs1, rs2, rs3 values), against the interpreter.
func checkFloatOp(t *testing.T, cache *codecache.Cache, in interp.Inst, operands [][]uint64, rng *rand.Rand) {
	t.Helper()
	// The f operands are singles for the .s operations (and fcvt.d.s),
	// NaN-boxed but now and then not; x operands are the raw values.
	single := in.Op < interp.OpFMADDD || in.Op == interp.OpFCVTDS
	fcsr := func(c []uint64) uint64 {
		if in.RM() == 7 {
			return (c[0] % 5) << 5
		}
		return 0
	}
	checkFloatProgram(t, cache, []interp.Inst{in}, operands, fcsr, single, 2, rng)
}

// checkFloatProgram compiles prog (followed by one addi) into a fragment
// of its instructions and runs it on each operand set: x11.. and f11..
// get the values after the first (singles NaN-boxed, mostly), fcsr the
// value fcsr gives, and the fragment must retire as the interpreter does
// and leave the same registers and fcsr. want is the fragment's length.
func checkFloatProgram(t *testing.T, cache *codecache.Cache, prog []interp.Inst, operands [][]uint64, fcsr func([]uint64) uint64, single bool, want int, rng *rand.Rand) {
	t.Helper()
	checkProgram(t, cache, prog, operands, fcsr, single, want, rng, nil)
}

// checkAtomicProgram is checkFloatProgram for atomics: x18 is x12+8 and
// guest memory is compared too.
func checkAtomicProgram(t *testing.T, prog []interp.Inst, operands [][]uint64, fcsr func([]uint64) uint64, rng *rand.Rand) {
	t.Helper()
	checkProgram(t, newCache(t), prog, operands, fcsr, false, len(prog)+1, rng, func(cpu *interp.CPU) { cpu.X[18] = cpu.X[12] + 8 })
}

// checkProgram is checkFloatProgram with a final touch to each state
// (adjust, if not nil) and, for atomics, data memory compared.
func checkProgram(t *testing.T, cache *codecache.Cache, prog []interp.Inst, operands [][]uint64, fcsr func([]uint64) uint64, single bool, want int, rng *rand.Rand, adjust func(*interp.CPU)) {
	t.Helper()
	checkProgramOpts(t, cache, prog, operands, fcsr, single, want, rng, adjust, fragment.Options{})
}

// checkProgramOpts is checkProgram compiling with opts.
func checkProgramOpts(t *testing.T, cache *codecache.Cache, prog []interp.Inst, operands [][]uint64, fcsr func([]uint64) uint64, single bool, want int, rng *rand.Rand, adjust func(*interp.CPU), opts fragment.Options) {
	t.Helper()
	in := prog[0]
	words := rvtest.EncodeAll(prog)
	words = append(words, rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), rvtest.Encode(interp.Inst{Op: interp.OpECALL}))
	img := rvtest.MakeELF(words, make([]byte, 64), 64)
	setOperands := func(cpu *interp.CPU, c []uint64) {
		*cpu = interp.CPU{}
		cpu.PC = rvtest.MakeELFText
		cpu.FCSR = fcsr(c)
		for k, v := range c[1:] {
			cpu.X[11+k] = v
			if single && v>>32 == 0 && rng.IntN(16) != 0 {
				v |= 0xffffffff_00000000
			}
			cpu.F[11+k] = v
		}
		if adjust != nil {
			adjust(cpu)
		}
	}

	rec := loadSmall(t, img)
	defer rec.Close()
	setOperands(rec.CPU, operands[0])
	rec.CPU.FCSR = 0 // record with frm = rne, so a dynamic rounding mode compiles
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	if err != nil || trace.Len() != want {
		t.Fatalf("%v: recorded %v, %v", in, trace, err)
	}
	code, err := fragment.Compile(trace, fragment.EnvOf(rec), opts)
	if err != nil {
		t.Fatal(err)
	}
	cache.Flush()
	f, err := cache.Insert(code)
	if err != nil {
		t.Fatal(err)
	}
	native, ref := loadSmall(t, img), loadSmall(t, img)
	defer native.Close()
	defer ref.Close()
	st := new(fragment.State)
	native.UseCPU(&st.CPU)
	for _, c := range operands {
		setOperands(&st.CPU, c)
		*ref.CPU = st.CPU
		st.Budget = 1 << 40
		e := cache.Enter(f, st, native.Mem.Base())
		retired := 1<<40 - st.Budget
		for k := int64(0); k < retired; k++ {
			if _, err := ref.Step(); err != nil {
				t.Fatalf("%v: interpreter: %v", in, err)
			}
		}
		memDiffers := adjust != nil && !bytes.Equal(native.Mem.Bytes(rvtest.MakeELFData, 64), ref.Mem.Bytes(rvtest.MakeELFData, 64))
		got := st.CPU
		got.PC = ref.CPU.PC // native code does not keep pc: the exit says it
		if ref.CPU.PC != e.Target || got != *ref.CPU || memDiffers {
			var listing strings.Builder
			fragment.WriteListing(&listing, trace, code)
			t.Fatalf("%v on %x (exit %v after %d):\nnative x10 %#x f10 %#x fcsr %#x\ninterp x10 %#x f10 %#x fcsr %#x\n%s",
				in, c, e.Kind, retired, st.CPU.X[10], st.CPU.F[10], st.CPU.FCSR, ref.CPU.X[10], ref.CPU.F[10], ref.CPU.FCSR, listing.String())
		}
	}
}

// TestFloatFlagsMatchInterpreter runs the CSR accesses fragments compile
// (reads of fflags, frm and fcsr; writes of fflags, the frflags / flt /
// fsflags idiom among them) between operations that raise flags, in
// every rounding mode and from random flags, against the interpreter.
func TestFloatFlagsMatchInterpreter(t *testing.T) {
	type I = interp.Inst
	csr := func(op interp.Op, rd, rs1 uint8, c uint16) I { return I{Op: op, Rd: rd, Rs1: rs1, Imm: int64(c)} }
	prog := []I{
		{Op: interp.OpFADDD, Rd: 10, Rs1: 11, Rs2: 12, Imm: 7},
		csr(interp.OpCSRRS, 13, 0, interp.CSRFflags),
		{Op: interp.OpFLTD, Rd: 14, Rs1: 11, Rs2: 12},
		csr(interp.OpCSRRW, 0, 13, interp.CSRFflags),
		{Op: interp.OpFDIVD, Rd: 15, Rs1: 11, Rs2: 12, Imm: 7},
		csr(interp.OpCSRRS, 16, 0, interp.CSRFcsr),
		{Op: interp.OpFMULS, Rd: 20, Rs1: 11, Rs2: 12, Imm: 7},
		csr(interp.OpCSRRWI, 17, 5, interp.CSRFflags),
		csr(interp.OpCSRRS, 18, 0, interp.CSRFrm),
		{Op: interp.OpFSQRTD, Rd: 21, Rs1: 12, Imm: 7},
		csr(interp.OpCSRRCI, 19, 0, interp.CSRFflags),
		csr(interp.OpCSRRWI, 22, 2, interp.CSRFrm), // rdn
		{Op: interp.OpFDIVD, Rd: 23, Rs1: 11, Rs2: 12, Imm: 7},
		{Op: interp.OpFCVTLD, Rd: 24, Rs1: 11, Imm: 7},
		csr(interp.OpCSRRW, 25, 13, interp.CSRFrm), // from random bits: any mode, reserved ones too
		{Op: interp.OpFMULD, Rd: 26, Rs1: 11, Rs2: 12, Imm: 7},
		csr(interp.OpCSRRWI, 0, 3, interp.CSRFrm), // rup
		{Op: interp.OpFADDS, Rd: 27, Rs1: 11, Rs2: 12, Imm: 7},
		csr(interp.OpCSRRW, 28, 12, interp.CSRFcsr),
		{Op: interp.OpFSUBD, Rd: 29, Rs1: 12, Rs2: 11, Imm: 7},
		csr(interp.OpCSRRS, 30, 0, interp.CSRFcsr),
		csr(interp.OpCSRRWI, 0, 0, interp.CSRFrm),
		{Op: interp.OpFADDD, Rd: 31, Rs1: 11, Rs2: 12, Imm: 7},
	}
	for _, in := range prog {
		if fragment.Refuses(in) {
			t.Fatalf("%v is refused", in)
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	var operands [][]uint64
	for k := 0; k < 3000; k++ {
		operands = append(operands, []uint64{uint64(rng.IntN(4)<<5 | rng.IntN(32)), specialFloat(rng), specialFloat(rng), specialFloat(rng)})
	}
	checkFloatProgram(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng)
	// Every rounding mode and reserved one from x13, checked above;
	// the same program with frm already rdn, rup or rtz on entry.
	for k := range operands {
		operands[k][0] = uint64(1+rng.IntN(3))<<5 | operands[k][0]&0x1f
	}
	checkFloatProgram(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng)
}

// TestAtomicsMatchInterpreter runs every atomic as fragments compile it
// (lr/sc pairs that succeed and fail, each AMO in both widths, chained
// so each reads what the one before wrote) on aligned and misaligned
// addresses and random sources, against the interpreter.
func TestAtomicsMatchInterpreter(t *testing.T) {
	type I = interp.Inst
	prog := []I{
		{Op: interp.OpLRD, Rd: 10, Rs1: 12},
		{Op: interp.OpSCD, Rd: 14, Rs1: 12, Rs2: 11}, // succeeds
		{Op: interp.OpSCD, Rd: 15, Rs1: 12, Rs2: 13}, // fails: no reservation
		{Op: interp.OpLRW, Rd: 16, Rs1: 12},
		{Op: interp.OpSCW, Rd: 17, Rs1: 18, Rs2: 11}, // fails: another address (x18 = x12+8)
	}
	for op := interp.OpAMOSWAPW; op <= interp.OpAMOMAXUW; op++ {
		prog = append(prog, I{Op: op, Rd: uint8(19 + op - interp.OpAMOSWAPW), Rs1: 12, Rs2: 13},
			I{Op: op + interp.OpLRD - interp.OpLRW, Rd: 1, Rs1: 18, Rs2: 11})
	}
	prog = append(prog, I{Op: interp.OpLD, Rd: 30, Rs1: 12}, I{Op: interp.OpLD, Rd: 31, Rs1: 18})
	rng := rand.New(rand.NewPCG(13, 14))
	var operands [][]uint64
	for k := 0; k < 2000; k++ {
		addr := uint64(rvtest.MakeELFData + 8*rng.IntN(4))
		if k%50 == 49 {
			addr += uint64(1 + rng.IntN(7)) // misaligned: the first atomic leaves
		}
		operands = append(operands, []uint64{0, specialFloat(rng), addr, specialFloat(rng)})
	}
	fix := func(c []uint64) uint64 { return 0 }
	checkAtomicProgram(t, prog, operands, fix, rng)
}
