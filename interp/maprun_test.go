// The mappings' fast interval after munmaps: memory between two holes keeps one, and Config.Unprotected keeps every interval whole.

package interp_test

import (
	"testing"

	"rvdyn/interp"
)

// TestMapRunBetweenHoles maps three blocks top down (a, b, c), unmaps
// the lowest (the heap's interval now ends at c's hole) and then the
// highest: the mappings' interval must then hold b, which lies between
// the two holes, and neither hole. Before, the interval always ended at
// the guard gap, so b was left to the access table.
func TestMapRunBetweenHoles(t *testing.T) {
	const n = 64 << 10
	m := ecallMachine(t, interp.Config{})
	mmap := func() uint64 { return call(t, m, interp.SysMmap, 0, n, 3, 0x22, ^uint64(0), 0) }
	a, b, c := mmap(), mmap(), mmap()
	if !(c+n == b && b+n == a) {
		t.Fatalf("mappings at %#x, %#x, %#x: want them adjacent, top down", a, b, c)
	}
	cuts := m.IntervalCuts()
	if r := call(t, m, interp.SysMunmap, c, n); r != 0 {
		t.Fatalf("munmap c: %d", int64(r))
	}
	if m.IntervalCuts() != cuts+1 {
		t.Errorf("munmap below b and a: %d cuts, want %d", m.IntervalCuts(), cuts+1)
	}
	holds := func(what string, lo, hi, x, y uint64) {
		t.Helper()
		if lo > x || hi < y {
			t.Errorf("%s: mappings' interval [%#x, %#x) does not hold [%#x, %#x)", what, lo, hi, x, y)
		}
		if lo < b || hi > a+n {
			t.Errorf("%s: mappings' interval [%#x, %#x) reaches a hole", what, lo, hi)
		}
	}
	rl, rh, wl, wh := m.MapRuns()
	holds("after munmap c, loads", rl, rh, b, a+n)
	holds("after munmap c, stores", wl, wh, b, a+n)
	if r := call(t, m, interp.SysMunmap, a, n); r != 0 {
		t.Fatalf("munmap a: %d", int64(r))
	}
	rl, rh, wl, wh = m.MapRuns()
	holds("after munmap a, loads", rl, rh, b, b+n)
	holds("after munmap a, stores", wl, wh, b, b+n)
	if rh > a || wh > a {
		t.Errorf("the mappings' interval still holds unmapped a: loads end at %#x, stores at %#x, a at %#x", rh, wh, a)
	}
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
	holds("read-only b, loads", rl, rh, b, b+n)
	if wl < wh && wl < b+n && wh > b {
		t.Errorf("stores' mappings' interval [%#x, %#x) holds read-only b", wl, wh)
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
