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
// of the group is still in bounds, and loops whose checks are hoisted to
// the entry (fragment/ir/checkhoist.go) and whose range leaves memory
// part-way: the fault must be the interpreter's, at the same pc, address
// and instruction count, in every configuration.

// widenConfigs are hardeningConfigs plus two delays with check widening,
// check hoisting, and both switched off.
func widenConfigs() map[string]rvdyn.Options {
	cfgs := hardeningConfigs()
	for _, d := range []int{3, 50} {
		for _, off := range []string{"checkwiden", "checkhoist", "checkwiden,checkhoist"} {
			o := rvdyn.Options{NET: net.Options{Delay: d}}
			for _, m := range strings.Split(off, ",") {
				if err := o.Disable(m); err != nil {
					panic(err)
				}
			}
			cfgs[fmt.Sprintf("no %s, delay %d", off, d)] = o
		}
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

// sumLoop returns a guest that runs the loop "a0 += ld 0(s0); s0 += step;
// while s0 != end" (gcc's shape for a pointer loop with an exact end,
// whose checks CheckHoist moves to the entry) rounds times, from start,
// and exits with a0. data is the guest's data segment.
func sumLoop(start, end, step int64, rounds int, data []byte) []byte {
	prog := cat(li(18, int64(rounds)), li(10, 0))
	outer := len(prog)
	prog = append(prog, cat(li(8, start), li(9, end))...)
	loop := len(prog)
	prog = append(prog,
		I{Op: interp.OpLD, Rd: 11, Rs1: 8},
		I{Op: interp.OpADD, Rd: 10, Rs1: 10, Rs2: 11},
		I{Op: interp.OpADDI, Rd: 8, Rs1: 8, Imm: step})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: 8, Rs2: 9, Imm: -4 * int64(len(prog)-loop)})
	prog = append(prog, I{Op: interp.OpADDI, Rd: 18, Rs1: 18, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: 18, Imm: -4 * int64(len(prog)-outer)})
	prog = append(prog, exitWith()...)
	return rvtest.MakeELF(words(prog...), data, 4096)
}

// hoisted compiles img's fragments and reports whether one of them
// checks a base once on entry.
func hoisted(t *testing.T, img []byte) bool {
	var listing bytes.Buffer
	run(t, img, rvdyn.Options{Listing: &listing, NET: net.Options{Delay: 3}})
	return strings.Contains(listing.String(), "loopcheck")
}

// TestHoistedLoop: a pointer loop over an array whose hoisted check
// passes runs natively without per-access checks and sums what the
// interpreter sums.
func TestHoistedLoop(t *testing.T) {
	data := make([]byte, 4096)
	want := 0
	for i := range data {
		data[i] = byte(i * 7)
		if i%8 == 0 {
			want += 20 * int(data[i]) // the exit status is the sum's low byte
		}
	}
	img := sumLoop(rvtest.MakeELFData, rvtest.MakeELFData+4096, 8, 20, data)
	if !hoisted(t, img) {
		t.Fatal("no fragment checks its loop on entry")
	}
	ref := agreeEverywhere(t, img, rvdyn.Options{}, widenConfigs())
	if ref.err != nil || ref.code != want&0xff {
		t.Fatalf("interp: exit %d, %v; want exit %d", ref.code, ref.err, want&0xff)
	}
}

// TestHoistedLoopWalksOffMemory: loops with an exact end whose range
// leaves guest memory part-way (off the top, below the bottom, and with
// an end the pointer never meets): the entry check fails, and the fault
// is the interpreter's, at the same pc, address and instruction count.
func TestHoistedLoopWalksOffMemory(t *testing.T) {
	probe := sumLoop(0, 8, 8, 1, nil)
	_, size := guardOf(t, probe)
	s := int64(size)
	cases := []struct {
		name             string
		start, end, step int64
		faultAddr        uint64
	}{
		{"off the top", s - 8*300, s + 8*100, 8, size},
		{"below the bottom", rvtest.MakeELFData + 8*300, -8 * 100, -8, 0},
		{"an end never met", s - 8*300, s + 4, 8, size},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := sumLoop(tc.start, tc.end, tc.step, 1, nil)
			if !hoisted(t, img) {
				t.Fatal("no fragment checks its loop on entry")
			}
			ref := agreeEverywhere(t, img, rvdyn.Options{}, widenConfigs())
			f := faultOf(ref.err)
			if f == nil || f.Kind != interp.FaultLoad || f.PC != rvtest.MakeELFText+4*8 || tc.faultAddr != 0 && f.Addr != tc.faultAddr {
				t.Fatalf("interp: %v; want a bad load address at pc %#x", ref.err, rvtest.MakeELFText+4*8)
			}
		})
	}
}

// searchReentered is a guest whose inner loop is a search ("for (p =
// s; p != s+n; p++) if (*p) break;") entered 400 times: n (1.5 GiB) reaches far
// past the data segment, but a nonzero byte ten bytes in ends every run
// of it. With the early-exit trip (ir.CheckHoistEarlyExits) the loop's
// entry check covers all n bytes and fails on every entry although no
// access leaves memory. Its exit status is the sum of the bytes found.
func searchReentered() []byte {
	const (
		zero, s1, a0, a2, a4, a5, a6 = 0, 9, 10, 12, 14, 15, 16
	)
	prog := cat(li(s1, 400), li(a2, 0))
	outer := len(prog)
	prog = append(prog, cat(li(a5, rvtest.MakeELFData), li(a6, rvtest.MakeELFData+3<<29))...)
	inner := len(prog)
	prog = append(prog,
		I{Op: interp.OpLBU, Rd: a4, Rs1: a5},
		I{Op: interp.OpBNE, Rs1: a4, Rs2: zero, Imm: 12}, // found: leave early
		I{Op: interp.OpADDI, Rd: a5, Rs1: a5, Imm: 1},
	)
	prog = append(prog, I{Op: interp.OpBNE, Rs1: a5, Rs2: a6, Imm: int64(4 * (inner - len(prog)))})
	prog = append(prog, I{Op: interp.OpADD, Rd: a2, Rs1: a2, Rs2: a4}) // found:
	prog = append(prog, I{Op: interp.OpADDI, Rd: s1, Rs1: s1, Imm: -1})
	prog = append(prog, I{Op: interp.OpBNE, Rs1: s1, Rs2: zero, Imm: int64(4 * (outer - len(prog)))})
	prog = append(prog, I{Op: interp.OpANDI, Rd: a0, Rs1: a2, Imm: 0x7f})
	prog = append(prog, exitWith()...)
	data := make([]byte, 4096)
	data[10] = 3
	return rvtest.MakeELF(words(prog...), data, 4096)
}

// TestEarlyExitTripFails: where the loop checks of a loop with early
// exits keep failing (its trip bound reaches out of memory, its other
// exit ends it long before), the head is compiled again without them
// after a bounded number of failures, and every configuration agrees
// with the interpreter.
func TestEarlyExitTripFails(t *testing.T) {
	checkEntryTestsGiveUp(t, searchReentered(), widenConfigs(), func(ref outcome) {
		if ref.code != 400*3&0x7f {
			t.Fatalf("interp: exit status %d, want %d", ref.code, 400*3&0x7f)
		}
	})
}
