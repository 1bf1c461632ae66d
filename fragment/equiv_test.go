package fragment_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

const (
	regBase  = 5 // points into the data segment in every state
	regBase2 = 6 // valid when recording, sometimes wild when replaying
	regJump  = 7 // a code address forward of every jalr
	dataSize = 8192
)

var straightOps = func() []interp.Op {
	var ops []interp.Op
	for op := interp.OpLUI; op.IsBase(); op++ { // what fragments compile
		switch op {
		case interp.OpECALL, interp.OpEBREAK, interp.OpFENCEI:
			continue
		}
		ops = append(ops, op)
	}
	return ops
}()

// randomProgram returns n random instructions followed by an exit ecall.
// Branches and jal jump forward inside the program; loads and stores use
// the two base registers, which no instruction overwrites. Mixed in are
// the idioms the optimizer looks for (idiom), so every pass has work.
func randomProgram(rng *rand.Rand, n int) []uint32 {
	words := make([]uint32, 0, n+2)
	for len(words) < n {
		i := len(words)
		if rng.IntN(3) == 0 {
			if seq := idiom(rng); len(seq) <= n-i {
				for _, in := range seq {
					words = append(words, rvtest.Encode(in))
				}
				continue
			}
		}
		if rng.IntN(5) == 0 {
			words = append(words, rvtest.Encode(randomFloatInst(rng)))
			continue
		}
		if rng.IntN(12) == 0 && n-i >= 2 {
			// An atomic off an aligned base (usually), as C code's locks
			// and reference counts do, or off a base as it is.
			d := scratchReg(rng, uint8(1+rng.IntN(31)))
			op := interp.OpLRW + interp.Op(rng.IntN(int(interp.OpAMOMAXUD-interp.OpLRW)+1))
			and := interp.Inst{Op: interp.OpANDI, Rd: d, Rs1: uint8(regBase + rng.IntN(2)), Imm: -8}
			if rng.IntN(4) == 0 {
				and.Imm = -1
			}
			at := interp.Inst{Op: op, Rd: scratchReg(rng, uint8(rng.IntN(32))), Rs1: d, Rs2: uint8(rng.IntN(32))}
			words = append(words, rvtest.Encode(and), rvtest.Encode(at))
			continue
		}
		op := straightOps[rng.IntN(len(straightOps))]
		in := rvtest.RandomInst(rng, op)
		in.Rd = scratchReg(rng, in.Rd)
		switch c := op.Class(); {
		case c == interp.ClassLoad || c == interp.ClassStore:
			in.Rs1 = uint8(regBase + rng.IntN(2))
		case c == interp.ClassBranch || op == interp.OpJAL:
			in.Imm = 4 * int64(1+rng.IntN(n-i+1))
		case op == interp.OpJALR:
			in.Rs1, in.Imm = regJump, 0
		}
		words = append(words, rvtest.Encode(in))
	}
	return append(words, rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}),
		rvtest.Encode(interp.Inst{Op: interp.OpECALL}))
}

// randomFloatInst returns a floating-point instruction or CSR access
// fragments compile: loads and stores off the base registers, x
// destinations other than them, any rounding mode fragments take.
func randomFloatInst(rng *rand.Rand) interp.Inst {
	for {
		var in interp.Inst
		if rng.IntN(8) == 0 {
			in = interp.Inst{Op: []interp.Op{interp.OpCSRRS, interp.OpCSRRW, interp.OpCSRRWI}[rng.IntN(3)], Rd: scratchReg(rng, uint8(rng.IntN(32))),
				Rs1: uint8(rng.IntN(32)), Imm: int64(1 + rng.IntN(3))}
			if in.Op == interp.OpCSRRS {
				in.Rs1 = 0
			}
		} else {
			op := floatMemOps[rng.IntN(len(floatMemOps))]
			if rng.IntN(3) != 0 {
				op = floatOps[rng.IntN(len(floatOps))]
			}
			in = interp.Inst{Op: op, Rd: uint8(rng.IntN(32)), Rs1: uint8(rng.IntN(32)), Rs2: uint8(rng.IntN(32)),
				Imm: int64([]int{0, 1, 2, 3, 7, 7, 7}[rng.IntN(7)]) | int64(rng.IntN(32))<<8}
			if fd, _, _ := op.FRegs(); !fd {
				in.Rd = scratchReg(rng, in.Rd)
			}
			if op == interp.OpFLW || op == interp.OpFLD || op == interp.OpFSW || op == interp.OpFSD {
				in.Rs1, in.Imm = uint8(regBase+rng.IntN(2)), []int64{0, 8, 16, 4, -8}[rng.IntN(5)]
			}
		}
		if !fragment.Refuses(in) {
			return in
		}
	}
}

var floatMemOps = []interp.Op{interp.OpFLW, interp.OpFLD, interp.OpFSW, interp.OpFSD}

// scratchReg returns r, or another register if r is one of the base
// registers no instruction may overwrite.
func scratchReg(rng *rand.Rand, r uint8) uint8 {
	for r == regBase || r == regBase2 || r == regJump {
		r = uint8(rng.IntN(32))
	}
	return r
}

// idiom returns a short sequence of the kind gcc emits and the optimizer
// rewrites: constants built by lui+addi (also as addresses, in and out of
// bounds), slli/srli and slli/srai pairs, sext.w, zero-extending andi,
// multiplies and unsigned divides by constants, addi and addiw chains,
// address arithmetic, table lookups, repeated accesses off one base,
// rotations, bytes stored and read back wider, and quiet compares.
func idiom(rng *rand.Rand) []interp.Inst {
	type I = interp.Inst
	r := func() uint8 { return scratchReg(rng, uint8(1+rng.IntN(31))) }
	base := uint8(regBase + rng.IntN(2))
	loads := []interp.Op{interp.OpLB, interp.OpLH, interp.OpLW, interp.OpLD, interp.OpLBU, interp.OpLHU, interp.OpLWU}
	stores := []interp.Op{interp.OpSB, interp.OpSH, interp.OpSW, interp.OpSD}
	off := func() int64 { return []int64{0, 8, 16, 4, 12, -8, 1, 2}[rng.IntN(8)] }
	d, s, t := r(), r(), r()
	lui := func(rd uint8, v int64) []I { // rd = v, v a signed 32-bit value
		lo := v << 52 >> 52
		return []I{{Op: interp.OpLUI, Rd: rd, Imm: int64(int32(v - lo))}, {Op: interp.OpADDI, Rd: rd, Rs1: rd, Imm: lo}}
	}
	switch rng.IntN(15) {
	case 0: // a constant, then used
		return append(lui(d, int64(int32(rng.Uint32()))), I{Op: interp.OpADD, Rd: s, Rs1: d, Rs2: t})
	case 1: // a constant address, in or out of bounds
		addr := []int64{rvtest.MakeELFData + int64(rng.IntN(dataSize)), rvtest.MakeELFData + 8, rvtest.MakeELFText, 8}[rng.IntN(4)]
		seq := lui(d, addr)
		if rng.IntN(2) == 0 {
			seq = append(seq, I{Op: stores[rng.IntN(4)], Rs1: d, Rs2: s, Imm: off()})
		}
		return append(seq, I{Op: loads[rng.IntN(7)], Rd: t, Rs1: d, Imm: off()})
	case 2: // zero or sign extension by a shift pair
		k := []int64{32, 48, 56, 31}[rng.IntN(4)]
		right := []interp.Op{interp.OpSRLI, interp.OpSRAI}[rng.IntN(2)]
		mid := []uint8{d, t}[rng.IntN(2)]
		return []I{{Op: interp.OpSLLI, Rd: mid, Rs1: s, Imm: k}, {Op: right, Rd: d, Rs1: mid, Imm: k}}
	case 3: // sext.w, maybe after a 32-bit op
		return []I{{Op: interp.OpADDW, Rd: s, Rs1: s, Rs2: t}, {Op: interp.OpADDIW, Rd: d, Rs1: []uint8{s, t}[rng.IntN(2)], Imm: 0}}
	case 4: // zero extension by andi, and a mask in a register
		seq := []I{{Op: interp.OpANDI, Rd: d, Rs1: s, Imm: 0xff}}
		return append(seq, append(lui(t, []int64{0xffff, -1, 0x7fffffff}[rng.IntN(3)]), I{Op: interp.OpAND, Rd: d, Rs1: s, Rs2: t})...)
	case 5: // multiply or divide by a constant
		ops := []interp.Op{interp.OpMUL, interp.OpMULW, interp.OpDIVU, interp.OpREMU, interp.OpDIV, interp.OpREM, interp.OpDIVUW, interp.OpREMUW}
		return []I{{Op: interp.OpADDI, Rd: t, Imm: []int64{1, 2, 8, 1024, 0, -1, 3}[rng.IntN(7)]}, {Op: ops[rng.IntN(len(ops))], Rd: d, Rs1: s, Rs2: t}}
	case 6: // addi / addiw chains
		op := []interp.Op{interp.OpADDI, interp.OpADDIW}[rng.IntN(2)]
		op2 := []interp.Op{interp.OpADDI, interp.OpADDIW}[rng.IntN(2)]
		return []I{{Op: op, Rd: d, Rs1: s, Imm: int64(rng.IntN(4096) - 2048)}, {Op: op2, Rd: []uint8{d, t}[rng.IntN(2)], Rs1: d, Imm: int64(rng.IntN(4096) - 2048)}}
	case 7: // address arithmetic
		return []I{{Op: interp.OpADDI, Rd: d, Rs1: base, Imm: off() * 8}, {Op: loads[rng.IntN(7)], Rd: []uint8{t, d}[rng.IntN(2)], Rs1: d, Imm: off()}}
	case 8: // a spill and a reload, maybe with an aliasing store between
		w := rng.IntN(4)
		seq := []I{{Op: stores[w], Rs1: base, Rs2: s, Imm: off()}}
		if rng.IntN(2) == 0 {
			seq = append(seq, I{Op: stores[rng.IntN(4)], Rs1: uint8(regBase + rng.IntN(2)), Rs2: t, Imm: off()})
		}
		return append(seq, I{Op: loads[rng.IntN(7)], Rd: d, Rs1: base, Imm: seq[0].Imm})
	case 9: // the same load twice
		o, op := off(), loads[rng.IntN(7)]
		return []I{{Op: op, Rd: d, Rs1: base, Imm: o}, {Op: interp.OpADDI, Rd: t, Rs1: d, Imm: 1}, {Op: loads[rng.IntN(7)], Rd: s, Rs1: base, Imm: o}}
	case 10: // a table lookup: a bounded index off a base (crc32, aes)
		idx := []I{{Op: interp.OpANDI, Rd: t, Rs1: s, Imm: 0xff}, {Op: interp.OpSRLIW, Rd: t, Rs1: s, Imm: 24}, {Op: interp.OpSRLI, Rd: t, Rs1: s, Imm: 56}}[rng.IntN(3)]
		seq := []I{idx, {Op: interp.OpSLLI, Rd: t, Rs1: t, Imm: int64(rng.IntN(4))}, {Op: interp.OpADD, Rd: d, Rs1: base, Rs2: t}}
		if rng.IntN(2) == 0 {
			seq[2].Rs1, seq[2].Rs2 = t, base
		}
		if rng.IntN(3) != 0 {
			seq[2].Rd, d = t, t // in place, as gcc writes a[i] (shadd folds the shift)
		}
		if rng.IntN(3) == 0 { // a table starting at a constant index (shadd's offset), added before or after the shift
			seq = slices.Insert(seq, 1+rng.IntN(2), I{Op: interp.OpADDI, Rd: t, Rs1: t, Imm: int64(rng.IntN(64) - 16)})
		}
		if rng.IntN(3) == 0 { // something between the shift and the add
			between := I{Op: interp.OpXORI, Rd: s, Rs1: []uint8{s, t}[rng.IntN(2)], Imm: 5}
			if rng.IntN(2) == 0 { // a side exit there: a branch over a junk instruction
				seq = slices.Insert(seq, len(seq)-1, I{Op: interp.OpBNE, Rs1: s, Imm: 8})
			}
			seq = slices.Insert(seq, len(seq)-1, between)
		}
		if rng.IntN(2) == 0 {
			seq = append(seq, I{Op: stores[rng.IntN(4)], Rs1: d, Rs2: s, Imm: off()})
		}
		return append(seq, I{Op: loads[rng.IntN(7)], Rd: s, Rs1: d, Imm: off()})
	case 11: // a rotation by two shifts and an or (xor, add, addw), the
		// source maybe copied and overwritten by the first shift, the
		// amounts now and then not adding up
		w := rng.IntN(2) == 0
		n := int64(64)
		right, left := interp.OpSRLI, interp.OpSLLI
		if w {
			n, right, left = 32, interp.OpSRLIW, interp.OpSLLIW
		}
		k := int64(1 + rng.IntN(int(n)-1))
		k2 := n - k
		if rng.IntN(6) == 0 {
			k2 = int64(rng.IntN(int(n)))
		}
		c := r()
		seq := []I{{Op: interp.OpADDI, Rd: c, Rs1: s, Imm: 0}}
		lo, hi := I{Op: right, Rd: t, Rs1: s, Imm: k}, I{Op: left, Rd: d, Rs1: s, Imm: k2}
		if rng.IntN(2) == 0 {
			lo.Rd = s // the source overwritten: only its copy is left
			seq = append(seq, hi, lo)
		} else {
			seq = append(seq, lo, hi)
		}
		comb := []interp.Op{interp.OpOR, interp.OpXOR, interp.OpADD, interp.OpADDW}[rng.IntN(4)]
		return append(seq, I{Op: comb, Rd: []uint8{d, t, c}[rng.IntN(3)], Rs1: lo.Rd, Rs2: hi.Rd})
	case 12: // a word copied a byte at a time (gcc's memcpy of a word it
		// cannot prove aligned), the bytes stored in any order, some
		// constant, then read back wider (or not quite the same bytes)
		n := []int{2, 4, 8}[rng.IntN(3)]
		o := []int64{0, 8, 3, 13, -8}[rng.IntN(5)]
		src := uint8(regBase + rng.IntN(2))
		regs := []uint8{d, s, t, r()}
		var seq []I
		for k := range min(n, 4) {
			seq = append(seq, I{Op: interp.OpLBU, Rd: regs[k], Rs1: src, Imm: 24 + int64(k)})
			if k == 3 && rng.IntN(2) == 0 { // a constant byte (folded into the word)
				seq[k] = I{Op: interp.OpADDI, Rd: regs[k], Imm: int64(rng.IntN(4096) - 2048)}
			}
		}
		for _, k := range rng.Perm(n) {
			st := I{Op: interp.OpSB, Rs1: base, Rs2: regs[k%4], Imm: o + int64(k)}
			if rng.IntN(5) == 0 {
				st.Rs2 = 0
			}
			if rng.IntN(12) == 0 {
				st.Imm++ // now and then not a permutation
			}
			seq = append(seq, st)
		}
		back := map[int]interp.Op{2: interp.OpLHU, 4: interp.OpLW, 8: interp.OpLD}[n]
		if rng.IntN(4) == 0 {
			back = loads[rng.IntN(7)]
		}
		return append(seq, I{Op: back, Rd: d, Rs1: base, Imm: o + int64(rng.IntN(2)*rng.IntN(3))})
	case 13: // gcc's quiet compare (frflags, flt or fle, fsflags), its
		// saved flags seldom read again (amd64's lazy fflags), or
		// glibc's floor (conversions between the read and the write)
		cmp := []interp.Op{interp.OpFLTD, interp.OpFLED, interp.OpFLTS, interp.OpFEQD}[rng.IntN(4)]
		f1, f2 := uint8(rng.IntN(32)), uint8(rng.IntN(32))
		var seq []I
		if rng.IntN(2) == 0 {
			// gcc's "if (x < 0) ...; sqrt(x)": the same compare, signaling,
			// before the idiom (whose quiet one then copies its result),
			// now and then an operand or that result changed between
			prior := I{Op: cmp, Rd: t, Rs1: f1, Rs2: f2}
			if rng.IntN(4) == 0 {
				prior.Op = []interp.Op{interp.OpFLTD, interp.OpFLED, interp.OpFLTS, interp.OpFEQD}[rng.IntN(4)]
			}
			seq = append(seq, prior)
			switch rng.IntN(6) {
			case 0:
				seq = append(seq, I{Op: interp.OpFSGNJD, Rd: []uint8{f1, f2}[rng.IntN(2)], Rs1: uint8(rng.IntN(32)), Rs2: uint8(rng.IntN(32))})
			case 1:
				seq = append(seq, I{Op: interp.OpADDI, Rd: t, Rs1: t, Imm: 1})
			}
		}
		body := []I{{Op: cmp, Rd: s, Rs1: f1, Rs2: f2}}
		if rng.IntN(3) == 0 {
			// glibc's floor: conversions with a static rounding mode,
			// which raise flags the write takes back, now and then a
			// side exit (a branch over a junk instruction) between
			conv := []I{{Op: interp.OpFCVTLD, Rd: t, Rs1: f1, Imm: int64(rng.IntN(5))},
				{Op: interp.OpFCVTDL, Rd: f2, Rs1: t, Imm: int64(rng.IntN(5))}}
			if rng.IntN(2) == 0 {
				conv = slices.Insert(conv, 1, I{Op: interp.OpBNE, Rs1: t, Imm: 8}, I{Op: interp.OpXORI, Rd: t, Rs1: t, Imm: 5})
			}
			body = slices.Insert(body, rng.IntN(2), conv...)
		}
		seq = append(seq, I{Op: interp.OpCSRRS, Rd: d, Imm: interp.CSRFflags})
		seq = append(seq, body...)
		seq = append(seq, I{Op: interp.OpCSRRW, Rs1: d, Imm: interp.CSRFflags})
		if rng.IntN(4) == 0 {
			seq = append(seq, I{Op: interp.OpADD, Rd: t, Rs1: t, Rs2: d})
		}
		return seq
	default: // a copy, then a use and an overwrite
		return []I{{Op: interp.OpADDI, Rd: d, Rs1: s, Imm: 0}, {Op: interp.OpSUB, Rd: t, Rs1: d, Rs2: s}, {Op: interp.OpXOR, Rd: d, Rs1: t, Rs2: s}}
	}
}

// randomState fills the registers; n is the program length (the jalr
// target is the final addi, or when wild sometimes the ecall or a
// misaligned address).
func randomState(rng *rand.Rand, x *[32]uint64, n int, wild bool) {
	randomIntState(rng, x, n, wild)
}

// randomFloatState fills the f registers with special and random values
// (singles NaN-boxed, mostly) and fcsr with a rounding mode and flags.
func randomFloatState(rng *rand.Rand, cpu *interp.CPU) {
	for i := range cpu.F {
		v := specialFloat(rng)
		if v>>32 == 0 && rng.IntN(8) != 0 {
			v |= 0xffffffff_00000000
		}
		cpu.F[i] = v
	}
	cpu.FCSR = uint64(rng.IntN(5))<<5 | uint64(rng.IntN(32))
}

func randomIntState(rng *rand.Rand, x *[32]uint64, n int, wild bool) {
	special := []uint64{0, 1, ^uint64(0), 1 << 63, 1<<63 - 1, 0x80000000, 0xffffffff, 2, 1 << 32, 1<<32 + 7}
	for i := 1; i < 32; i++ {
		if rng.IntN(3) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else {
			x[i] = rng.Uint64() >> (rng.IntN(4) * 16)
		}
	}
	x[regBase] = rvtest.MakeELFData + 2048 + uint64(rng.IntN(64))
	x[regBase2] = []uint64{rvtest.MakeELFData + 4096, stackData}[rng.IntN(2)] + uint64(rng.IntN(64))
	x[regJump] = rvtest.MakeELFText + 4*uint64(n)
	if wild {
		// Also just below the ends of the data and stack intervals, where
		// small offsets are in bounds and larger ones are not, so widened
		// checks fail while the first access of their group would pass.
		x[regBase2] = []uint64{0, 8, rvtest.MakeELFText, 1 << 40, ^uint64(0), guardGap, guardGap + 1<<20 - 8, stackData - 4096, guardGap - 8, 16<<20 - 8}[rng.IntN(10)]
		x[regJump] += []uint64{0, 4, 2}[rng.IntN(3)]
	}
}

// Addresses in the 16 MiB address space of loadSmall: in the stack (its
// 4 MiB below the top page), and the bottom of the 1 MiB guard gap under
// it, where every access faults.
const (
	stackData = 16<<20 - 2<<20
	guardGap  = 16<<20 - 4096 - 4<<20 - 1<<20
)

func randomData(rng *rand.Rand) []byte {
	b := make([]byte, dataSize)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func load(t *testing.T, img []byte) *interp.Machine {
	t.Helper()
	m := loadSmall(t, img)
	t.Cleanup(func() { m.Close() })
	return m
}

// loadSmall loads img into a 16 MiB address space (enough for MakeELF
// programs); the caller closes it.
func loadSmall(t *testing.T, img []byte) *interp.Machine {
	t.Helper()
	m, err := interp.Load(img, interp.Config{MemSize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNativeMatchesInterpreter records a trace of a random program on one
// register state, compiles it, runs the fragment on a second state (so
// branches go other ways and accesses may go wild), and checks that the
// exit it takes, the instructions it charged, the registers and the data
// memory all equal the interpreter's after the same number of steps.
func TestNativeMatchesInterpreter(t *testing.T) {
	for name, opts := range optionSets {
		t.Run(name, func(t *testing.T) { testNativeMatchesInterpreter(t, opts) })
	}
}

// optionSets are the compiler configurations every equivalence test runs:
// all optimizations, and each one switched off.
var optionSets = func() map[string]fragment.Options {
	sets := map[string]fragment.Options{"all": {}}
	none, _ := fragment.ParsePasses("none")
	sets["none"] = none
	for _, name := range fragment.PassNames() {
		var o fragment.Options
		if err := o.Disable(name); err != nil {
			panic(err)
		}
		sets["no-"+name] = o
	}
	return sets
}()

func testNativeMatchesInterpreter(t *testing.T, opts fragment.Options) {
	cache := newCache(t)
	rng := rand.New(rand.NewPCG(11, 12))
	exits := map[exit.Kind]int{}
	for iter := 0; iter < 1500; iter++ {
		if kind, ok := checkRandomTrace(t, cache, rng, opts, fmt.Sprintf("iter %d", iter)); ok {
			exits[kind]++
		}
	}
	t.Logf("exits taken: %v", exits)
	if exits[exit.Branch] == 0 || exits[exit.Interp] == 0 || exits[exit.Indirect] == 0 {
		t.Errorf("random programs did not exercise every exit kind: %v", exits)
	}
}

// FuzzNativeMatchesInterpreter is the equivalence check driven by the
// fuzzer: the two seeds pick the program, the states and the data, and
// the third input picks the compiler configuration.
func FuzzNativeMatchesInterpreter(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(0))
	f.Add(uint64(3), uint64(4), uint8(1))
	names := make([]string, 0, len(optionSets))
	for name := range optionSets {
		names = append(names, name)
	}
	sort.Strings(names)
	f.Fuzz(func(t *testing.T, s1, s2 uint64, cfg uint8) {
		cache := newCache(t)
		opts := optionSets[names[int(cfg)%len(names)]]
		checkRandomTrace(t, cache, rand.New(rand.NewPCG(s1, s2)), opts, "fuzz")
	})
}

func newCache(t *testing.T) *codecache.Cache {
	cache, err := codecache.New(codecache.Options{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	return cache
}

// checkRandomTrace records a random program on one state, runs its
// fragment on another and compares with the interpreter (see
// TestNativeMatchesInterpreter). It reports the exit taken, or false if
// the program produced no trace.
func checkRandomTrace(t *testing.T, cache *codecache.Cache, rng *rand.Rand, opts fragment.Options, what string) (exit.Kind, bool) {
	n := 1 + rng.IntN(60)
	words := randomProgram(rng, n)
	data := randomData(rng)
	img := rvtest.MakeELF(words, data, dataSize)

	// Machines are closed per program: a test makes thousands of them.
	rec := loadSmall(t, img)
	defer rec.Close()
	randomState(rng, &rec.CPU.X, n, false)
	randomFloatState(rng, rec.CPU)
	rec.CPU.PC = rvtest.MakeELFText
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	if err != nil {
		// A constant address out of bounds faults in every state: such a
		// trace is never recorded.
		return 0, false
	}
	if trace.Len() == 0 {
		return 0, false
	}
	code, err := fragment.Compile(trace, fragment.EnvOf(rec), opts)
	if err != nil {
		t.Fatal(err)
	}
	cache.Flush() // every program starts at the same address
	f, err := cache.Insert(code)
	if err != nil {
		t.Fatal(err)
	}

	native, ref := loadSmall(t, img), loadSmall(t, img)
	defer native.Close()
	defer ref.Close()
	st := new(fragment.State)
	native.UseCPU(&st.CPU)
	randomState(rng, &st.CPU.X, n, rng.IntN(4) == 0)
	randomFloatState(rng, &st.CPU)
	st.CPU.PC = rvtest.MakeELFText
	*ref.CPU = st.CPU

	st.Budget = 1 << 40
	e := cache.Enter(f, st, native.Mem.Base())
	retired := 1<<40 - st.Budget
	if int(retired) != e.Retired {
		t.Fatalf("%s: budget charged %d, exit record says %d", what, retired, e.Retired)
	}
	target := e.Target
	if e.Kind == exit.Indirect {
		target = st.CPU.PC
	}
	matchInterpreter(t, what, trace, ref, retired, e.Kind, target, st)
	if !bytes.Equal(native.Mem.Bytes(rvtest.MakeELFData, 2*dataSize), ref.Mem.Bytes(rvtest.MakeELFData, 2*dataSize)) {
		t.Fatalf("%s: data memory differs\n%s", what, dump(trace))
	}
	if !bytes.Equal(native.Mem.Bytes(stackData-4096, 8192), ref.Mem.Bytes(stackData-4096, 8192)) {
		t.Fatalf("%s: stack memory differs\n%s", what, dump(trace))
	}
	if e.Kind == exit.Interp {
		// The interpreter must be able to take it from here: it either
		// executes the instruction or reports the fault.
		ref.Step()
	}
	return e.Kind, true
}

// matchInterpreter steps ref, which starts from the state native code was
// entered with, as many instructions as native code retired, and fails
// unless it stops at target, where native code left through an exit of
// kind, with st's registers. what names the case; trace, if not nil, is
// dumped with a failure.
func matchInterpreter(t *testing.T, what string, trace *interp.Trace, ref *interp.Machine, retired int64, kind exit.Kind, target uint64, st *fragment.State) {
	t.Helper()
	listing := ""
	if trace != nil {
		listing = "\n" + dump(trace)
	}
	for k := int64(0); k < retired; k++ {
		if _, err := ref.Step(); err != nil {
			t.Fatalf("%s: interpreter faulted at step %d of %d: %v%s", what, k, retired, err, listing)
		}
	}
	if ref.CPU.PC != target {
		t.Fatalf("%s: native exit %v to 0x%x after %d, interpreter is at 0x%x%s", what, kind, target, retired, ref.CPU.PC, listing)
	}
	for r := 0; r < 32; r++ {
		if st.CPU.X[r] != ref.CPU.X[r] {
			t.Fatalf("%s: x%d native %#x interpreter %#x after %d instructions%s", what, r, st.CPU.X[r], ref.CPU.X[r], retired, listing)
		}
		if st.CPU.F[r] != ref.CPU.F[r] {
			t.Fatalf("%s: f%d native %#x interpreter %#x after %d instructions%s", what, r, st.CPU.F[r], ref.CPU.F[r], retired, listing)
		}
	}
	if st.CPU.Resv != ref.CPU.Resv {
		t.Fatalf("%s: reservation native %#x interpreter %#x after %d instructions%s", what, st.CPU.Resv, ref.CPU.Resv, retired, listing)
	}
	if st.CPU.FCSR != ref.CPU.FCSR {
		t.Fatalf("%s: fcsr native %#x interpreter %#x after %d instructions%s", what, st.CPU.FCSR, ref.CPU.FCSR, retired, listing)
	}
}

func dump(t *interp.Trace) string {
	var b bytes.Buffer
	for _, s := range t.Steps {
		b.WriteString("  ")
		b.WriteString(s.Inst.String())
		b.WriteString("\n")
	}
	return b.String()
}
