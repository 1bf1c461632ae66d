package fragment_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"rvdyn/fragment"
	"rvdyn/fragment/exit"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
	"rvdyn/profhw/rpa"
)

// Registers of the byte loops, as picolibc's memset and memcpy use them.
const (
	bulkDst = 6  // t1
	bulkSrc = 11 // a1: a copy's source, a fill's byte
	bulkN   = 12 // a2
	bulkTmp = 7  // t2: a copy's byte
)

// Registers of glibc's loops that run to an end pointer, as its memcpy
// (the bytes after the words) and memset (the words) use them.
const (
	endPtr  = 15 // a5: the copy's source, the fill's destination
	endDist = 14 // a4: the copy's distance to the destination less one, the fill's word
	endTmp  = 12 // a2: the copy's byte
	endDst  = 13 // a3: the copy's destination; the fill's end
	endEnd  = 11 // a1: the copy's end
)

// A bulkShape is one of the loops bulk recognizes.
type bulkShape int

const (
	picoFill  bulkShape = iota // picolibc's memset: count down
	picoCopy                   // picolibc's memcpy: count down
	glibcCopy                  // glibc's memcpy tail: a source pointer to an end, the destination at a distance
	glibcWord                  // glibc's memset: words to an end pointer
)

func (s bulkShape) String() string {
	return [...]string{"fill", "copy", "copy to end", "word fill to end"}[s]
}

// glibcLoop returns glibc's copy to an end (copy true) or word fill
// loop, then an exit ecall.
func glibcLoop(copy bool) []uint32 {
	type I = interp.Inst
	prog := []I{
		{Op: interp.OpSD, Rs1: endPtr, Rs2: endDist},
		{Op: interp.OpADDI, Rd: endPtr, Rs1: endPtr, Imm: 8},
		{Op: interp.OpBNE, Rs1: endPtr, Rs2: endDst, Imm: -8},
	}
	if copy {
		prog = []I{
			{Op: interp.OpLBU, Rd: endTmp, Rs1: endPtr},
			{Op: interp.OpADDI, Rd: endPtr, Rs1: endPtr, Imm: 1},
			{Op: interp.OpADD, Rd: endDst, Rs1: endDist, Rs2: endPtr},
			{Op: interp.OpSB, Rs1: endDst, Rs2: endTmp},
			{Op: interp.OpBNE, Rs1: endEnd, Rs2: endPtr, Imm: -16},
		}
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 17, Imm: 93}, I{Op: interp.OpECALL})
	return rvtest.EncodeAll(prog)
}

// setBulk sets the registers of a loop of shape s to fill or copy n
// bytes (words) at dst from src, the fill's byte or word v.
func setBulk(x *[32]uint64, s bulkShape, dst, src, n, v uint64) {
	switch s {
	case picoFill:
		x[bulkDst], x[bulkSrc], x[bulkN] = dst, v, n
	case picoCopy:
		x[bulkDst], x[bulkSrc], x[bulkN] = dst, src, n
	case glibcCopy:
		x[endPtr], x[endDist], x[endEnd] = src, dst-src-1, src+n
	case glibcWord:
		x[endPtr], x[endDist], x[endDst] = dst, v, dst+8*n
	}
}

// byteLoop returns picolibc's byte-at-a-time memset (copy false) or
// memcpy loop, then an exit ecall.
func byteLoop(copy bool) []uint32 {
	type I = interp.Inst
	var prog []I
	if copy {
		prog = append(prog, I{Op: interp.OpLB, Rd: bulkTmp, Rs1: bulkSrc})
		prog = append(prog, I{Op: interp.OpSB, Rs1: bulkDst, Rs2: bulkTmp})
	} else {
		prog = append(prog, I{Op: interp.OpSB, Rs1: bulkDst, Rs2: bulkSrc})
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: bulkN, Rs1: bulkN, Imm: -1}, I{Op: interp.OpADDI, Rd: bulkDst, Rs1: bulkDst, Imm: 1})
	if copy {
		prog = append(prog, I{Op: interp.OpADDI, Rd: bulkSrc, Rs1: bulkSrc, Imm: 1})
	}
	prog = append(prog, I{Op: interp.OpBNE, Rs1: bulkN, Rs2: 0, Imm: -4 * int64(len(prog))})
	prog = append(prog, I{Op: interp.OpADDI, Rd: 17, Imm: 93}, I{Op: interp.OpECALL})
	return rvtest.EncodeAll(prog)
}

// TestBulkMatchesInterpreter compiles byte fill and copy loops, checks
// that they are recognized (unless bulk is switched off), and runs them
// natively against the interpreter: counts around the bulk threshold and
// far above it, budgets that cut the bulk part short or leave none,
// copies that overlap either way (the loop repeats bytes: so must the
// string instruction), and a destination that runs off the end of memory
// (the entry check leaves before anything is written). The exit, the
// instructions charged, the registers and memory must equal the
// interpreter's after as many instructions.
func TestBulkMatchesInterpreter(t *testing.T) {
	for name, opts := range optionSets {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			for _, shape := range []bulkShape{picoFill, picoCopy, glibcCopy, glibcWord} {
				copy := shape == picoCopy || shape == glibcCopy
				for _, n := range []uint64{1, 2, 15, 16, 17, 18, 40, 1000, 5000} {
					for _, budget := range []int64{1, 5, 64, 131, 4000, 1 << 20} {
						for _, overlap := range []int64{0, 1, 3, -1, -5, 64, 4096} {
							if !copy && overlap != 0 {
								continue
							}
							what := fmt.Sprintf("%v n %d budget %d overlap %d", shape, n, budget, overlap)
							checkBulk(t, rng, opts, shape, n, budget, overlap, false, 0, what)
						}
					}
				}
				for _, budget := range []int64{100, 1 << 20} {
					checkBulk(t, rng, opts, shape, 3000, budget, 4096, true, 0, fmt.Sprintf("%v off the end, budget %d", shape, budget))
				}
				// The relational profiler samples the guard: bulk
				// iterations stop short of the sampled execution.
				for _, n := range []uint64{16, 40, 1000} {
					for _, cd := range []uint64{1, 2, 16, 17, 18, 39, 40, 41, 500, 1 << 30} {
						what := fmt.Sprintf("%v n %d sampled, countdown %d", shape, n, cd)
						checkBulk(t, rng, opts, shape, n, 1<<20, 0, false, cd, what)
					}
				}
			}
		})
	}
}

// checkBulk compiles and checks one byte loop (TestBulkMatchesInterpreter).
// A countdown above 0 has the loop's branch selected by the relational
// profiler (sampling countdown 0 starting there): the native run must
// leave through the sample exit exactly at the countdown's execution, or
// end the loop first with the countdown lowered by the executions.
func checkBulk(t *testing.T, rng *rand.Rand, opts fragment.Options, shape bulkShape, n uint64, budget, overlap int64, wild bool, countdown uint64, what string) {
	t.Helper()
	copy := shape == picoCopy || shape == glibcCopy
	prog := byteLoop(copy)
	if shape >= glibcCopy {
		prog = glibcLoop(copy)
	}
	img := rvtest.MakeELF(prog, randomData(rng), dataSize)
	mid := uint64(rvtest.MakeELFData + 1024)
	rec := loadSmall(t, img)
	defer rec.Close()
	setBulk(&rec.CPU.X, shape, mid, mid+4096, 64, 0)
	rec.CPU.PC = rvtest.MakeELFText
	trace, _, err := net.Record(rec, 1000, func(uint64) bool { return false })
	if err != nil {
		t.Fatalf("%s: recording: %v", what, err)
	}
	var sampler fragment.Sampler
	if countdown > 0 {
		sampler = func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) { return 0, nil, in.IsBranch() }
	}
	code, err := fragment.CompileSampled(trace, fragment.EnvOf(rec), opts, sampler)
	if err != nil {
		t.Fatal(err)
	}
	want := shape.String()
	if opts.NoBulk || opts.NoCheckHoist {
		want = "" // no bulk, or no hoisted checks to prove the range
	}
	if code.Bulk != want {
		t.Fatalf("%s: compiled as %q, want %q\n%s", what, code.Bulk, want, dump(trace))
	}
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
	dst, src := mid, uint64(int64(mid)+overlap)
	if wild {
		dst = guardGap - 1000 // the last 2000 bytes fault
	}
	setBulk(&st.CPU.X, shape, dst, src, n, rng.Uint64()) // a fill's byte is the low 8 bits
	if shape == picoCopy {
		st.CPU.X[bulkTmp] = rng.Uint64()
	}
	if shape == glibcCopy { // the byte and the destination: dead at the head
		st.CPU.X[endTmp], st.CPU.X[endDst] = rng.Uint64(), rng.Uint64()
	}
	st.CPU.PC = rvtest.MakeELFText
	*ref.CPU = st.CPU

	st.Budget = budget
	st.Countdown[0] = countdown
	e := cache.Enter(f, st, native.Mem.Base())
	retired := budget - st.Budget
	sampled := countdown > 0 && countdown <= n // the loop runs into the sample
	if countdown > 0 {
		// Every iteration retires one branch, the last instruction.
		iters := uint64(retired) / uint64(trace.Len())
		switch {
		case e.Kind == exit.Sample && (iters != countdown-1 || st.Countdown[0] != 1):
			t.Fatalf("%s: sample exit after %d branches, countdown %d", what, iters, st.Countdown[0])
		case e.Kind != exit.Sample && (iters >= countdown || st.Countdown[0] != countdown-iters):
			t.Fatalf("%s: %v exit after %d branches, countdown %d", what, e.Kind, iters, st.Countdown[0])
		case e.Kind != exit.Sample && sampled:
			t.Fatalf("%s: %v exit after %d branches: the sample was missed", what, e.Kind, iters)
		}
	}
	if st.Budget <= -int64(trace.Len()) {
		t.Fatalf("%s: budget %d left of %d: native code overshot it by more than one iteration", what, st.Budget, budget)
	}
	if !wild && budget >= 1<<20 && e.Kind != exit.Branch && !(sampled && e.Kind == exit.Sample) {
		t.Errorf("%s: left through a %v exit, want the loop's end", what, e.Kind)
	}
	matchInterpreter(t, what, nil, ref, retired, e.Kind, e.Target, st)
	if !bytes.Equal(native.Mem.Bytes(rvtest.MakeELFData, 2*dataSize), ref.Mem.Bytes(rvtest.MakeELFData, 2*dataSize)) {
		t.Fatalf("%s: data memory differs after %d instructions", what, retired)
	}
	if !bytes.Equal(native.Mem.Bytes(guardGap-4096, 4096), ref.Mem.Bytes(guardGap-4096, 4096)) {
		t.Fatalf("%s: memory below the guard gap differs", what)
	}
}
