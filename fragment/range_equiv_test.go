package fragment_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// Registers of the table lookup loops.
const (
	tblIn    = 11 // a1: the input pointer, steps through the data
	tblEnd   = 13 // a3: where the input ends
	tblBase  = 16 // a6: the table, never changes
	tblAccum = 10 // a0
)

// tableLoops are self-loops that index a table with bounded values
// (ir.CheckRange): crc32's slice-by-8 shape (two lookups, one a row
// further on, with andi, srliw and slli), and a histogram whose lookups
// also store.
var tableLoops = map[string]struct {
	prog []interp.Inst
	step int64 // input bytes per iteration
}{
	"crc": {[]interp.Inst{
		{Op: interp.OpLW, Rd: 15, Rs1: tblIn},                      // lw a5, 0(a1)
		{Op: interp.OpADDI, Rd: tblIn, Rs1: tblIn, Imm: 4},         // addi a1, a1, 4
		{Op: interp.OpANDI, Rd: 14, Rs1: 15, Imm: 255},             // andi a4, a5, 255
		{Op: interp.OpADDI, Rd: 14, Rs1: 14, Imm: 768},             // addi a4, a4, 768
		{Op: interp.OpSLLI, Rd: 14, Rs1: 14, Imm: 2},               // slli a4, a4, 2
		{Op: interp.OpADD, Rd: 17, Rs1: tblBase, Rs2: 14},          // add a7, a6, a4
		{Op: interp.OpLW, Rd: 17, Rs1: 17},                         // lw a7, 0(a7)
		{Op: interp.OpXOR, Rd: tblAccum, Rs1: tblAccum, Rs2: 17},   // xor a0, a0, a7
		{Op: interp.OpSRLIW, Rd: 31, Rs1: 15, Imm: 24},             // srliw t6, a5, 24
		{Op: interp.OpSLLI, Rd: 31, Rs1: 31, Imm: 2},               // slli t6, t6, 2
		{Op: interp.OpADD, Rd: 31, Rs1: 31, Rs2: tblBase},          // add t6, t6, a6
		{Op: interp.OpLW, Rd: 5, Rs1: 31},                          // lw t0, 0(t6)
		{Op: interp.OpXOR, Rd: tblAccum, Rs1: tblAccum, Rs2: 5},    // xor a0, a0, t0
		{Op: interp.OpBNE, Rs1: tblIn, Rs2: tblEnd, Imm: -4 * 13},  // bne a1, a3, loop
		{Op: interp.OpADDI, Rd: 17, Imm: 93}, {Op: interp.OpECALL}, // exit
	}, 4},
	"histogram": {[]interp.Inst{
		{Op: interp.OpLBU, Rd: 14, Rs1: tblIn},                     // lbu a4, 0(a1)
		{Op: interp.OpADDI, Rd: tblIn, Rs1: tblIn, Imm: 1},         // addi a1, a1, 1
		{Op: interp.OpSLLI, Rd: 14, Rs1: 14, Imm: 2},               // slli a4, a4, 2
		{Op: interp.OpADD, Rd: 17, Rs1: tblBase, Rs2: 14},          // add a7, a6, a4
		{Op: interp.OpLW, Rd: 5, Rs1: 17},                          // lw t0, 0(a7)
		{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: 1},                 // addi t0, t0, 1
		{Op: interp.OpSW, Rs1: 17, Rs2: 5},                         // sw t0, 0(a7)
		{Op: interp.OpBNE, Rs1: tblIn, Rs2: tblEnd, Imm: -4 * 7},   // bne a1, a3, loop
		{Op: interp.OpADDI, Rd: 17, Imm: 93}, {Op: interp.OpECALL}, // exit
	}, 1},
}

// TestTableLoopFaults records each table lookup loop with its table in
// the data, compiles it, and runs it from other states: the table in the
// data or in the stack (no exit to the interpreter), or placed so that
// some indices go off the end of the data interval, off the top of
// memory, or below the lowest loadable or storable address. After the
// fragment leaves, the interpreter goes on from its state. The fault (its
// kind, pc and address), the instructions retired before it and the
// registers must equal those of the interpreter alone.
func TestTableLoopFaults(t *testing.T) {
	for name, opts := range optionSets {
		t.Run(name, func(t *testing.T) {
			for loop, l := range tableLoops {
				words := make([]uint32, len(l.prog))
				for i, in := range l.prog {
					words[i] = rvtest.Encode(in)
				}
				rng := rand.New(rand.NewPCG(31, 32))
				img := rvtest.MakeELF(words, randomData(rng), dataSize)
				faults, cache := 0, newCache(t)
				for iter := 0; iter < 40; iter++ {
					if checkTableLoop(t, cache, img, len(words), rng, l.step, opts, fmt.Sprintf("%s iter %d", loop, iter)) {
						faults++
					}
				}
				if faults == 0 {
					t.Errorf("%s: no run faulted", loop)
				}
			}
		})
	}
}

// checkTableLoop runs one table lookup loop natively and in the
// interpreter from one random state and reports whether it faulted.
func checkTableLoop(t *testing.T, cache *codecache.Cache, img []byte, n int, rng *rand.Rand, step int64, opts fragment.Options, what string) bool {
	const (
		iters = 64
		limit = 100000
		top   = 16 << 20
	)
	exitPC := uint64(rvtest.MakeELFText + 4*(n-1)) // the ecall: both runs stop there
	set := func(x *[32]uint64, table uint64) {
		x[tblIn] = rvtest.MakeELFData
		x[tblEnd] = rvtest.MakeELFData + iters*uint64(step)
		x[tblBase] = table
		x[tblAccum] = 0
	}
	rec := loadSmall(t, img)
	defer rec.Close()
	env := fragment.EnvOf(rec)
	set(&rec.CPU.X, rvtest.MakeELFData+1024)
	rec.CPU.PC = rvtest.MakeELFText
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	if err != nil || trace.Len() == 0 {
		t.Fatalf("%s: recording: %v", what, err)
	}
	cache.Flush()
	code, err := fragment.Compile(trace, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cache.Insert(code)
	if err != nil {
		t.Fatal(err)
	}

	var table uint64
	inBounds := false
	switch rng.IntN(6) {
	case 0: // in the data
		table, inBounds = rvtest.MakeELFData+2048+4*uint64(rng.IntN(64)), true
	case 1: // in the stack, the other interval
		table, inBounds = stackData+4*uint64(rng.IntN(64)), true
	case 2: // some indices off the end of the data interval
		table = guardGap - 4*uint64(rng.IntN(1100))
	case 3: // some off the top of memory
		table = top - 4*uint64(rng.IntN(1100))
	case 4: // some below the lowest loadable address
		table = env.ReadLo - 4*uint64(rng.IntN(1100))
	default: // some below the lowest storable one, but loadable
		table = env.WriteLo - 4*uint64(rng.IntN(1100))
	}

	// The interpreter alone.
	ref := loadSmall(t, img)
	defer ref.Close()
	set(&ref.CPU.X, table)
	ref.CPU.PC = rvtest.MakeELFText
	refN, refErr := runUntil(ref, exitPC, limit)

	// The fragment, then the interpreter from where it left.
	native := loadSmall(t, img)
	defer native.Close()
	st := new(fragment.State)
	native.UseCPU(&st.CPU)
	set(&st.CPU.X, table)
	st.CPU.PC = rvtest.MakeELFText
	retired := int64(0)
	for st.CPU.PC == rvtest.MakeELFText && retired < limit {
		const budget = 4000
		st.Budget = budget
		e := cache.Enter(f, st, native.Mem.Base())
		retired += budget - st.Budget
		st.CPU.PC = e.Target
		if e.Kind == exit.Interp {
			if inBounds {
				t.Errorf("%s: a loop in bounds left to the interpreter\n%s", what, dump(trace))
			}
			break
		}
	}
	k, natErr := runUntil(native, exitPC, limit)
	retired += k

	var rf, nf *interp.Fault
	if errors.As(refErr, &rf) != errors.As(natErr, &nf) || rf != nil && *rf != *nf {
		t.Fatalf("%s: table %#x: native then interpreter: %v, interpreter alone: %v\n%s", what, table, natErr, refErr, dump(trace))
	}
	if retired != refN || st.CPU.PC != ref.CPU.PC {
		t.Fatalf("%s: table %#x: native then interpreter stop at %#x after %d instructions, interpreter alone at %#x after %d", what, table, st.CPU.PC, retired, ref.CPU.PC, refN)
	}
	for r := 0; r < 32; r++ {
		if st.CPU.X[r] != ref.CPU.X[r] {
			t.Fatalf("%s: table %#x: x%d native %#x interpreter %#x\n%s", what, table, r, st.CPU.X[r], ref.CPU.X[r], dump(trace))
		}
	}
	return rf != nil
}

// runUntil steps m until it reaches pc stop, faults, or has run limit
// instructions, and returns the instructions retired and the fault.
func runUntil(m *interp.Machine, stop uint64, limit int64) (int64, error) {
	n := int64(0)
	for m.CPU.PC != stop && n < limit {
		if _, err := m.Step(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
