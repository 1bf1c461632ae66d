// The mappings' fast interval after munmaps: memory between two holes keeps one, and Config.Unprotected keeps every interval whole.

package interp_test

import (
	"testing"

	"rvdyn/interp"
)

// TestMapRunBetweenHoles maps three blocks bottom up (c, b, a), unmaps
// the lowest (the heap's interval now ends at c's hole) and then the
// highest: the mappings' interval must then hold b, which lies between
// the two holes, and neither hole. Before, the interval always ended at
// the guard gap, so b was left to the access table.
func TestMapRunBetweenHoles(t *testing.T) {
	const n = 64 << 10
	m := ecallMachine(t, interp.Config{})
	mmap := func() uint64 { return call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0) }
	c, b, a := mmap(), mmap(), mmap()
	if !(c+n == b && b+n == a) {
		t.Fatalf("mappings at %#x, %#x, %#x: want them adjacent, bottom up", c, b, a)
	}
	cuts := m.IntervalCuts()
	if r := call(t, m, interp.SysMunmap, c, n); r != 0 {
		t.Fatalf("munmap c: %d", int64(r))
	}
	if m.IntervalCuts() != cuts+1 {
		t.Errorf("munmap below b and a: %d cuts, want %d", m.IntervalCuts(), cuts+1)
	}
	// Below b lies c's hole; above a, until a is unmapped, only pages
	// never mapped, which count as accessible up to the guard gap.
	guard, _ := m.Mem.Guard()
	holds := func(what string, lo, hi, x, y, top uint64) {
		t.Helper()
		if lo > x || hi < y {
			t.Errorf("%s: mappings' interval [%#x, %#x) does not hold [%#x, %#x)", what, lo, hi, x, y)
		}
		if lo < b || hi > top {
			t.Errorf("%s: mappings' interval [%#x, %#x) reaches a hole", what, lo, hi)
		}
	}
	rl, rh, wl, wh := m.MapRuns()
	holds("after munmap c, loads", rl, rh, b, a+n, guard)
	holds("after munmap c, stores", wl, wh, b, a+n, guard)
	if r := call(t, m, interp.SysMunmap, a, n); r != 0 {
		t.Fatalf("munmap a: %d", int64(r))
	}
	rl, rh, wl, wh = m.MapRuns()
	holds("after munmap a, loads", rl, rh, b, b+n, a)
	holds("after munmap a, stores", wl, wh, b, b+n, a)
	for _, x := range []uint64{a, c} {
		if m.Mem.SlowOK(x, 8, interp.AccR) {
			t.Errorf("%#x: readable after munmap", x)
		}
	}
	// Read-only b: stores lose it, loads keep it.
	if r := call(t, m, 226, b, n, 1); r != 0 { // mprotect PROT_READ
		t.Fatalf("mprotect b: %d", int64(r))
	}
	rl, rh, wl, wh = m.MapRuns()
	holds("read-only b, loads", rl, rh, b, b+n, a)
	if wl < wh && wl < b+n && wh > b {
		t.Errorf("stores' mappings' interval [%#x, %#x) holds read-only b", wl, wh)
	}
}

// TestFreeLastMappedKeepsInterval is glibc's sort: two arrays mapped,
// a scratch buffer mapped after them and freed first. Its munmap leaves
// a hole with nothing mapped above it, so the heap's interval, which
// ends at the hole, still holds the arrays and the brk heap: no cut.
// (Mappings handed out top down put the scratch buffer below the arrays,
// and its hole cut them off from the brk heap.)
func TestFreeLastMappedKeepsInterval(t *testing.T) {
	const n = 1 << 20
	m := ecallMachine(t, interp.Config{})
	mmap := func() uint64 { return call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0) }
	a, b, scratch := mmap(), mmap(), mmap()
	cuts := m.IntervalCuts()
	if r := call(t, m, interp.SysMunmap, scratch, n); r != 0 {
		t.Fatalf("munmap: %d", int64(r))
	}
	if m.IntervalCuts() != cuts {
		t.Errorf("munmap of the block mapped last cut an interval (%d cuts, want %d)", m.IntervalCuts(), cuts)
	}
	if m.Mem.SlowOK(scratch, 8, interp.AccR) {
		t.Errorf("%#x: readable after munmap", scratch)
	}
	writeHi := m.HeapWriteHi()
	if writeHi < max(a, b)+n {
		t.Errorf("the heap's store interval ends at %#x, below the arrays at %#x and %#x", writeHi, a, b)
	}
}

// TestMappedRunLost: blocks a, b, c mapped bottom up; unmapping b cuts
// the heap's interval (c is stranded above the hole) and makes c the
// mappings' interval; unmapping c then takes that interval's pages,
// which must count as a cut too: code compiled to test c's interval
// first would otherwise test it first for good (RV64GC strings: 245
// million first tests missed a run).
func TestMappedRunLost(t *testing.T) {
	const n = 64 << 10
	m := ecallMachine(t, interp.Config{})
	mmap := func() uint64 { return call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0) }
	_, b, c := mmap(), mmap(), mmap()
	cuts := m.IntervalCuts()
	call(t, m, interp.SysMunmap, b, n)
	if m.IntervalCuts() != cuts+1 {
		t.Fatalf("munmap b below c: %d cuts, want %d", m.IntervalCuts(), cuts+1)
	}
	if _, _, wl, wh := m.MapRuns(); wl > c || wh < c+n {
		t.Fatalf("mappings' interval [%#x, %#x) does not hold c at %#x", wl, wh, c)
	}
	call(t, m, interp.SysMunmap, c, n)
	if m.IntervalCuts() != cuts+2 {
		t.Errorf("munmap c, the mappings' interval: %d cuts, want %d", m.IntervalCuts(), cuts+2)
	}
}

// TestUnprotected checks Config.Unprotected, the switch that measures
// what protection costs: a munmap'd page stays accessible and no
// interval is cut.
func TestUnprotected(t *testing.T) {
	const n = 64 << 10
	m := ecallMachine(t, interp.Config{Unprotected: true})
	a := call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0)
	b := call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0)
	cuts := m.IntervalCuts()
	if r := call(t, m, interp.SysMunmap, b, n); r != 0 {
		t.Fatalf("munmap: %d", int64(r))
	}
	if r := call(t, m, 226, a, n, 0); r != 0 { // mprotect PROT_NONE
		t.Fatalf("mprotect: %d", int64(r))
	}
	if !m.Mem.SlowOK(b, 8, interp.AccW) || !m.Mem.SlowOK(a, 8, interp.AccW) || m.IntervalCuts() != cuts {
		t.Errorf("unprotected: munmap'd page writable %v, PROT_NONE page writable %v, cuts %d (want %d)",
			m.Mem.SlowOK(b, 8, interp.AccW), m.Mem.SlowOK(a, 8, interp.AccW), m.IntervalCuts(), cuts)
	}
	if r := call(t, m, interp.SysMmap, 0, n, 7, 0x22, ^uint64(0), 0); int64(r) < 0 || !m.IsText(r) {
		t.Fatalf("mmap PROT_EXEC: %d", int64(r))
	} else if call(t, m, 226, r, n, 3); m.IsText(r) {
		t.Errorf("unprotected: a page that lost PROT_EXEC is still text")
	}
}
