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
// has a slot, a different decoding, at its middle; it is decoded only if
// control goes there). The text is decoded lazily, so that what loading
// costs is bounded by the file, not by the sizes a header claims, and
// what start-up costs is bounded by the code a run executes, not by the
// pages it touches: the Inst and mark arrays cover the whole executable
// range but are reserved address space (pages committed when touched),
// and the first fetch of an undecoded slot decodes the run of
// instructions from it to the end of its chunk of 64 bytes (decodeRun),
// each where the one before ends: middle slots of 4-byte instructions
// are not decoded (in RV64GC code about a third of the slots), and
// neither is the chunk before the fetched instruction. A statically linked
// glibc program executes a few thousand instructions spread over a
// hundred or more text pages before main; decoding whole pages cost it
// about 200,000 slot decodes and 3 ms of a 15 ms start (docs/performance.md,
// "Start-up"). An undecoded slot holds the zero Inst, OpIllegal, so the
// interpreter's hot path needs no test: the illegal-instruction case
// decodes the run and retries.

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

// initText reserves the predecoded text for every address from lo (the
// lowest executable page of the program) to the top of the address
// space: code may also come from mappings the guest makes executable
// later (see pages.go).
func (m *Machine) initText(lo uint64) error {
	n := (m.Mem.size - lo) / 2
	var err error
	if m.code, m.codeMem, err = mapArray[Inst](n); err != nil {
		return err
	}
	if m.marks, m.marksMem, err = mapArray[uint8](n); err != nil {
		m.closeText()
		return err
	}
	// A word per text page: 8 MB for a 4 GiB address space, which a
	// Go slice would zero at every load (a fifth of loading a glibc
	// program, by a CPU profile of rvdyn.New); mapped, only the words
	// of pages run cost anything.
	if m.decoded, m.decodedMem, err = mapArray[uint64]((n + slotsPerPage - 1) / slotsPerPage); err != nil {
		m.closeText()
		return err
	}
	m.codeLo = lo
	return nil
}

const (
	slotsPerPage  = pageSize / 2
	chunkSize     = pageSize / 64 // a decoding run ends at a chunk's end: a page is 64 chunks, one bit each in decoded
	slotsPerChunk = chunkSize / 2
)

// closeText releases the predecoded text.
func (m *Machine) closeText() {
	for _, b := range [][]byte{m.codeMem, m.marksMem, m.decodedMem} {
		if b != nil {
			unix.Munmap(b)
		}
	}
	m.code, m.marks, m.decoded, m.codeMem, m.marksMem, m.decodedMem = nil, nil, nil, nil, nil, nil
}

// decodeRun decodes the instructions that start at code offset off
// (pc - codeLo) and follow it in its chunk of text, each at the end of
// the one before (a 4-byte instruction's middle slot stays undecoded
// unless control goes there), up to the end of the chunk, a slot
// decoded already or one that is not executable. It reports whether the
// slot at off holds a decoding now that it did not before: false if it
// was decoded, is not executable, or decodes as the zero Inst (the
// all-zero parcel, an illegal instruction). The first slot decoded on a
// page puts the page on SyncText's list, and each chunk it reaches gets
// its bit in decoded.
func (m *Machine) decodeRun(off uint64) bool {
	first := off / 2
	if m.decoded[off/pageSize] == 0 {
		m.populate(off / pageSize)
	}
	end := min((first/slotsPerChunk+1)*slotsPerChunk, uint64(len(m.code)))
	i := first
	for i < end {
		s := &m.code[i]
		a := m.codeLo + 2*i
		if s.decoded() || !m.isExec(a) {
			break
		}
		*s = Decode(m.rawAt(a))
		m.noteDecoded(2 * i)
		i += s.Len() / 2
	}
	return i > first && m.code[first].decoded()
}

// populate commits the Inst slots of text page p (code offset
// p*pageSize) for writing, before its first decoding writes them. The
// fetch that found the page undecoded has read a slot, which mapped the
// kernel's shared zero page there, and each of the page's eight Inst
// pages would otherwise fault twice: on a first read (zero page) and on
// the write that follows (copy on write, whose TLB flush interrupts the
// other core when the Go runtime has a thread there). One
// MADV_POPULATE_WRITE for the eight costs one system call; an error
// (a kernel before 5.14) leaves the faults to do it.
func (m *Machine) populate(p uint64) {
	lo := p * slotsPerPage * uint64(unsafe.Sizeof(Inst{}))
	hi := min(lo+slotsPerPage*uint64(unsafe.Sizeof(Inst{})), uint64(len(m.codeMem)))
	if lo < hi {
		_ = unix.Madvise(m.codeMem[lo:hi], unix.MADV_POPULATE_WRITE)
	}
}

// decoded reports whether a slot of the predecoded text holds a
// decoding: anything but the zero Inst of an undecoded slot (which the
// all-zero parcel, an illegal instruction, also decodes to).
func (in *Inst) decoded() bool { return in.Op != OpIllegal || in.Raw != 0 }

// noteDecoded records that the chunk holding code offset off has decoded
// slots (the page goes on SyncText's list with its first).
func (m *Machine) noteDecoded(off uint64) {
	p := off / pageSize
	bit := uint64(1) << (off % pageSize / chunkSize)
	if m.decoded[p]&bit != 0 {
		return
	}
	if m.decoded[p] == 0 {
		m.decodedPages = append(m.decodedPages, m.codeLo+p*pageSize)
	}
	m.decoded[p] |= bit
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
// requires before modified code is fetched. Only pages that are writable
// and executable at once can have changed under a fetch (a page that
// loses PROT_EXEC is dropped when it does, see setPages); their decoded
// instructions are compared word by word with memory, and a page that
// differs is dropped (decoded again on its next fetch) and reported by
// TextChanged. A program without writable code pays nothing.
func (m *Machine) SyncText() {
	kept := m.decodedPages[:0]
	for _, a := range m.decodedPages {
		off := a - m.codeLo
		p := off / pageSize
		if m.decoded[p] == 0 {
			continue // dropped since: forgotten here too
		}
		kept = append(kept, a)
		if m.pageOf(a)&(permW|permX) != permW|permX {
			continue
		}
		if m.textDiffers(a) {
			clear(m.code[off/2 : off/2+slotsPerPage])
			m.decoded[p] = 0
			m.noteChanged(a)
			kept = kept[:len(kept)-1]
		}
	}
	m.decodedPages = kept
}

// textDiffers reports whether a decoded chunk of the text page at a no
// longer decodes what guest memory holds.
func (m *Machine) textDiffers(a uint64) bool {
	off := a - m.codeLo
	p := off / pageSize
	for c := uint64(0); c < pageSize/chunkSize; c++ {
		if m.decoded[p]&(1<<c) == 0 {
			continue
		}
		first := off/2 + c*slotsPerChunk
		for i := first; i < first+slotsPerChunk; i++ {
			if in := &m.code[i]; in.decoded() && in.Raw != m.rawAt(m.codeLo+2*i) {
				return true // (undecoded slots are decoded from memory when fetched)
			}
		}
	}
	return false
}

// TextChanged returns the guest addresses of the text pages SyncText
// dropped since the last call (code built from them is stale), and
// forgets them.
func (m *Machine) TextChanged() []uint64 {
	c := m.changed
	m.changed = nil
	clear(m.changedSet)
	return c
}
