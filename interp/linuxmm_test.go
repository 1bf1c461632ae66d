// mprotect and mremap over ranges with holes: Linux's order of checks and what it changes before it fails, where qemu-riscv64 is no reference.

package interp_test

import (
	"testing"

	"rvdyn/interp"
)

// TestMprotectStopsAtHole: Linux's mprotect changes the pages before
// the first unmapped one and then fails with ENOMEM (do_mprotect_pkey
// walks the vmas in order); a range whose first page is unmapped changes
// nothing. qemu-riscv64 7.2 fails without changing anything (and may
// then hang on a store there), so the differential tests cannot check
// this.
func TestMprotectStopsAtHole(t *testing.T) {
	const pg = 4096
	m := ecallMachine(t, interp.Config{})
	a := call(t, m, interp.SysMmap, 0, 4*pg, 3, 0x22, ^uint64(0), 0)
	if r := call(t, m, interp.SysMunmap, a+2*pg, pg); r != 0 {
		t.Fatalf("munmap: %d", int64(r))
	}
	const eNOMEM = 12
	if r := call(t, m, 226, a, 4*pg, 1); int64(r) != -eNOMEM { // mprotect PROT_READ
		t.Fatalf("mprotect over a hole: %d, want -ENOMEM", int64(r))
	}
	for i, want := range []bool{false, false, false, true} {
		if got := m.Mem.SlowOK(a+uint64(i)*pg, 8, interp.AccW); got != want {
			t.Errorf("page %d writable: %v, want %v (pages before the hole read-only, the hole unmapped, the page after it untouched)", i, got, want)
		}
	}
	if r := call(t, m, 226, a+2*pg, 2*pg, 0); int64(r) != -eNOMEM { // from the hole: nothing changes
		t.Fatalf("mprotect from a hole: %d, want -ENOMEM", int64(r))
	}
	if !m.Mem.SlowOK(a+3*pg, 8, interp.AccR) {
		t.Errorf("mprotect from a hole changed the page after it")
	}
}

// TestMremapShrinkOverHole: a shrinking or same-size mremap needs only its
// first page mapped (Linux looks up the vma at the address, then unmaps
// the tail whatever it holds); growing needs the whole old range in one
// vma, and a range with a hole is not (EFAULT).
func TestMremapShrinkOverHole(t *testing.T) {
	const pg = 4096
	m := ecallMachine(t, interp.Config{})
	a := call(t, m, interp.SysMmap, 0, 4*pg, 3, 0x22, ^uint64(0), 0)
	if r := call(t, m, interp.SysMunmap, a+pg, pg); r != 0 {
		t.Fatalf("munmap: %d", int64(r))
	}
	const sysMremap, eFAULT = 216, 14
	if r := call(t, m, sysMremap, a, 3*pg, 4*pg, 0); int64(r) != -eFAULT {
		t.Errorf("growing over a hole: %d, want -EFAULT", int64(r))
	}
	if r := call(t, m, sysMremap, a, 3*pg, 3*pg, 0); r != a {
		t.Errorf("same size over a hole: %d, want the address", int64(r))
	}
	if r := call(t, m, sysMremap, a, 4*pg, pg, 0); r != a {
		t.Errorf("shrinking over a hole: %d, want the address", int64(r))
	}
	if m.Mem.SlowOK(a+2*pg, 8, interp.AccR) || m.Mem.SlowOK(a+3*pg, 8, interp.AccR) {
		t.Errorf("shrinking left the tail mapped")
	}
	if !m.Mem.SlowOK(a, 8, interp.AccW) {
		t.Errorf("shrinking unmapped the first page")
	}
	if r := call(t, m, sysMremap, a+pg, pg, pg, 0); int64(r) != -eFAULT {
		t.Errorf("from an unmapped page: %d, want -EFAULT", int64(r))
	}
}
