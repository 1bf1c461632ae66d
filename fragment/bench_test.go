package fragment_test

import (
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// guestTraces records the first n traces of a guest the way the dispatcher
// would (every backward-branch target is a head).
func guestTraces(b testing.TB, name, size string, n int) ([]*interp.Trace, fragment.Env) {
	return guestTracesOf(b, name, corpus.IM, size, n)
}

// guestTracesOf is guestTraces for the guest's build of flavor f.
func guestTracesOf(b testing.TB, name string, f corpus.Flavor, size string, n int) ([]*interp.Trace, fragment.Env) {
	img, err := corpus.ELFOf(name, f)
	if err != nil {
		b.Fatal(err)
	}
	m, err := interp.Load(img, interp.Config{Args: []string{name, size}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	seen := map[uint64]bool{}
	var traces []*interp.Trace
	for len(traces) < n && !m.Exited() {
		stop, err := m.RunUntil(1<<20, interp.StopsAll)
		if err != nil {
			b.Fatal(err)
		}
		if stop != interp.StopBackward || seen[m.CPU.PC] {
			continue
		}
		seen[m.CPU.PC] = true
		t, _, err := net.Record(m, net.DefaultMaxTraceLen, func(pc uint64) bool { return seen[pc] })
		if err != nil {
			b.Fatal(err)
		}
		if t.Len() > 0 {
			traces = append(traces, t)
		}
	}
	return traces, fragment.EnvOf(m)
}

// BenchmarkCompile measures trace -> machine code, per fragment and per
// guest instruction, with the IR verifier after every pass (as the tests
// run, see TestMain).
func BenchmarkCompile(b *testing.B) { benchmarkCompile(b) }

// BenchmarkCompileUnverified is BenchmarkCompile without the verifier, as
// rvdyn compiles.
func BenchmarkCompileUnverified(b *testing.B) {
	fragment.VerifyPasses(false)
	defer fragment.VerifyPasses(true)
	benchmarkCompile(b)
}

// BenchmarkCompileFloat is BenchmarkCompileUnverified on the first
// traces of RV64GC fft (glibc's start-up, then double-precision loops).
func BenchmarkCompileFloat(b *testing.B) {
	fragment.VerifyPasses(false)
	defer fragment.VerifyPasses(true)
	traces, env := guestTracesOf(b, "fft", corpus.GC, "256", 100)
	benchmarkCompileTraces(b, traces, env)
}

func benchmarkCompile(b *testing.B) {
	traces, env := guestTraces(b, "strings", "4000", 100)
	benchmarkCompileTraces(b, traces, env)
}

func benchmarkCompileTraces(b *testing.B, traces []*interp.Trace, env fragment.Env) {
	insts := 0
	for _, t := range traces {
		insts += t.Len()
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range traces {
			if _, err := fragment.Compile(t, env, fragment.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(per/float64(len(traces))*1e6, "µs/fragment")
	b.ReportMetric(per/float64(insts)*1e9, "ns/guest-inst")
}

// singleFragment compiles words (recorded from the entry with regs) into
// a cache and returns everything needed to enter it.
func singleFragment(b *testing.B, words []uint32, regs map[int]uint64) (*codecache.Cache, *codecache.Fragment, *interp.Machine, *fragment.State) {
	img := rvtest.MakeELF(words, nil, 4096)
	m, err := interp.Load(img, interp.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	for r, v := range regs {
		m.CPU.X[r] = v
	}
	t, _, err := net.Record(m, 100, func(uint64) bool { return false })
	if err != nil {
		b.Fatal(err)
	}
	code, err := fragment.Compile(t, fragment.EnvOf(m), fragment.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := codecache.New(codecache.Options{Size: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	f, err := c.Insert(code)
	if err != nil {
		b.Fatal(err)
	}
	st := new(fragment.State)
	m.UseCPU(&st.CPU)
	for r, v := range regs {
		st.CPU.X[r] = v
	}
	return c, f, m, st
}

// BenchmarkRoundTrip measures one dispatcher round trip: enter native code
// through the trampoline, run one instruction, leave through an unlinked
// exit stub.
func BenchmarkRoundTrip(b *testing.B) {
	enc := rvtest.Encode
	c, f, m, st := singleFragment(b, []uint32{
		enc(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		enc(interp.Inst{Op: interp.OpECALL}),
	}, nil)
	for b.Loop() {
		st.Budget = 1 << 40
		c.Enter(f, st, m.Mem.Base())
	}
}

// BenchmarkIndirectLookup measures a jalr whose target differs from the
// recorded one and is found in the lookup table: a fragment that jumps
// through a register back to its own entry, so each iteration is one
// table hit, until the budget runs out.
func BenchmarkIndirectLookup(b *testing.B) {
	const T = rvtest.MakeELFText
	enc := rvtest.Encode
	// Recorded with s0 pointing at the ecall; run with s0 = T, so the jalr
	// misses its inline check and looks T up in the table every time.
	c, f, m, st := singleFragment(b, []uint32{
		enc(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		enc(interp.Inst{Op: interp.OpJALR, Rd: 0, Rs1: 8}),
		enc(interp.Inst{Op: interp.OpECALL}),
	}, map[int]uint64{8: T + 8})
	st.CPU.X[8] = T
	const perEntry = 1 << 20
	for b.Loop() {
		st.Budget = 2 * perEntry
		c.Enter(f, st, m.Mem.Base())
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/perEntry*1e9, "ns/lookup")
}
