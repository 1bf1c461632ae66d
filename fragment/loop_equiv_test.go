package fragment_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// Registers of the random loops: two pointers that step, one that does
// not, and the end the first pointer is compared with.
const (
	loopPtr  = 5  // steps by step1; the loop runs while it differs from loopEnd
	loopPtr2 = 28 // steps by step2 (maybe 0)
	loopInv  = 6  // never changes
	loopEnd  = 7
	loopDiff = 29 // never changes: loopPtr2-loopPtr on entry
	loopSum  = 30 // loopPtr+loopDiff, a derived base (ir.Inst.Index)
	loopCnt  = 31 // with a 32-bit counter: counts by addiw 1 up to loopEnd (C's int i)
)

// randomLoop returns a loop of gcc's pointer-loop shape: a few random
// loads and stores off the three base registers (at small offsets, some
// before and some after the pointers step), then "bne ptr, end, loop",
// then an exit ecall. Sometimes a data-dependent exit is added. With
// w32 the loop counts instead: "addiw cnt, cnt, 1; bne cnt, end", the
// pointers stepping beside (a trip of 32-bit arithmetic, ir.Trip.W).
func randomLoop(rng *rand.Rand, step1, step2 int64, w32 bool) []uint32 {
	type I = interp.Inst
	loads := []interp.Op{interp.OpLB, interp.OpLH, interp.OpLW, interp.OpLD, interp.OpLBU, interp.OpLHU, interp.OpLWU}
	stores := []interp.Op{interp.OpSB, interp.OpSH, interp.OpSW, interp.OpSD}
	bases := []uint8{loopPtr, loopPtr2, loopInv}
	var prog []I
	first := w32 // a counting loop's first access is off loopPtr, which runs off its interval when the count is wrong
	access := func() {
		base := bases[rng.IntN(3)]
		if first {
			off := int64(rng.IntN(33) - 16)
			prog = append(prog, I{Op: stores[rng.IntN(4)], Rs1: loopPtr, Rs2: uint8(10 + rng.IntN(6)), Imm: off})
			first = false
			return
		}
		if rng.IntN(4) == 0 { // off the sum of an induction register and an invariant one, as glibc's byte copy
			a, b := uint8(loopPtr), uint8(loopDiff)
			if rng.IntN(2) == 0 {
				a, b = b, a
			}
			prog = append(prog, I{Op: interp.OpADD, Rd: loopSum, Rs1: a, Rs2: b})
			base = loopSum
		}
		off := int64(rng.IntN(33) - 16)
		if rng.IntN(3) == 0 {
			prog = append(prog, I{Op: stores[rng.IntN(4)], Rs1: base, Rs2: uint8(10 + rng.IntN(6)), Imm: off})
		} else {
			prog = append(prog, I{Op: loads[rng.IntN(7)], Rd: uint8(10 + rng.IntN(6)), Rs1: base, Imm: off})
		}
	}
	for n := 1 + rng.IntN(4); n > 0; n-- {
		access()
	}
	if rng.IntN(4) == 0 { // a data-dependent way out
		prog = append(prog, I{Op: interp.OpBEQ, Rs1: uint8(10 + rng.IntN(6)), Rs2: 0, Imm: 0}) // patched below
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: loopPtr, Rs1: loopPtr, Imm: step1})
	if step2 != 0 {
		prog = append(prog, I{Op: interp.OpADDI, Rd: loopPtr2, Rs1: loopPtr2, Imm: step2})
	}
	for n := rng.IntN(3); n > 0; n-- {
		access()
	}
	if w32 {
		prog = append(prog, I{Op: interp.OpADDIW, Rd: loopCnt, Rs1: loopCnt, Imm: 1})
		prog = append(prog, I{Op: interp.OpBNE, Rs1: loopCnt, Rs2: loopEnd, Imm: -4 * int64(len(prog))})
	} else {
		prog = append(prog, I{Op: interp.OpBNE, Rs1: loopPtr, Rs2: loopEnd, Imm: -4 * int64(len(prog))})
	}
	for i := range prog {
		if prog[i].Op == interp.OpBEQ {
			prog[i].Imm = 4 * int64(len(prog)-i) // to the exit
		}
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 17, Imm: 93}, I{Op: interp.OpECALL})
	return rvtest.EncodeAll(prog)
}

// TestLoopMatchesInterpreter records random self-loops on a state where
// their accesses stay in the data segment, compiles them (checks hoisted
// to the entry where the induction allows), and runs each fragment on
// other states: in bounds (in the data, and in the stack, the other
// interval; such a run must not leave to the interpreter), walking off the end of the data or the top of
// memory part-way, below the bottom, with an end the pointer never meets,
// with a wild invariant base. The exit taken, the instructions charged,
// the registers and memory must equal the interpreter's after as many
// instructions; a loop that runs out of budget leaves at its back edge.
func TestLoopMatchesInterpreter(t *testing.T) {
	for name, opts := range optionSets {
		t.Run(name, func(t *testing.T) {
			cache := newCache(t)
			rng := rand.New(rand.NewPCG(21, 22))
			exits := map[exit.Kind]int{}
			for iter := 0; iter < 300; iter++ {
				exits[checkRandomLoop(t, cache, rng, opts, fmt.Sprintf("iter %d", iter))]++
			}
			t.Logf("exits taken: %v", exits)
			if exits[exit.Branch] == 0 || exits[exit.Interp] == 0 {
				t.Errorf("random loops did not both finish and leave to the interpreter: %v", exits)
			}
		})
	}
}

func checkRandomLoop(t *testing.T, cache *codecache.Cache, rng *rand.Rand, opts fragment.Options, what string) exit.Kind {
	steps := []int64{1, 2, 4, 8, -4, -8, 3}
	step1, step2 := steps[rng.IntN(len(steps))], []int64{0, 4, -8, 8}[rng.IntN(4)]
	w32 := rng.IntN(3) == 0
	words := randomLoop(rng, step1, step2, w32)
	img := rvtest.MakeELF(words, randomData(rng), dataSize)
	cnt0 := []int32{0, -40, 100000}[rng.IntN(3)] // a 32-bit counter's start
	set := func(x *[32]uint64, ptr, ptr2, inv uint64, iters int64, skew uint64) {
		for r := 10; r < 16; r++ {
			x[r] = rng.Uint64() >> (rng.IntN(4) * 16)
		}
		x[loopPtr], x[loopPtr2], x[loopInv] = ptr, ptr2, inv
		x[loopDiff] = ptr2 - ptr
		x[loopEnd] = ptr + uint64(iters*step1) + skew
		if w32 {
			x[loopCnt] = uint64(int64(cnt0))
			x[loopEnd] = uint64(int64(cnt0+int32(iters))) + skew
		}
	}
	mid := uint64(rvtest.MakeELFData + dataSize/2)

	rec := loadSmall(t, img)
	defer rec.Close()
	set(&rec.CPU.X, mid, mid-512, mid+1024, 20, 0)
	rec.CPU.PC = rvtest.MakeELFText
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	if err != nil || trace.Len() == 0 {
		t.Fatalf("%s: recording: %v", what, err)
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
	if code.SelfLoop && (code.LoopHead < 0 || !opts.NoLoopAlign && (f.Entry+uintptr(code.LoopHead))%amd64.LoopAlign != 0) {
		t.Errorf("%s: loop head at offset %d of a fragment at %#x, not %d-byte aligned", what, code.LoopHead, f.Entry, amd64.LoopAlign)
	}

	native, ref := loadSmall(t, img), loadSmall(t, img)
	defer native.Close()
	defer ref.Close()
	st := new(fragment.State)
	native.UseCPU(&st.CPU)
	const top = 16 << 20
	inBounds := false
	k := rng.IntN(10)
	if w32 && rng.IntN(3) == 0 {
		k = 9 // the counter's own hazards more often
	}
	switch k {
	case 0, 1: // in bounds, finishing
		set(&st.CPU.X, mid, mid+256, mid-256, int64(1+rng.IntN(100)), 0)
		inBounds = true
	case 7: // in bounds in the stack, where the recorded accesses hit the data
		set(&st.CPU.X, stackData+4096, stackData+8192, stackData+256, int64(1+rng.IntN(100)), 0)
		inBounds = true
	case 2: // off the end of the data interval, part-way
		set(&st.CPU.X, guardGap-uint64(8*rng.IntN(40)), mid, mid, 60, 0)
	case 3: // off the top of memory, part-way
		set(&st.CPU.X, top-uint64(8*rng.IntN(40)), stackData, mid, 60, 0)
	case 4: // below the bottom
		set(&st.CPU.X, uint64(8*rng.IntN(40)), mid, mid, 60, 0)
	case 5: // an end never met, or very far
		set(&st.CPU.X, mid, mid, mid, 30, []uint64{1, 1 << 40, 1 << 62}[rng.IntN(3)])
	case 8: // a derived base (loopPtr+loopDiff) off the end of an interval part-way, or wild
		set(&st.CPU.X, mid, mid, mid, 60, 0)
		wild := []uint64{guardGap - uint64(8*rng.IntN(40)), top - uint64(8*rng.IntN(40)), 8, 1 << 40}[rng.IntN(4)]
		st.CPU.X[loopDiff] = wild - mid
	case 9: // a 32-bit counter that wraps past 2^31 on the way, or not sign-extended on entry
		iters := int64(1 + rng.IntN(60))
		set(&st.CPU.X, mid, mid+256, mid-256, iters, 0)
		if !w32 {
			break
		}
		x := &st.CPU.X
		switch rng.IntN(4) {
		case 0: // wraps to negative and meets its end
			x[loopCnt] = uint64(int64(math.MaxInt32 - int32(rng.IntN(50))))
		case 1: // not sign-extended on entry (the first addiw makes it so)
			x[loopCnt] |= 1 << 40
		default:
			// An end or a start outside 32 bits whose 64-bit distance
			// looks like a short loop, although the 32-bit counter never
			// meets the end: a pointer near the end of its interval
			// walks off it after the iterations the distance promises.
			start := int64(math.MaxInt32 - 20)
			if rng.IntN(2) == 0 {
				start = math.MinInt32 - 20 // not sign-extended: harmless, the distance is the same in 32 bits
			}
			x[loopCnt], x[loopEnd] = uint64(start), uint64(start+iters)
			if step1 > 0 {
				x[loopPtr] = guardGap - uint64((iters+2)*step1) - 16
			} else {
				x[loopPtr] = rvtest.MakeELFData + uint64((iters+2)*-step1) + 16
			}
			x[loopDiff] = x[loopPtr2] - x[loopPtr]
		}
	default: // a wild invariant base
		set(&st.CPU.X, mid, mid, []uint64{0, guardGap, top - 4, 1 << 40}[rng.IntN(4)], 10, 0)
	}
	st.CPU.PC = rvtest.MakeELFText
	*ref.CPU = st.CPU

	const budget = 4000
	st.Budget = budget
	e := cache.Enter(f, st, native.Mem.Base())
	retired := budget - st.Budget // over all iterations; an exit record counts from its iteration's head
	if inBounds && e.Kind != exit.Branch {
		// Correct, but a check that fails where every access is in
		// bounds sends the loop to the interpreter on every entry.
		t.Errorf("%s: a loop in bounds left through a %v exit\n%s", what, e.Kind, dump(trace))
	}
	matchInterpreter(t, what, trace, ref, retired, e.Kind, e.Target, st)
	if !bytes.Equal(native.Mem.Bytes(rvtest.MakeELFData, 2*dataSize), ref.Mem.Bytes(rvtest.MakeELFData, 2*dataSize)) {
		t.Fatalf("%s: data memory differs\n%s", what, dump(trace))
	}
	if !bytes.Equal(native.Mem.Bytes(top-8192, 8192), ref.Mem.Bytes(top-8192, 8192)) {
		t.Fatalf("%s: stack memory differs\n%s", what, dump(trace))
	}
	return e.Kind
}
