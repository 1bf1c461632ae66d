// Executable memory: one memfd -> an RW view for writing and patching, an RX view for running.

package codecache

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// region is the cache's memory: rw and rx map the same pages.
type region struct {
	rw, rx []byte
}

func newRegion(size int) (*region, error) {
	fd, err := unix.MemfdCreate("rvdyn-code-cache", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("code cache: memfd_create: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, fmt.Errorf("code cache: ftruncate %d: %w", size, err)
	}
	rw, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("code cache: mmap rw: %w", err)
	}
	rx, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_SHARED)
	if err != nil {
		unix.Munmap(rw)
		return nil, fmt.Errorf("code cache: mmap rx: %w", err)
	}
	return &region{rw: rw, rx: rx}, nil
}

// addr returns the executable address of offset off.
func (r *region) addr(off int) uintptr { return uintptr(unsafe.Pointer(&r.rx[0])) + uintptr(off) }

func (r *region) close() error {
	if r.rw == nil {
		return nil
	}
	err1 := unix.Munmap(r.rw)
	err2 := unix.Munmap(r.rx)
	r.rw, r.rx = nil, nil
	if err1 != nil {
		return err1
	}
	return err2
}
