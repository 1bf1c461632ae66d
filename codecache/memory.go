// Executable memory: one shared anonymous mapping -> an RW view for writing and patching, an RX view for running.

package codecache

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// region is the cache's memory: rw and rx map the same pages.
//
// The pages are shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS), and
// the second view is made by mremap with an old size of 0, which for a
// shared mapping maps the same pages again at a new address. A memfd
// mapped twice would do the same, but /proc/PID/maps names a memfd like a
// file, and perf then looks for symbols in that (deleted) file; shared
// anonymous memory shows as /dev/zero, which perf treats as JIT code and
// names from /tmp/perf-PID.map (rvdyn run --perf-map).
type region struct {
	rw, rx []byte
}

func newRegion(size int) (*region, error) {
	rw, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("code cache: mmap rw: %w", err)
	}
	p, _, errno := unix.Syscall6(unix.SYS_MREMAP, uintptr(unsafe.Pointer(&rw[0])), 0, uintptr(size), unix.MREMAP_MAYMOVE, 0, 0)
	if errno != 0 {
		unix.Munmap(rw)
		return nil, fmt.Errorf("code cache: mremap (second view): %w", errno)
	}
	// p is the address of memory outside the Go heap, which the garbage
	// collector neither moves nor frees.
	rx := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), size)
	if err := unix.Mprotect(rx, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		unmap(rx)
		unix.Munmap(rw)
		return nil, fmt.Errorf("code cache: mprotect rx: %w", err)
	}
	return &region{rw: rw, rx: rx}, nil
}

// unmap releases a mapping that unix.Mmap did not make.
func unmap(b []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MUNMAP, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// addr returns the executable address of offset off.
func (r *region) addr(off int) uintptr { return uintptr(unsafe.Pointer(&r.rx[0])) + uintptr(off) }

func (r *region) close() error {
	if r.rw == nil {
		return nil
	}
	err1 := unix.Munmap(r.rw)
	err2 := unmap(r.rx)
	r.rw, r.rx = nil, nil
	if err1 != nil {
		return err1
	}
	return err2
}
