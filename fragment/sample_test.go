package fragment_test

import (
	"bytes"
	"io"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/fragment/exit"
	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// TestSampledFragments: with a sampler that selects every branch, each
// branch of a trace gets an ExitSample exit at its own pc, retiring the
// instructions before it, and the code compares and decrements the
// branch's countdown; a sampler that selects nothing gives Compile's
// code byte for byte (an unprofiled fragment costs nothing).
func TestSampledFragments(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	const slot = 9
	branches := func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) { return slot, nil, in.IsBranch() }
	none := func(uint64, interp.Inst) (int, *rpa.Native, bool) { return 0, nil, false }
	total := 0
	for _, tr := range traces {
		plain, err := fragment.Compile(tr, env, fragment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		same, err := fragment.CompileSampled(tr, env, fragment.Options{}, none)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(plain.Bytes, same.Bytes) {
			t.Errorf("fragment %#x: a sampler that selects nothing changed the code", tr.Head)
		}
		code, err := fragment.CompileSampled(tr, env, fragment.Options{}, branches)
		if err != nil {
			t.Fatal(err)
		}
		// With the countdown in a home register across fragments, every
		// decision decrements that register, loaded at the entry.
		home, err := fragment.CompileSampled(tr, env, fragment.Options{CountdownHome: true, CountdownIndex: slot}, branches)
		if err != nil {
			t.Fatal(err)
		}
		want := map[uint64]int{}
		for i, s := range tr.Steps {
			if s.Inst.IsBranch() {
				want[s.PC] = i
			}
		}
		got := map[uint64]int{}
		for _, e := range code.Exits {
			if e.Kind == exit.Sample {
				if e.Target != e.From || e.LinkOff >= 0 {
					t.Errorf("fragment %#x: sample exit %+v", tr.Head, e.Record)
				}
				got[e.Target] = e.Retired
			}
		}
		for pc, i := range want {
			if r, ok := got[pc]; !ok || r != i {
				t.Errorf("fragment %#x: branch at %#x (step %d): sample exit retiring %d, present %v", tr.Head, pc, i, r, ok)
			}
		}
		total += len(got)
		if n := countDecisions(t, code.Bytes, slot); n != len(got) {
			t.Errorf("fragment %#x: %d countdown decisions for %d sample exits", tr.Head, n, len(got))
		}
		if n, inReg := countRegDecisions(t, home.Bytes, slot); n != len(got) || inReg != n {
			t.Errorf("fragment %#x, countdown home: %d countdown decisions (%d in a register) for %d sample exits", tr.Head, n, inReg, len(got))
		}
	}
	if total == 0 {
		t.Fatal("no trace has a branch: the test checked nothing")
	}
}

// TestNativeSampledFragments: with native queries for branches and
// stores, every selected instruction still has its sample exit (the
// fallback) and its countdown compare, the code decodes to the end, and
// the listing writes.
func TestNativeSampledFragments(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	const slot = 9
	p, err := rpa.Assemble("for opBRANCH * opSTORE * every 5 collect pc op1 op2 op3 res1 misc; if op1 < 10 or op2 > 10 goto b; send 1 stop; b: send 2 stop;")
	if err != nil {
		t.Fatal(err)
	}
	code := make([]rpa.QueryInst, len(p.Code))
	for i, w := range p.Code {
		code[i], _ = rpa.DecodeInst(w)
	}
	sampler := func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) {
		if !in.IsBranch() && in.Op.Class() != interp.ClassStore {
			return 0, nil, false
		}
		nv := &rpa.Native{PC: pc, Inst: in, Entry: slot, Period: 5, QPC: 0, Code: code,
			Fields: []rpa.Field{rpa.FieldPC, rpa.FieldOp1, rpa.FieldOp2, rpa.FieldOp3, rpa.FieldRes1, rpa.FieldMisc}}
		nv.Sends[1], nv.Sends[2] = 1, 1
		nv.Queues[1] = rpa.NativeQueue{Base: 0x10000, Slots: 128}
		nv.Queues[2] = rpa.NativeQueue{Base: 0x20000, Slots: 2}
		return slot, nv, true
	}
	total := 0
	for _, tr := range traces {
		c, err := fragment.CompileSampled(tr, env, fragment.Options{}, sampler)
		if err != nil {
			t.Fatal(err)
		}
		exits := 0
		for _, e := range c.Exits {
			if e.Kind == exit.Sample {
				exits++
			}
		}
		if n := countDecisions(t, c.Bytes, slot); n != exits {
			t.Errorf("fragment %#x: %d countdown decisions for %d sample exits", tr.Head, n, exits)
		}
		if err := fragment.WriteListing(io.Discard, tr, c); err != nil {
			t.Errorf("fragment %#x: listing: %v", tr.Head, err)
		}
		total += exits
	}
	if total == 0 {
		t.Fatal("no trace has a branch or store: the test checked nothing")
	}
}

// countDecisions decodes code to its end and counts the sampling
// decisions on countdown slot: decrements of the countdown in State, or, where the fragment keeps the countdown in a register (loaded
// from State at the entry), decrements of that register by 1.
func countDecisions(t *testing.T, code []byte, slot int) int {
	t.Helper()
	n, _ := countRegDecisions(t, code, slot)
	return n
}

// countRegDecisions is countDecisions, also returning how many of the
// decisions decrement a register.
func countRegDecisions(t *testing.T, code []byte, slot int) (n, inReg int) {
	t.Helper()
	insts := decodeAll(t, code)
	countdown := func(a x86asm.Arg) bool { return isCountdown(a, slot) }
	cd := countdownReg(insts, slot)
	for _, in := range insts {
		switch {
		case in.Op == x86asm.SUB && countdown(in.Args[0]) && in.Args[1] == x86asm.Imm(1):
			n++
		case in.Op == x86asm.SUB && cd != 0 && in.Args[0] == cd && in.Args[1] == x86asm.Imm(1):
			n++
			inReg++
		}
	}
	return n, inReg
}

// decodeAll decodes code to its end.
func decodeAll(t *testing.T, code []byte) []x86asm.Inst {
	t.Helper()
	var insts []x86asm.Inst
	for at := 0; at < len(code); {
		in, err := x86asm.Decode(code[at:], 64)
		if err != nil {
			t.Fatalf("undecodable at %d: %v", at, err)
		}
		insts = append(insts, in)
		at += in.Len
	}
	return insts
}

// isCountdown reports whether a is countdown slot's word in State.
func isCountdown(a x86asm.Arg, slot int) bool {
	m, ok := a.(x86asm.Mem)
	return ok && m.Base == x86asm.R15 && m.Disp == amd64.StateCountdown+8*int64(slot)
}

// countdownReg returns the register the entry loads countdown slot
// into, if any (the entry of a looping fragment lies behind its body):
// R12W where the entry packs what it loaded into R12 beside the budget
// (amd64's cdPack: OR R12, reg).
func countdownReg(insts []x86asm.Inst, slot int) x86asm.Reg {
	for i, in := range insts {
		if in.Op == x86asm.MOV && isCountdown(in.Args[1], slot) {
			r, _ := in.Args[0].(x86asm.Reg)
			for _, p := range insts[i+1:] {
				if p.Op == x86asm.OR && p.Args[0] == x86asm.R12 && p.Args[1] == r {
					return x86asm.R12W
				}
			}
			return r
		}
	}
	return 0
}

// reg64 is the 64-bit register of r, which a memory operand's base
// names (R12 for R12W).
func reg64(r x86asm.Reg) x86asm.Reg {
	if r >= x86asm.AX && r <= x86asm.R15W {
		return r - x86asm.AX + x86asm.RAX
	}
	return r
}

// TestMergedDecisions: with the countdown in a register, a trace with k
// >= 2 selected branches decides them once per pass (one SUBQ $k of the
// countdown register) and keeps the k decisions one by one in the copy
// of the body that runs when a sample falls in the pass; every exit of
// the first copy taken before some of them gives those back (LEAQ
// n(cd), cd, 1 <= n <= k). Off
// (Options.NoDecisionMerge), there is no merged test. That the merged
// code samples exactly the interpreter's executions is
// TestQueryModesAgree's (package rvdyn), which a wrong give-back fails.
func TestMergedDecisions(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	const slot = 9
	branches := func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) { return slot, nil, in.IsBranch() }
	merged, gives := 0, 0
	for _, tr := range traces {
		k := 0
		for _, s := range tr.Steps {
			if s.Inst.IsBranch() {
				k++
			}
		}
		opts := fragment.Options{CountdownHome: true, CountdownIndex: slot}
		code, err := fragment.CompileSampled(tr, env, opts, branches)
		if err != nil {
			t.Fatal(err)
		}
		opts.NoDecisionMerge = true
		plain, err := fragment.CompileSampled(tr, env, opts, branches)
		if err != nil {
			t.Fatal(err)
		}
		ones, bys, backs := decisionShape(t, code.Bytes, slot, k)
		if _, offBys, _ := decisionShape(t, plain.Bytes, slot, k); offBys != 0 {
			t.Errorf("fragment %#x, merging off: %d merged tests", tr.Head, offBys)
		}
		if k < 2 {
			if bys != 0 {
				t.Errorf("fragment %#x: %d selected branches, %d merged tests", tr.Head, k, bys)
			}
			continue
		}
		merged++
		if bys != 1 || ones != k {
			t.Errorf("fragment %#x: %d selected branches: %d merged tests of %d, %d decisions one by one", tr.Head, k, bys, k, ones)
		}
		gives += len(backs)
		for n := range backs {
			if n < 1 || n > k {
				t.Errorf("fragment %#x: an exit gives back %d of %d decisions", tr.Head, n, k)
			}
		}
	}
	if merged == 0 || gives == 0 {
		t.Fatalf("%d traces with two selected branches, %d give-backs: the test checked nothing", merged, gives)
	}
}

// decisionShape decodes code and counts, on the register the entry
// loads countdown slot into: decrements by 1 (decisions one by one),
// decrements by k (merged tests), and the LEAQ give-backs by amount.
func decisionShape(t *testing.T, code []byte, slot, k int) (ones, bys int, backs map[int]int) {
	t.Helper()
	insts := decodeAll(t, code)
	cd := countdownReg(insts, slot)
	if cd == 0 {
		t.Fatal("no countdown register")
	}
	backs = map[int]int{}
	for _, in := range insts {
		switch {
		case in.Op == x86asm.SUB && in.Args[0] == cd && in.Args[1] == x86asm.Imm(1):
			ones++
		case in.Op == x86asm.SUB && in.Args[0] == cd && in.Args[1] == x86asm.Imm(k) && k > 1:
			bys++
		case in.Op == x86asm.LEA && in.Args[0] == cd:
			if m, ok := in.Args[1].(x86asm.Mem); ok && m.Base == reg64(cd) {
				backs[int(m.Disp)]++
			}
		}
	}
	return ones, bys, backs
}

// TestPackedCountdown: a looping fragment under a sampled query keeps
// its countdown in R12's low 16 bits beside the budget (amd64's
// cdpack.go): its decisions are SUBW $1 of R12W, a pass's merged test
// one SUBW $k, the give-backs LEAW; off (Options.NoCountdownPack), the
// countdown is in a register of its own. That packed fragments sample
// exactly the interpreter's executions, countdowns past 16 bits
// included, is TestQueryModesAgree's (package rvdyn).
func TestPackedCountdown(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	const slot = 9
	branches := func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) { return slot, nil, in.IsBranch() }
	packed := 0
	for _, tr := range traces {
		k := 0
		for _, s := range tr.Steps {
			if s.Inst.IsBranch() {
				k++
			}
		}
		code, err := fragment.CompileSampled(tr, env, fragment.Options{}, branches)
		if err != nil {
			t.Fatal(err)
		}
		off, err := fragment.CompileSampled(tr, env, fragment.Options{NoCountdownPack: true}, branches)
		if err != nil {
			t.Fatal(err)
		}
		if cd := countdownReg(decodeAll(t, off.Bytes), slot); cd == x86asm.R12W {
			t.Errorf("fragment %#x, packing off: countdown in R12W", tr.Head)
		}
		if countdownReg(decodeAll(t, code.Bytes), slot) != x86asm.R12W {
			continue // no countdown register (a fragment that does not loop), or a bulk part's own
		}
		packed++
		ones, bys, backs := decisionShape(t, code.Bytes, slot, k)
		switch {
		case k >= 2 && k < 128 && (bys != 1 || ones != k):
			t.Errorf("fragment %#x: %d selected branches: %d merged tests of %d, %d decisions one by one", tr.Head, k, bys, k, ones)
		case k < 2 && ones != k:
			t.Errorf("fragment %#x: %d selected branches, %d decisions", tr.Head, k, ones)
		}
		for n := range backs {
			if n < 1 || n > k {
				t.Errorf("fragment %#x: an exit gives back %d of %d decisions", tr.Head, n, k)
			}
		}
	}
	if packed == 0 {
		t.Fatal("no fragment packed its countdown: the test checked nothing")
	}
	t.Logf("%d of %d fragments packed", packed, len(traces))
}
