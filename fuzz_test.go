package rvdyn_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"rvdyn"
	"rvdyn/codecache"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// Random whole programs, run by the interpreter and by the optimizer in
// several configurations: the end-to-end counterpart of the fragment
// package's trace equivalence test. Each program is an outer loop around
// a few inner loops whose bodies are random RV64IM instructions (ALU, M
// extension, loads and stores, forward branches), with registers seeded
// with the M extension's corner values, so that traces are recorded,
// compiled, linked, left by every kind of exit and re-entered. Every
// configuration must end the same way (exit status, fault, instruction
// count) with the same registers and memory.

// Registers the generated code reserves: data pointers no instruction
// overwrites, and the loop counters.
const (
	fzData  = 8  // s0: data+2048, so that every 12-bit offset stays in the data
	fzData2 = 9  // s1: data+6144, or wild (null page, text, guard gap, far)
	fzInner = 26 // s10: inner loop counter
	fzOuter = 27 // s11: outer loop counter
	fzSize  = 8192
	fzLimit = 300000 // instruction limit: a runaway program stops here in every mode
)

// cornerValues are the values the M extension treats specially.
var cornerValues = []uint64{0, 1, 2, 3, ^uint64(0), 1 << 63, 1<<63 - 1, 0x80000000, 0xffffffff, 0x7fffffff, 0xffffffff80000000, 7}

// fuzzDest returns a random destination register that is not reserved.
func fuzzDest(rng *rand.Rand) uint8 {
	for {
		r := uint8(1 + rng.IntN(31))
		if r != fzData && r != fzData2 && r != fzInner && r != fzOuter && r != 2 {
			return r
		}
	}
}

// fuzzLoad returns instructions setting rd to v (any 64-bit value).
func fuzzLoad(rd uint8, v uint64) []I {
	hi, lo := int64(v)>>32, int64(int32(uint32(v)))
	seq := li(rd, hi)
	seq = append(seq, I{Op: interp.OpSLLI, Rd: rd, Rs1: rd, Imm: 32})
	t := uint8(31) // t6 is scratch here: the caller reloads it if it is a destination
	if rd == t {
		t = 30
	}
	seq = append(seq, li(t, lo)...)
	seq = append(seq,
		I{Op: interp.OpSLLI, Rd: t, Rs1: t, Imm: 32}, I{Op: interp.OpSRLI, Rd: t, Rs1: t, Imm: 32},
		I{Op: interp.OpOR, Rd: rd, Rs1: rd, Rs2: t})
	return seq
}

// fuzzBody returns n random straight-line instructions with forward
// branches inside the body.
func fuzzBody(rng *rand.Rand, n int) []I {
	var ops []interp.Op
	for op := interp.OpLUI; op.IsBase(); op++ { // the RV64IM operations Encode knows
		switch op {
		case interp.OpJAL, interp.OpJALR, interp.OpECALL, interp.OpEBREAK, interp.OpFENCEI, interp.OpAUIPC:
			continue
		}
		ops = append(ops, op)
		if op.Class() == interp.ClassMul || op.Class() == interp.ClassLoad || op.Class() == interp.ClassStore {
			ops = append(ops, op) // twice as likely
		}
	}
	body := make([]I, 0, n)
	for len(body) < n {
		op := ops[rng.IntN(len(ops))]
		in := rvtest.RandomInst(rng, op)
		in.Rd = fuzzDest(rng)
		switch c := op.Class(); {
		case c == interp.ClassLoad || c == interp.ClassStore:
			in.Rs1 = []uint8{fzData, fzData2}[rng.IntN(2)]
			in.Imm = int64(rng.IntN(4096) - 2048)
			if c == interp.ClassStore {
				in.Rd = 0
			}
		case c == interp.ClassBranch:
			in.Imm = 4 * int64(1+rng.IntN(n-len(body)+1)) // forward, at most to the end of the body
			in.Rd = 0
		case c == interp.ClassMul && rng.IntN(3) == 0:
			// a corner value as the divisor or multiplier
			r := fuzzDest(rng)
			body = append(body, fuzzLoad(r, cornerValues[rng.IntN(len(cornerValues))])...)
			in.Rs2 = r
		}
		body = append(body, in)
	}
	return body
}

// fuzzProgram returns a random program: registers seeded, then an outer
// loop around inner loops, then exit with a0.
func fuzzProgram(rng *rand.Rand) []byte {
	var prog []I
	for r := uint8(1); r < 32; r++ {
		if r == 2 || r == fzData || r == fzData2 || r == fzInner || r == fzOuter {
			continue
		}
		v := cornerValues[rng.IntN(len(cornerValues))]
		if rng.IntN(2) == 0 {
			v = rng.Uint64() >> (rng.IntN(4) * 16)
		}
		prog = append(prog, fuzzLoad(r, v)...)
	}
	prog = append(prog, li(fzData, rvtest.MakeELFData+2048)...)
	data2 := uint64(rvtest.MakeELFData + 6144)
	if rng.IntN(5) == 0 {
		data2 = []uint64{0, 8, rvtest.MakeELFText, 16<<20 - 4096 - 4<<20 - 1<<20 + 64, 1 << 40}[rng.IntN(5)]
	}
	prog = append(prog, fuzzLoad(fzData2, data2)...)
	prog = append(prog, li(fzOuter, int64(1+rng.IntN(80)))...)
	outer := len(prog)
	for k := 1 + rng.IntN(3); k > 0; k-- {
		prog = append(prog, li(fzInner, int64(1+rng.IntN(40)))...)
		inner := len(prog)
		prog = append(prog, fuzzBody(rng, 4+rng.IntN(40))...)
		prog = append(prog, I{Op: interp.OpADDI, Rd: fzInner, Rs1: fzInner, Imm: -1})
		prog = append(prog, I{Op: interp.OpBNE, Rs1: fzInner, Imm: 4 * int64(inner-len(prog))})
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: fzOuter, Rs1: fzOuter, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: fzOuter, Imm: 4 * int64(outer-len(prog))})
	prog = append(prog, exitWith()...)
	data := make([]byte, fzSize)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return rvtest.MakeELF(words(prog...), data, fzSize)
}

// fuzzConfigs are the optimizer configurations a random program runs
// under, by name.
var fuzzConfigs = func() []struct {
	name string
	opts rvdyn.Options
} {
	type cfg = struct {
		name string
		opts rvdyn.Options
	}
	tau := func(d int) net.Options { return net.Options{Delay: net.DelayOf(d)} }
	cfgs := []cfg{{"delay 0", rvdyn.Options{NET: tau(0)}}, {"delay 1", rvdyn.Options{NET: tau(1)}}, {"delay 7", rvdyn.Options{NET: tau(7)}},
		{"4 KiB cache", rvdyn.Options{NET: tau(1), Cache: codecache.Options{Size: 4096}}},
		{"short traces", rvdyn.Options{NET: net.Options{Delay: 2, MaxTraceLen: 5}}}}
	for _, m := range rvdyn.Mechanisms() {
		o := rvdyn.Options{NET: tau(2)}
		if err := o.Disable(m); err != nil {
			panic(err)
		}
		cfgs = append(cfgs, cfg{"no " + m, o})
	}
	return cfgs
}()

// finalState is how a run ended: status, error, count, registers, memory.
type finalState struct {
	code  int
	err   string
	insts uint64
	regs  [32]uint64
	pc    uint64
	data  []byte
}

func runFinal(t *testing.T, img []byte, opts rvdyn.Options) finalState {
	t.Helper()
	opts.MemSize, opts.MaxInstructions = 16<<20, fzLimit
	vm, err := rvdyn.New(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	code, err := vm.Run()
	m := vm.Machine()
	s := finalState{code: code, insts: m.Retired(), regs: m.CPU.X, pc: m.CPU.PC,
		data: bytes.Clone(m.Mem.Bytes(rvtest.MakeELFData, 2*fzSize))}
	if err != nil {
		s.err = err.Error()
	}
	return s
}

// checkProgramAgrees runs one random program under the interpreter and
// under the configurations cfgs selects (every one if all).
func checkProgramAgrees(t *testing.T, s1, s2 uint64, cfg uint8, all bool) {
	img := fuzzProgram(rand.New(rand.NewPCG(s1, s2)))
	want := runFinal(t, img, rvdyn.Options{Mode: rvdyn.ModeInterp})
	for i, c := range fuzzConfigs {
		if !all && i != int(cfg)%len(fuzzConfigs) && i != int(cfg/16)%len(fuzzConfigs) {
			continue
		}
		got := runFinal(t, img, c.opts)
		var diff string
		switch {
		case got.code != want.code || got.err != want.err:
			diff = fmt.Sprintf("exit %d %q, interp %d %q", got.code, got.err, want.code, want.err)
		case got.insts != want.insts:
			diff = fmt.Sprintf("%d instructions, interp %d", got.insts, want.insts)
		case got.regs != want.regs || got.pc != want.pc:
			diff = fmt.Sprintf("registers differ: pc %#x %v, interp pc %#x %v", got.pc, got.regs, want.pc, want.regs)
		case !bytes.Equal(got.data, want.data):
			diff = "data memory differs"
		}
		if diff != "" {
			t.Fatalf("program (%d, %d), %s: %s", s1, s2, c.name, diff)
		}
	}
}

// TestRandomProgramsAgree runs a few random programs under every
// configuration (the fuzz target's regression check).
func TestRandomProgramsAgree(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 3
	}
	for i := 0; i < n; i++ {
		checkProgramAgrees(t, uint64(i), 0x5eed, 0, true)
	}
}

// FuzzRandomProgramsAgree is the same check driven by the fuzzer: the
// seeds pick the program, cfg two of the configurations.
func FuzzRandomProgramsAgree(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(0))
	f.Add(uint64(3), uint64(4), uint8(0x35))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, cfg uint8) {
		checkProgramAgrees(t, s1, s2, cfg, false)
	})
}

// countHook counts the events the hooked interpreter loop delivers.
type countHook struct{ n uint64 }

func (h *countHook) Event(*interp.Event) { h.n++ }

// interpFinal runs a random program on a bare interpreter: the fast loop
// when hooked is false, else the hooked single-step loop with every
// instruction class selected; with slices > 0 it runs in slices of at most
// that many instructions that also stop where the dispatcher would
// (RunUntil with the dispatcher's stops), as the optimizer drives the interpreter.
func interpFinal(t *testing.T, img []byte, hooked bool, slices uint64) (finalState, uint64) {
	t.Helper()
	m, err := interp.Load(img, interp.Config{MemSize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := &countHook{}
	if hooked {
		m.SetHook(interp.MaskOf(interp.ClassALU, interp.ClassJump, interp.ClassBranch, interp.ClassLoad,
			interp.ClassStore, interp.ClassMul, interp.ClassSys), h)
	}
	if slices == 0 {
		err = m.Run(fzLimit)
	} else {
		for !m.Exited() && err == nil && m.Retired() < fzLimit {
			_, err = m.RunUntil(min(slices, fzLimit-m.Retired()), interp.StopsAll)
		}
		if err == nil && !m.Exited() {
			err = interp.ErrLimit
		}
	}
	s := finalState{code: m.ExitCode(), insts: m.Retired(), regs: m.CPU.X, pc: m.CPU.PC,
		data: bytes.Clone(m.Mem.Bytes(rvtest.MakeELFData, 2*fzSize))}
	if err != nil {
		s.err = err.Error()
	}
	return s, h.n
}

// checkInterpreterLoops requires the interpreter's fast loop, its hooked
// single-step loop and its sliced, dispatcher-style loop to end one random
// program in the same state, and the hooked loop to report one event per
// retired instruction.
func checkInterpreterLoops(t *testing.T, s1, s2 uint64, slice uint8) {
	img := fuzzProgram(rand.New(rand.NewPCG(s1, s2)))
	want, _ := interpFinal(t, img, false, 0)
	hooked, events := interpFinal(t, img, true, 0)
	sliced, _ := interpFinal(t, img, false, 1+uint64(slice))
	for _, got := range []struct {
		name string
		s    finalState
	}{{"hooked loop", hooked}, {"sliced loop", sliced}} {
		if got.s.code != want.code || got.s.err != want.err || got.s.insts != want.insts ||
			got.s.regs != want.regs || got.s.pc != want.pc || !bytes.Equal(got.s.data, want.data) {
			t.Fatalf("program (%d, %d): %s ends with exit %d %q after %d at pc %#x; fast loop: exit %d %q after %d at pc %#x (registers equal %v, memory equal %v)",
				s1, s2, got.name, got.s.code, got.s.err, got.s.insts, got.s.pc, want.code, want.err, want.insts, want.pc,
				got.s.regs == want.regs, bytes.Equal(got.s.data, want.data))
		}
	}
	// A faulting instruction is reported to the hook but does not retire.
	if events != want.insts && (want.err == "" || events != want.insts+1) {
		t.Fatalf("program (%d, %d): hooked loop delivered %d events for %d instructions (%s)", s1, s2, events, want.insts, want.err)
	}
}

// TestInterpreterLoopsAgree: the fast loop against the single-step loop on
// a few random programs (the fuzz target's regression check).
func TestInterpreterLoopsAgree(t *testing.T) {
	for i := 0; i < 20; i++ {
		checkInterpreterLoops(t, uint64(i), 0x100, uint8(i*13))
	}
}

// FuzzInterpreterLoopsAgree is the same check driven by the fuzzer.
func FuzzInterpreterLoopsAgree(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(0))
	f.Add(uint64(5), uint64(6), uint8(200))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, slice uint8) {
		checkInterpreterLoops(t, s1, s2, slice)
	})
}
