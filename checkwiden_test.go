package rvdyn_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// Hand-made guests whose hot loops carry widened bounds checks
// (fragment/ir/checkwiden.go) that start to fail while the first access
// of the group is still in bounds: the fault must be the interpreter's,
// at the same pc, address and instruction count, in every configuration.

// widenConfigs are hardeningConfigs plus the same delays with check
// widening switched off.
func widenConfigs() map[string]rvdyn.Options {
	cfgs := hardeningConfigs()
	for _, d := range []int{3, 50} {
		o := rvdyn.Options{NET: net.Options{Delay: d}}
		if err := o.Disable("checkwiden"); err != nil {
			panic(err)
		}
		cfgs[fmt.Sprintf("no checkwiden, delay %d", d)] = o
	}
	return cfgs
}

// walk returns a guest that sets s0 = start and then loops forever:
// for each of offs, a0 += ld off(s0); s0 += step. Some access faults
// once s0 nears the end of its interval. Offsets must fit an
// immediate (-2048..2047).
func walk(start int64, step int64, offs ...int64) []byte {
	prog := cat(li(8, start), li(10, 0))
	loop := len(prog)
	for _, off := range offs {
		prog = append(prog,
			I{Op: interp.OpLD, Rd: 11, Rs1: 8, Imm: off},
			I{Op: interp.OpADD, Rd: 10, Rs1: 10, Rs2: 11})
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 8, Rs1: 8, Imm: step})
	prog = append(prog, I{Op: interp.OpJAL, Imm: -4 * int64(len(prog)-loop)})
	return rvtest.MakeELF(words(prog...), []byte("data"), 4096)
}

// guardOf returns the limits of the default guest memory of img.
func guardOf(t *testing.T, img []byte) (guardLo, size uint64) {
	t.Helper()
	m, err := interp.Load(img, interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lo, _ := m.Mem.Guard()
	return lo, m.Mem.Size()
}

// widened compiles img's fragments with the default options and reports
// whether one of them carries a widened check.
func widened(t *testing.T, img []byte) bool {
	var listing bytes.Buffer
	o := rvdyn.Options{Listing: &listing, NET: net.Options{Delay: 3}}
	run(t, img, o)
	return strings.Contains(listing.String(), " check ")
}

// TestWidenedCheckFailsFirstAccessInBounds: a pointer walks up the data
// interval towards the guard gap; each iteration loads at +8 and at
// +2040 (the widest immediate). The widened check of the first load
// covers both; it fails once +2040 reaches the guard gap while +8 is
// still in bounds, and the
// fragment must leave before the first load, so that the interpreter
// faults at the second one.
func TestWidenedCheckFailsFirstAccessInBounds(t *testing.T) {
	probe := walk(0, 8, 8, 2040)
	guardLo, _ := guardOf(t, probe)
	const iters = 500
	img := walk(int64(guardLo)-2040-8*iters, 8, 8, 2040)
	if !widened(t, img) {
		t.Fatal("no fragment of the walk carries a widened check")
	}
	ref := agreeEverywhere(t, img, rvdyn.Options{}, widenConfigs())
	f := faultOf(ref.err)
	second := uint64(rvtest.MakeELFText + 4*4 + 4*2) // the load at +2040
	if f == nil || f.Kind != interp.FaultLoad || f.PC != second || f.Addr != guardLo {
		t.Fatalf("interp: %v; want a bad load address %#x at pc %#x", ref.err, guardLo, second)
	}
}

// TestLoopWalksOffMemory: the loop's three loads per iteration share one
// widened check; the pointer walks off the top of the stack interval (the
// end of guest memory) in the middle of an iteration, so the check fails
// at the iteration's first load while the fault belongs to its second.
func TestLoopWalksOffMemory(t *testing.T) {
	probe := walk(0, 24, 0, 8, 16)
	_, size := guardOf(t, probe)
	const iters = 400
	// s0 reaches size-8 after iters iterations: 0(s0) is in bounds, 8(s0)
	// is the first address past the end.
	img := walk(int64(size)-8-24*iters, 24, 0, 8, 16)
	if !widened(t, img) {
		t.Fatal("no fragment of the walk carries a widened check")
	}
	ref := agreeEverywhere(t, img, rvdyn.Options{}, widenConfigs())
	f := faultOf(ref.err)
	second := uint64(rvtest.MakeELFText + 4*4 + 4*2)
	if f == nil || f.Kind != interp.FaultLoad || f.PC != second || f.Addr != size {
		t.Fatalf("interp: %v; want a bad load address %#x at pc %#x", ref.err, size, second)
	}
	if ref.insts != 4+iters*8+2 {
		t.Errorf("interp retired %d instructions before the fault, want %d", ref.insts, 4+iters*8+2)
	}
}

// TestSteppedPointerWalksOffMemory: the pointer advances between the
// loads of an iteration (ld 0(s0); s0 += 8; ld 0(s0); s0 += 8), so the
// loads share a check off the value s0 had at the iteration's start; it
// walks off the end of guest memory at the second load of an iteration.
func TestSteppedPointerWalksOffMemory(t *testing.T) {
	stepped := func(start int64) []byte {
		prog := cat(li(8, start), li(10, 0))
		loop := len(prog)
		for range 2 {
			prog = append(prog,
				I{Op: interp.OpLD, Rd: 11, Rs1: 8},
				I{Op: interp.OpADD, Rd: 10, Rs1: 10, Rs2: 11},
				I{Op: interp.OpADDI, Rd: 8, Rs1: 8, Imm: 8})
		}
		prog = append(prog, I{Op: interp.OpJAL, Imm: -4 * int64(len(prog)-loop)})
		return rvtest.MakeELF(words(prog...), []byte("data"), 4096)
	}
	_, size := guardOf(t, stepped(0))
	const iters = 300
	img := stepped(int64(size) - 8 - 16*iters)
	if !widened(t, img) {
		t.Fatal("no fragment of the walk carries a widened check")
	}
	ref := agreeEverywhere(t, img, rvdyn.Options{}, widenConfigs())
	f := faultOf(ref.err)
	second := uint64(rvtest.MakeELFText + 4*4 + 4*3)
	if f == nil || f.Kind != interp.FaultLoad || f.PC != second || f.Addr != size {
		t.Fatalf("interp: %v; want a bad load address %#x at pc %#x", ref.err, size, second)
	}
	if want := uint64(4 + iters*7 + 3); ref.insts != want {
		t.Errorf("interp retired %d instructions before the fault, want %d", ref.insts, want)
	}
}
