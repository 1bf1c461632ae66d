package fragment_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// randomALULoop returns a counted self-loop of random 32-bit (W) and
// 64-bit ALU instructions over a0..a3, then an exit ecall: W results
// left stale by lazy sign extension meet full reads, W reads and exits
// in the next iteration, so the back edge must extend exactly what the
// head can see.
func randomALULoop(rng *rand.Rand) []uint32 {
	type I = interp.Inst
	ops := []interp.Op{interp.OpADDW, interp.OpSUBW, interp.OpSLLW, interp.OpSRLW, interp.OpSRAW, interp.OpMULW,
		interp.OpADD, interp.OpSUB, interp.OpXOR, interp.OpOR, interp.OpAND, interp.OpSLL, interp.OpSRL, interp.OpSLT, interp.OpMUL}
	immOps := []interp.Op{interp.OpADDIW, interp.OpSLLIW, interp.OpSRLIW, interp.OpSRAIW, interp.OpADDI, interp.OpXORI, interp.OpANDI}
	reg := func() uint8 { return uint8(10 + rng.IntN(4)) }
	var prog []I
	for n := 2 + rng.IntN(6); n > 0; n-- {
		if rng.IntN(3) == 0 {
			op := immOps[rng.IntN(len(immOps))]
			imm := int64(rng.IntN(64) - 32)
			if op == interp.OpSLLIW || op == interp.OpSRLIW || op == interp.OpSRAIW {
				imm = int64(rng.IntN(32))
			}
			if op == interp.OpADDIW && rng.IntN(2) == 0 {
				imm = 0 // sext.w: a W result of its operand's low half, left stale too
			}
			prog = append(prog, I{Op: op, Rd: reg(), Rs1: reg(), Imm: imm})
		} else {
			prog = append(prog, I{Op: ops[rng.IntN(len(ops))], Rd: reg(), Rs1: reg(), Rs2: reg()})
		}
		if rng.IntN(3) == 0 { // a side exit, taken when the count meets s1
			prog = append(prog, I{Op: interp.OpBEQ, Rs1: 5, Rs2: 9}) // patched below
		}
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: 5, Rs2: 0, Imm: -4 * int64(len(prog))})
	for i := range prog {
		if prog[i].Op == interp.OpBEQ {
			prog[i].Imm = 4 * int64(len(prog)-i)
		}
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 17, Imm: 93}, I{Op: interp.OpECALL})
	return rvtest.EncodeAll(prog)
}

// TestSelfLoopSignExtension runs random counted ALU loops natively and in
// the interpreter from states whose registers are arbitrary 64-bit values
// (not sign-extended 32-bit ones), with budgets that end the loop at its
// back edge or let it finish: registers and exits must agree. Half the
// loops are recorded on their last iteration, so that they loop through
// a side exit to their own head.
func TestSelfLoopSignExtension(t *testing.T) {
	for name, opts := range optionSets {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 42))
			cache := newCache(t)
			for iter := 0; iter < 300; iter++ {
				what := fmt.Sprintf("iter %d", iter)
				img := rvtest.MakeELF(randomALULoop(rng), nil, 4096)
				rec := loadSmall(t, img)
				for r := 10; r < 14; r++ {
					rec.CPU.X[r] = rng.Uint64()
				}
				// Recorded looping, the trace is a self-loop; recorded
				// on its last iteration, its loop branch is a side exit
				// to its own head (stubFor's back edge to the body).
				rec.CPU.X[5], rec.CPU.X[9] = []uint64{1000, 1}[iter%2], 2000
				rec.CPU.PC = rvtest.MakeELFText
				trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
				rec.Close()
				if err != nil {
					t.Fatal(err)
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
				st := new(fragment.State)
				native.UseCPU(&st.CPU)
				for r := 10; r < 14; r++ {
					st.CPU.X[r] = rng.Uint64()
				}
				st.CPU.X[5] = uint64(1 + rng.IntN(40))
				st.CPU.X[9] = uint64(rng.IntN(40)) // where a side exit leaves, if the loop has one
				st.CPU.PC = rvtest.MakeELFText
				*ref.CPU = st.CPU
				budget := []int64{1, 7, 50, 1 << 20}[rng.IntN(4)]
				st.Budget = budget
				e := cache.Enter(f, st, native.Mem.Base())
				retired := budget - st.Budget
				matchInterpreter(t, what, trace, ref, retired, e.Kind, e.Target, st)
				native.Close()
				ref.Close()
			}
		})
	}
}
