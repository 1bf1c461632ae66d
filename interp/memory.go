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
// [WriteLo, Size), except in the guard gap [GuardLo, GuardHi) between the
// heap and the stack; everything below ReadLo (including the null page) is
// out of bounds, and the program text below WriteLo is out of bounds for
// stores, so text is read-only and translated code can never be
// overwritten.
//
// The guard gap is what makes a stack overflow a fault at the overflowing
// access rather than a silent overwrite of the heap and globals. It is a
// range check, not a host page protection: native code must never fault
// in the host, so interpreter and native code alike test an address
// against the two intervals [lo, GuardLo) and [GuardHi, Size).
type Memory struct {
	buf     []byte
	base    unsafe.Pointer
	size    uint64
	readLo  uint64
	writeLo uint64
	guardLo uint64 // the guard gap; guardLo == guardHi == size: none
	guardHi uint64

	// The checks' spans, precomputed (see setLimits): a load at a passes
	// when a-readLo < readSpan (a store: a-writeLo < writeSpan) or
	// a-guardHi < stackSpan.
	readSpan, writeSpan, stackSpan uint64
}

// setLimits sets the lowest loadable and storable addresses and the guard
// gap [guardLo, guardHi).
func (m *Memory) setLimits(readLo, writeLo, guardLo, guardHi uint64) {
	m.readLo, m.writeLo, m.guardLo, m.guardHi = readLo, writeLo, guardLo, guardHi
	m.readSpan, m.writeSpan, m.stackSpan = guardLo-readLo, guardLo-writeLo, m.size-guardHi
}

func newMemory(size uint64, huge bool) (*Memory, error) {
	if size < 1<<20 || size > 1<<31 {
		return nil, fmt.Errorf("guest memory size %d out of range [1 MiB, 2 GiB]", size)
	}
	buf, err := unix.Mmap(-1, 0, int(size+memSlack), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of guest memory: %w", size, err)
	}
	if huge {
		// Advice only: a kernel without THP refuses, and the
		// memory stays in small pages (see Config.SmallPages).
		_ = unix.Madvise(buf, unix.MADV_HUGEPAGE)
	}
	m := &Memory{buf: buf, base: unsafe.Pointer(&buf[0]), size: size}
	m.setLimits(0, 0, size, size)
	return m, nil
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

// Guard returns the guard gap [lo, hi) below the stack, where every
// access faults (lo == hi == Size() if there is none).
func (m *Memory) Guard() (lo, hi uint64) { return m.guardLo, m.guardHi }

// CanRead reports whether n bytes at guest address a may be loaded.
func (m *Memory) CanRead(a, n uint64) bool { return m.canAccess(a, n, m.readLo) }

// CanWrite reports whether n bytes at guest address a may be stored.
func (m *Memory) CanWrite(a, n uint64) bool { return m.canAccess(a, n, m.writeLo) }

// canAccess reports whether [a, a+n) lies in [lo, guardLo) or in
// [guardHi, size).
func (m *Memory) canAccess(a, n, lo uint64) bool {
	if a-lo < m.guardLo-lo {
		return n <= m.guardLo-a
	}
	return a-m.guardHi < m.size-m.guardHi && n <= m.size-a
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

// readOK and writeOK test the heap interval first, then the stack: the
// second test costs a stack access one more compare, and branch
// prediction learns which one an instruction needs (measured: no slower
// than one range check on the interpreter benchmarks, where "in range and
// not in the guard gap" cost 11%).

func (m *Memory) readOK(a uint64) bool {
	return a-m.readLo < m.readSpan || a-m.guardHi < m.stackSpan
}

func (m *Memory) writeOK(a uint64) bool {
	return a-m.writeLo < m.writeSpan || a-m.guardHi < m.stackSpan
}

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
