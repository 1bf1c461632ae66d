// Guest memory: one host mapping holding the guest address space [0, Size).

package interp

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// memSlack is mapped past the end of the guest address space so that an
// access that starts below the limit and straddles it stays inside the
// mapping (native code checks only the start address).
const memSlack = 4096

// DefaultMemSize is the default size of the guest address space in bytes.
const DefaultMemSize = 1 << 30

// Memory is the guest address space: guest address a lives at host address
// Base()+a. The whole range is one anonymous private mapping (pages cost
// nothing until touched). Loads are allowed in [ReadLo, Size) and stores in
// [WriteLo, Size); everything below ReadLo (including the null page) and
// the program text below WriteLo is out of bounds for stores, so text is
// read-only and translated code can never be overwritten.
type Memory struct {
	buf     []byte
	base    unsafe.Pointer
	size    uint64
	readLo  uint64
	writeLo uint64
}

func newMemory(size uint64) (*Memory, error) {
	if size < 1<<20 || size > 1<<31 {
		return nil, fmt.Errorf("guest memory size %d out of range [1 MiB, 2 GiB]", size)
	}
	buf, err := unix.Mmap(-1, 0, int(size+memSlack), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of guest memory: %w", size, err)
	}
	return &Memory{buf: buf, base: unsafe.Pointer(&buf[0]), size: size}, nil
}

// Close unmaps the memory. The Memory must not be used afterwards.
func (m *Memory) Close() error {
	if m.buf == nil {
		return nil
	}
	err := unix.Munmap(m.buf)
	m.buf, m.base = nil, nil
	return err
}

// Base returns the host address of guest address 0, for native code.
func (m *Memory) Base() uintptr { return uintptr(m.base) }

// Size returns the size of the guest address space in bytes.
func (m *Memory) Size() uint64 { return m.size }

// ReadLo returns the lowest guest address that may be loaded from.
func (m *Memory) ReadLo() uint64 { return m.readLo }

// WriteLo returns the lowest guest address that may be stored to.
func (m *Memory) WriteLo() uint64 { return m.writeLo }

// CanRead reports whether n bytes at guest address a may be loaded.
func (m *Memory) CanRead(a, n uint64) bool {
	return a-m.readLo < m.size-m.readLo && n <= m.size-a
}

// CanWrite reports whether n bytes at guest address a may be stored.
func (m *Memory) CanWrite(a, n uint64) bool {
	return a-m.writeLo < m.size-m.writeLo && n <= m.size-a
}

// Bytes returns the n bytes at guest address a for reading and writing, or
// nil if the range is outside the guest address space. It ignores the
// read/write limits: it is for the loader, the system calls (after their
// own checks) and tests.
func (m *Memory) Bytes(a, n uint64) []byte {
	if a > m.size || n > m.size-a {
		return nil
	}
	return m.buf[a : a+n : a+n]
}

// The accessors below check only the start address against the limit: the
// slack page absorbs the rest of an access that straddles it.

func (m *Memory) ptr(a uint64) unsafe.Pointer { return unsafe.Add(m.base, a) }

func (m *Memory) readOK(a uint64) bool  { return a-m.readLo < m.size-m.readLo }
func (m *Memory) writeOK(a uint64) bool { return a-m.writeLo < m.size-m.writeLo }

func (m *Memory) load8(a uint64) uint8   { return *(*uint8)(m.ptr(a)) }
func (m *Memory) load16(a uint64) uint16 { return *(*uint16)(m.ptr(a)) }
func (m *Memory) load32(a uint64) uint32 { return *(*uint32)(m.ptr(a)) }
func (m *Memory) load64(a uint64) uint64 { return *(*uint64)(m.ptr(a)) }

func (m *Memory) store8(a uint64, v uint8)   { *(*uint8)(m.ptr(a)) = v }
func (m *Memory) store16(a uint64, v uint16) { *(*uint16)(m.ptr(a)) = v }
func (m *Memory) store32(a uint64, v uint32) { *(*uint32)(m.ptr(a)) = v }
func (m *Memory) store64(a uint64, v uint64) { *(*uint64)(m.ptr(a)) = v }

// Read64 returns the little-endian 64-bit word at guest address a, or false
// if it may not be loaded.
func (m *Memory) Read64(a uint64) (uint64, bool) {
	if !m.CanRead(a, 8) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(m.buf[a:]), true
}
