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
// nothing until touched), preceded in the same host mapping by a header
// page and an access table (see SpanOffsets, AccessTableOffset), which
// native code reads relative to Base() as the interpreter reads the
// fields here.
//
// What may be accessed is decided per 4 KiB page by the access table
// (AccR, AccW: the page table's protections, see pages.go), but an access
// is first tested against three intervals, the fast path: loads in
// [ReadLo, ReadLo+readSpan), stores in [WriteLo, WriteLo+writeSpan) and
// both in [GuardHi, GuardHi+stackSpan), for the start address of an
// access of up to 8 bytes. The intervals hold only pages the access may
// touch (the Machine keeps them so as the page table changes: a span ends
// at the first page that may not be accessed), so an access inside one
// needs no other test; one outside them all consults the access table
// (SlowOK). ReadLo is the program's first page, WriteLo the first page
// after its read-only data (and RELRO), GuardHi the lowest stack address:
// the lows never move; the spans do.
//
// Everything below ReadLo (the null page included) and the guard gap
// between the heap and the stack [GuardLo, GuardHi) is never accessible,
// so a stack overflow faults at the overflowing access. Native code must
// never fault in the host: it tests addresses as the interpreter does.
type Memory struct {
	all     []byte // the host mapping: header, access table, guest memory, slack
	buf     []byte // guest memory
	base    unsafe.Pointer
	acc     []uint8 // per guest page: AccR | AccW
	hdr     *[hdrWords]uint64
	size    uint64
	readLo  uint64
	writeLo uint64
	guardLo uint64 // the guard gap; guardLo == guardHi == size: none
	guardHi uint64

	// The fast path's spans (see setSpans): a load at a passes when
	// a-readLo < readSpan (a store: a-writeLo < writeSpan) or
	// a-guardHi < stackSpan. The header holds copies for native code.
	readSpan, writeSpan, stackSpan uint64
}

// Access table bits: the page may be loaded from, stored to.
const (
	AccR uint8 = 1
	AccW uint8 = 2
)

// The header's words, at Base()+HeaderOffset(size): a scratch word
// native code may use, the mappings' intervals' lows, and every
// interval's span less each class's width (class 0, width 0, is the span
// itself: SpanOffsets, MapSpanOffsets).
const (
	hdrScratch = iota
	hdrMapReadLo
	hdrMapWriteLo
	hdrWalks
	hdrClassed // see ClassSpanOffset
	hdrWords   = hdrClassed + numIntervals*len(spanClasses)
)

// The fast intervals, as ClassSpanOffset numbers them.
const (
	IntervalRead     = iota // loads: [ReadLo, ReadLo+span)
	IntervalWrite           // stores: [WriteLo, WriteLo+span)
	IntervalStack           // both: [GuardHi, GuardHi+span)
	IntervalMapRead         // loads in the mappings: [low, low+span), both in the header
	IntervalMapWrite        // stores in the mappings
	numIntervals
)

// spanClasses are the widths (bytes from a check's first start address
// to its last) for which the header holds each interval's span less the
// width, so that a check of a range of start addresses [s, s+w] is one
// unsigned compare, s-low < span-class (see ClassSpanOffset).
var spanClasses = [...]uint64{0, 64, 512, 4096}

// SpanClass returns the class of a check whose start addresses run over
// width bytes past its first (the smallest class at least as wide), and
// false when width is wider than every class.
func SpanClass(width uint64) (class int, ok bool) {
	for c, w := range spanClasses {
		if width <= w {
			return c, true
		}
	}
	return 0, false
}

// ClassSpanOffset returns the offset from Base() of the header word that
// holds interval's span (IntervalRead...) less the width of class (0
// when the span is smaller), for an address space of memSize bytes. A
// check of start addresses [s, s+w], w at most the class's width, passes
// when s-low < that word, unsigned: then every byte an access of up to 8
// bytes at s..s+w touches lies in the interval. Near the interval's end
// it may refuse what the exact test would pass (the wider the class, the
// more), which the slower tests after it then take.
func ClassSpanOffset(memSize uint64, interval, class int) int64 {
	h := AccessTableOffset(memSize) - pageSize
	return h + 8*int64(hdrClassed+interval*len(spanClasses)+class)
}

// setClassed sets interval's class words from its span.
func (m *Memory) setClassed(interval int, span uint64) {
	for c, w := range spanClasses {
		v := uint64(0)
		if span > w {
			v = span - w
		}
		m.hdr[hdrClassed+interval*len(spanClasses)+c] = v
	}
}

// tableSize returns the bytes the access table of an address space of
// size bytes takes, rounded up to whole pages.
func tableSize(size uint64) uint64 { return pageUp(size / pageSize) }

// AccessTableOffset returns the offset from Base() of the access table of
// an address space of memSize bytes: the byte of guest page p is at
// Base()+AccessTableOffset(memSize)+p.
func AccessTableOffset(memSize uint64) int64 { return -int64(tableSize(memSize)) }

// SpanOffsets returns the offsets from Base() of the header words that
// hold the fast path's spans (read, write, stack) and a scratch word
// native code may use, for an address space of memSize bytes.
func SpanOffsets(memSize uint64) (read, write, stack, scratch int64) {
	return ClassSpanOffset(memSize, IntervalRead, 0), ClassSpanOffset(memSize, IntervalWrite, 0),
		ClassSpanOffset(memSize, IntervalStack, 0), AccessTableOffset(memSize) - pageSize + 8*hdrScratch
}

// MapSpanOffsets returns the offsets from Base() of the header words of
// the mappings' intervals, for loads and for stores: each a low and a
// span, both moving. Native code tries them after the heap's and the
// stack's and before the access table: a run of accessible pages above
// the heap's interval, the one that ends at the guard gap (where
// mappings go first) until a munmap or mprotect takes access from it,
// then the one that holds the most mapped pages (see Machine.mapRun).
func MapSpanOffsets(memSize uint64) (readLo, readSpan, writeLo, writeSpan int64) {
	h := AccessTableOffset(memSize) - pageSize
	return h + 8*hdrMapReadLo, ClassSpanOffset(memSize, IntervalMapRead, 0), h + 8*hdrMapWriteLo, ClassSpanOffset(memSize, IntervalMapWrite, 0)
}

// TableWalksOffset returns the offset from Base() of the header's count
// of native checks that no fast interval held (see TableWalks), for an
// address space of memSize bytes.
func TableWalksOffset(memSize uint64) int64 {
	return AccessTableOffset(memSize) - pageSize + 8*hdrWalks
}

// TableWalks returns how many of native code's accesses and loop checks
// so far found their addresses in no fast interval and walked the
// access table: what per-page protection costs compiled code beyond
// its compares when memory the program uses lies outside every
// interval.
func (m *Memory) TableWalks() uint64 { return m.hdr[hdrWalks] }

// setMapSpans sets the mappings' intervals for native code: loads in
// [readLo, readLo+read), stores in [writeLo, writeLo+write).
func (m *Memory) setMapSpans(readLo, read, writeLo, write uint64) {
	m.hdr[hdrMapReadLo], m.hdr[hdrMapWriteLo] = readLo, writeLo
	m.setClassed(IntervalMapRead, read)
	m.setClassed(IntervalMapWrite, write)
}

// setLimits sets the fixed lows and the guard gap [guardLo, guardHi); the
// spans start empty (see setSpans).
func (m *Memory) setLimits(readLo, writeLo, guardLo, guardHi uint64) {
	m.readLo, m.writeLo, m.guardLo, m.guardHi = readLo, writeLo, guardLo, guardHi
	m.setSpans(0, 0, 0)
}

// setSpans sets the fast path's spans, for the interpreter and for native
// code.
func (m *Memory) setSpans(read, write, stack uint64) {
	m.readSpan, m.writeSpan, m.stackSpan = read, write, stack
	m.setClassed(IntervalRead, read)
	m.setClassed(IntervalWrite, write)
	m.setClassed(IntervalStack, stack)
}

func newMemory(size uint64, huge bool) (*Memory, error) {
	if size < 1<<20 || size > 1<<31 {
		return nil, fmt.Errorf("guest memory size %d out of range [1 MiB, 2 GiB]", size)
	}
	pre := pageSize + tableSize(size)
	all, err := unix.Mmap(-1, 0, int(pre+size+memSlack), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of guest memory: %w", size, err)
	}
	buf := all[pre:]
	if huge {
		// Advice only: a kernel without THP refuses, and the
		// memory stays in small pages (see Config.SmallPages).
		_ = unix.Madvise(buf, unix.MADV_HUGEPAGE)
	}
	m := &Memory{all: all, buf: buf, base: unsafe.Pointer(&buf[0]), size: size,
		acc: all[pageSize : pageSize+size/pageSize],
		hdr: (*[hdrWords]uint64)(unsafe.Pointer(&all[0]))}
	m.setLimits(0, 0, size, size)
	return m, nil
}

// Close unmaps the memory. The Memory must not be used afterwards.
func (m *Memory) Close() error {
	if m.all == nil {
		return nil
	}
	err := unix.Munmap(m.all)
	m.all, m.buf, m.base = nil, nil, nil
	return err
}

// Base returns the host address of guest address 0, for native code.
func (m *Memory) Base() uintptr { return uintptr(m.base) }

// Size returns the size of the guest address space in bytes.
func (m *Memory) Size() uint64 { return m.size }

// ReadLo returns the lowest guest address that may be loaded from.
func (m *Memory) ReadLo() uint64 { return m.readLo }

// WriteLo returns the lowest guest address of the stores' fast interval.
func (m *Memory) WriteLo() uint64 { return m.writeLo }

// Guard returns the guard gap [lo, hi) below the stack, where every
// access faults (lo == hi == Size() if there is none).
func (m *Memory) Guard() (lo, hi uint64) { return m.guardLo, m.guardHi }

// CanRead reports whether n bytes at guest address a may be loaded.
func (m *Memory) CanRead(a, n uint64) bool { return m.pagesOK(a, n, AccR) }

// CanWrite reports whether n bytes at guest address a may be stored.
func (m *Memory) CanWrite(a, n uint64) bool { return m.pagesOK(a, n, AccW) }

// SlowOK reports whether an access of n bytes (1 to 8) at guest address
// a that missed the fast path's intervals may be made: every page it
// touches has the access bit need.
func (m *Memory) SlowOK(a, n uint64, need uint8) bool { return m.pagesOK(a, n, need) }

// pagesOK reports whether every page of [a, a+n) has access bit need (an
// empty range: whether a is inside the address space).
func (m *Memory) pagesOK(a, n uint64, need uint8) bool {
	if a > m.size || n > m.size-a {
		return false
	}
	if n == 0 {
		return true
	}
	for p := a / pageSize; p <= (a+n-1)/pageSize; p++ {
		if m.acc[p]&need == 0 {
			return false
		}
	}
	return true
}

// Bytes returns the n bytes at guest address a for reading and writing, or
// nil if the range is outside the guest address space. It ignores the
// access table: it is for the loader, the system calls (after their own
// checks) and tests.
func (m *Memory) Bytes(a, n uint64) []byte {
	if a > m.size || n > m.size-a {
		return nil
	}
	return m.buf[a : a+n : a+n]
}

// The accessors below check only the start address against the limit: the
// slack page absorbs the rest of an access that straddles it.

func (m *Memory) ptr(a uint64) unsafe.Pointer { return unsafe.Add(m.base, a) }

// readOK and writeOK are the fast path: the heap interval first, then
// the stack: the second test costs a stack access one more compare, and
// branch prediction learns which one an instruction needs (measured: no
// slower than one range check on the interpreter benchmarks, where "in
// range and not in the guard gap" cost 11%). A miss is not yet a fault:
// see SlowOK.

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
