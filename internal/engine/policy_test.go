// Tests of the cache policies in whole runs: programs that defeat the code cache -> bail-out, or a head left to the interpreter.

package engine

import (
	"bytes"
	"encoding/binary"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/codecache"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// manyLoops returns a program of n distinct loops, each iterating k times,
// then exit(0): code whose fragments are built and then barely reused.
func manyLoops(n, k int) []byte {
	enc := rvtest.Encode
	type I = interp.Inst
	var w []uint32
	for i := 0; i < n; i++ {
		w = append(w,
			enc(I{Op: interp.OpADDI, Rd: 5, Imm: int64(k)}),   // t0 = k
			enc(I{Op: interp.OpADDI, Rd: 6, Rs1: 6, Imm: 1}),  // loop: t1++
			enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}), //       t0--
			enc(I{Op: interp.OpBNE, Rs1: 5, Rs2: 0, Imm: -8})) //       bnez t0, loop
	}
	w = append(w, enc(I{Op: interp.OpADDI, Rd: 10}), enc(I{Op: interp.OpADDI, Rd: 17, Imm: 93}), enc(I{Op: interp.OpECALL}))
	return rvtest.MakeELF(w, nil, 4096)
}

func TestBailOut(t *testing.T) {
	img := manyLoops(3000, 60)
	run := func(p codecache.PolicyOptions, mode Mode) Stats {
		opts := Options{Mode: mode, NET: net.Options{Delay: 50}, Policy: p}
		opts.Stdout = &bytes.Buffer{}
		vm, err := New(img, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		if code, err := vm.Run(); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		return vm.Stats()
	}
	ref := run(codecache.PolicyOptions{}, ModeInterp)
	bail := run(codecache.PolicyOptions{Window: 20000, BailWindows: 3}, ModeDynamo)
	if bail.BailedOutAt == 0 || bail.BailedOutAt > 5*20000 {
		t.Errorf("did not bail out early: at %d, cache share %.1f%%", bail.BailedOutAt, bail.CachePercent())
	}
	stay := run(codecache.PolicyOptions{Window: 20000, BailWindows: 3, NoBailout: true}, ModeDynamo)
	if stay.BailedOutAt != 0 || stay.Fragments < 3000 {
		t.Errorf("NoBailout: bailed out at %d, %d fragments", stay.BailedOutAt, stay.Fragments)
	}
	for _, s := range []Stats{bail, stay} {
		if s.GuestInstructions != ref.GuestInstructions {
			t.Errorf("%d guest instructions, interpreter %d", s.GuestInstructions, ref.GuestInstructions)
		}
	}
}

// TestFragmentLargerThanCache runs a loop whose trace compiles to more
// code than the whole cache holds: the head stays interpreted and the run
// still ends normally.
func TestFragmentLargerThanCache(t *testing.T) {
	enc := rvtest.Encode
	type I = interp.Inst
	// t1 points at a data word holding its own address, so each load of
	// the body gives a new base value whose check no pass can drop.
	w := []uint32{enc(I{Op: interp.OpADDI, Rd: 5, Imm: 100}), enc(I{Op: interp.OpLUI, Rd: 6, Imm: rvtest.MakeELFData})}
	for i := 0; i < 400; i++ { // loop body: 400 loads and adds
		w = append(w, enc(I{Op: interp.OpLD, Rd: 6, Rs1: 6}), enc(I{Op: interp.OpADD, Rd: 7, Rs1: 7, Rs2: 6}))
	}
	w = append(w,
		enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}),
		enc(I{Op: interp.OpBNE, Rs1: 5, Rs2: 0, Imm: -4 * 801}),
		enc(I{Op: interp.OpADDI, Rd: 10}), enc(I{Op: interp.OpADDI, Rd: 17, Imm: 93}), enc(I{Op: interp.OpECALL}))
	data := binary.LittleEndian.AppendUint64(nil, rvtest.MakeELFData)
	vm, err := New(rvtest.MakeELF(w, data, 4096), Options{NET: net.Options{Delay: 2, MaxTraceLen: 2000}, Cache: codecache.Options{Size: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if code, err := vm.Run(); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if st := vm.Stats(); st.TooLarge == 0 {
		t.Errorf("no trace was too large: %+v", st)
	}
}

// TestPhaseFlushKeeps runs the Scheme guest (small) with windows short
// enough that its programs show as phases. The default phase flush keeps
// the fragments of the burst's window and removes the older ones
// without a whole-cache flush, backs off once its removals come back,
// and so builds fewer fragments than the paper's whole-cache flush at
// every phase change; all three agree with the interpreter.
func TestPhaseFlushKeeps(t *testing.T) {
	image, err := corpus.ELF("scheme")
	if err != nil {
		t.Fatal(err)
	}
	args := corpus.Args("scheme", corpus.Small)
	run := func(mode Mode, p codecache.PolicyOptions) (string, Stats) {
		var out bytes.Buffer
		opts := Options{Mode: mode, Policy: p}
		opts.Stdout, opts.Args = &out, args
		vm, err := New(image, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		if code, err := vm.Run(); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		return out.String(), vm.Stats()
	}
	refOut, ref := run(ModeInterp, codecache.PolicyOptions{})
	win := codecache.PolicyOptions{Window: 1 << 16, PhaseMinBurst: 4, NoBailout: true}
	keepOut, keep := run(ModeDynamo, win)
	win.FullPhaseFlush = true
	fullOut, full := run(ModeDynamo, win)
	t.Logf("keep: %d phase flushes, %d removed, %d back-offs, %d fragments; full: %d phase flushes, %d fragments",
		keep.PhaseFlushes, keep.PhaseRemoved, keep.PhaseBackoffs, keep.Fragments, full.PhaseFlushes, full.Fragments)
	if keep.PhaseFlushes == 0 || keep.PhaseRemoved == 0 || keep.PhaseBackoffs == 0 {
		t.Errorf("keep: %d phase flushes, %d fragments removed, %d back-offs; want some of each", keep.PhaseFlushes, keep.PhaseRemoved, keep.PhaseBackoffs)
	}
	if keep.Flushes != keep.PhaseFlushes || keep.PhaseRemoved >= keep.Fragments {
		t.Errorf("keep: %d flushes for %d phase flushes, %d of %d fragments removed: a whole-cache flush happened",
			keep.Flushes, keep.PhaseFlushes, keep.PhaseRemoved, keep.Fragments)
	}
	if full.PhaseFlushes <= keep.PhaseFlushes || full.PhaseRemoved != 0 || full.Fragments <= keep.Fragments {
		t.Errorf("full: %d phase flushes, %d fragments (keep: %d, %d); want more of both",
			full.PhaseFlushes, full.Fragments, keep.PhaseFlushes, keep.Fragments)
	}
	for _, s := range []Stats{keep, full} {
		if s.GuestInstructions != ref.GuestInstructions {
			t.Errorf("%d guest instructions, interpreter %d", s.GuestInstructions, ref.GuestInstructions)
		}
	}
	if keepOut != refOut || fullOut != refOut {
		t.Errorf("output differs from the interpreter's")
	}
}
