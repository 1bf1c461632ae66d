// mprotect and mremap over ranges with holes: Linux's order of checks and what it changes before it fails, where qemu-riscv64 is no reference.

package interp_test

import (
	"testing"

	"rvdyn/internal/rvtest"
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

// TestFileViewRegrows: a view's page wholly past its file's end is SIGBUS
// only while the file is that short (Linux's fault handler asks the file
// each time): after ftruncate or a write grows the file, the page views
// it again, and a shared view's stores reach the file; cut short again,
// the page is SIGBUS again. A SIGBUS page the view's protection would
// refuse anyway is SIGSEGV, as under Linux.
func TestFileViewRegrows(t *testing.T) {
	const pg = 4096
	const sysFtruncate, sysPwrite64 = 46, 68
	m := ecallMachine(t, interp.Config{})
	name := uint64(rvtest.MakeELFData)
	copy(m.Mem.Bytes(name, 8), "view\x00")
	fd := call(t, m, 56, ^uint64(99), name, 0o102, 0o644) // openat O_RDWR|O_CREAT
	if int64(fd) < 0 {
		t.Fatalf("openat: %d", int64(fd))
	}
	if r := call(t, m, sysFtruncate, fd, pg); r != 0 {
		t.Fatalf("ftruncate: %d", int64(r))
	}
	a := call(t, m, interp.SysMmap, 0, 2*pg, 3, 1, fd, 0) // PROT_READ|PROT_WRITE, MAP_SHARED
	if int64(a) < 0 {
		t.Fatalf("mmap: %d", int64(a))
	}
	readable := func(what string, want bool) {
		t.Helper()
		if got := m.Mem.SlowOK(a+pg, 8, interp.AccR); got != want {
			t.Errorf("%s: the second page readable: %v, want %v", what, got, want)
		}
	}
	readable("file one page long", false)
	if r := call(t, m, sysFtruncate, fd, 2*pg); r != 0 {
		t.Fatalf("ftruncate up: %d", int64(r))
	}
	readable("after ftruncate to two pages", true)
	m.Mem.Bytes(a+pg, 1)[0] = 'x'                                                             // a store through the shared view
	if r := call(t, m, 67, fd, name+16, 1, pg); r != 1 || m.Mem.Bytes(name+16, 1)[0] != 'x' { // pread64
		t.Errorf("pread64 of the second page's first byte: %d %q, want the view's store", int64(r), m.Mem.Bytes(name+16, 1))
	}
	if r := call(t, m, sysFtruncate, fd, pg); r != 0 {
		t.Fatalf("ftruncate down: %d", int64(r))
	}
	readable("cut to one page again", false)
	if r := call(t, m, sysPwrite64, fd, name, 1, 2*pg-1); r != 1 {
		t.Fatalf("pwrite64 at the second page's end: %d", int64(r))
	}
	readable("grown by a write", true)
	if r := call(t, m, sysFtruncate, fd, pg); r != 0 {
		t.Fatalf("ftruncate down: %d", int64(r))
	}
	if r := call(t, m, 226, a+pg, pg, 0); r != 0 { // mprotect PROT_NONE
		t.Fatalf("mprotect: %d", int64(r))
	}
	if f := m.AccessFault(interp.FaultLoad, a+pg); f.Kind != interp.FaultLoad {
		t.Errorf("a load from a PROT_NONE page past the end: %v, want a SIGSEGV load fault", f)
	}
	if r := call(t, m, 226, a+pg, pg, 1); r != 0 { // mprotect PROT_READ
		t.Fatalf("mprotect: %d", int64(r))
	}
	if f := m.AccessFault(interp.FaultLoad, a+pg); f.Kind != interp.FaultBus {
		t.Errorf("a load from a readable page past the end: %v, want SIGBUS", f)
	}
	if f := m.AccessFault(interp.FaultStore, a+pg); f.Kind != interp.FaultStore {
		t.Errorf("a store to a read-only page past the end: %v, want a SIGSEGV store fault", f)
	}
}
