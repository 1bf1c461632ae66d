// Predecoded text: the executable pages of the guest -> an Inst per halfword, decoded on first execution.

package interp

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The text has one slot per halfword, since with compressed instructions
// any even address can start one: slot i holds the instruction that
// starts at codeLo+2*i, 2 or 4 bytes long (a 4-byte instruction also
// has a slot, a different decoding, at its middle; it is used only if
// control goes there). The text is decoded lazily, a page at a time, so that what loading
// costs is bounded by the file, not by the sizes a header claims: the Inst
// and mark arrays cover the whole executable range but are reserved
// address space (pages committed when touched), and a page is decoded
// the first time an instruction on it is fetched. An undecoded slot holds
// the zero Inst, OpIllegal, so the interpreter's hot path needs no test:
// the illegal-instruction case decodes the page and retries.

// execRange is an executable segment, rounded out to whole pages as Linux
// maps it (the zero padding after the text on its last page is
// executable: all-zero words, illegal instructions).
type execRange struct {
	lo, hi   uint64
	writable bool // a segment that is writable too: SyncText checks it
}

// mapArray reserves an array of n elements of T outside the Go heap (T
// must hold no pointers); its pages cost nothing until touched.
func mapArray[T any](n uint64) ([]T, []byte, error) {
	var zero T
	size := n * uint64(unsafe.Sizeof(zero))
	if n == 0 {
		return nil, nil, nil
	}
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, nil, fmt.Errorf("reserving %d bytes for the predecoded text: %w", size, err)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n), b, nil
}

// initText reserves the predecoded text for the executable ranges.
func (m *Machine) initText(ranges []execRange) error {
	lo, hi := ^uint64(0), uint64(0)
	for _, r := range ranges {
		lo, hi = min(lo, r.lo), max(hi, r.hi)
	}
	n := (hi - lo) / 2
	var err error
	if m.code, m.codeMem, err = mapArray[Inst](n); err != nil {
		return err
	}
	if m.marks, m.marksMem, err = mapArray[uint8](n); err != nil {
		m.closeText()
		return err
	}
	m.codeLo, m.execRanges = lo, ranges
	m.decoded = make([]bool, (n+slotsPerPage-1)/slotsPerPage)
	return nil
}

const slotsPerPage = pageSize / 2

// closeText releases the predecoded text.
func (m *Machine) closeText() {
	for _, b := range [][]byte{m.codeMem, m.marksMem} {
		if b != nil {
			unix.Munmap(b)
		}
	}
	m.code, m.marks, m.codeMem, m.marksMem = nil, nil, nil, nil
}

// isExec reports whether guest address pc lies in an executable range.
func (m *Machine) isExec(pc uint64) bool {
	for _, r := range m.execRanges {
		if pc-r.lo < r.hi-r.lo {
			return true
		}
	}
	return false
}

// decodePage decodes the executable halfwords of the text page holding
// code offset off (pc - codeLo); it reports false if the page was decoded
// already.
func (m *Machine) decodePage(off uint64) bool {
	p := off / pageSize
	if m.decoded[p] {
		return false
	}
	m.decoded[p] = true
	first := p * slotsPerPage
	for i := first; i < first+slotsPerPage && i < uint64(len(m.code)); i++ {
		if a := m.codeLo + 2*i; m.isExec(a) {
			m.code[i] = Decode(m.rawAt(a))
		}
	}
	return true
}

// rawAt returns the instruction bits at executable address a as Decode
// takes them: the 16-bit parcel, extended by the next parcel when the
// low bits say the instruction is 32 bits long and that parcel is
// executable too (otherwise only the first parcel: a 32-bit instruction
// cut off by the end of the text decodes as illegal).
func (m *Machine) rawAt(a uint64) uint32 {
	h := uint32(m.Mem.load16(a))
	if h&3 != 3 {
		return h
	}
	if !m.isExec(a + 2) {
		return h &^ 3 // a compressed encoding that is illegal: the all-zero quadrant 0 parcel
	}
	return h | uint32(m.Mem.load16(a+2))<<16
}

// SyncText makes the predecoded text agree with guest memory again after
// the guest may have rewritten its code: it is fence.i, which RISC-V
// requires before modified code is fetched. Only writable executable
// segments can have changed; their decoded pages are compared word by
// word with memory, and a page that differs is dropped (decoded again on
// its next fetch) and reported by TextChanged. A program without writable
// code pays nothing.
func (m *Machine) SyncText() {
	for _, r := range m.execRanges {
		if !r.writable {
			continue
		}
		for a := r.lo; a < r.hi; a += pageSize {
			off := a - m.codeLo
			p := off / pageSize
			if !m.decoded[p] {
				continue
			}
			page := m.code[off/2 : off/2+slotsPerPage]
			for i := range page {
				if page[i].Raw != m.rawAt(a+2*uint64(i)) {
					clear(page)
					m.decoded[p] = false
					m.changed = append(m.changed, a)
					break
				}
			}
		}
	}
}

// TextChanged returns the guest addresses of the text pages SyncText
// dropped since the last call (code built from them is stale), and
// forgets them.
func (m *Machine) TextChanged() []uint64 {
	c := m.changed
	m.changed = nil
	return c
}
