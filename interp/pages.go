// Page table: the guest's mappings and protections, one byte per 4 KiB page -> what is mapped, readable, writable, executable.

package interp

// The page table is the kernel's view of the address space: which pages
// are mapped (the ELF segments, the brk heap, the stack, mmap'd ranges)
// and with which protection. It is the truth about what may be executed:
// instruction fetch, decoding and translation consult it. Code can come
// from the ELF's segments and from mappings the guest makes executable
// (a dynamic loader's libraries, a JIT's buffers), and a page stops
// holding code when it is unmapped, remapped or loses PROT_EXEC: its
// predecoded instructions are dropped at once and the page is reported by
// TextChanged, so that code translated from it goes too (the cache
// consistency of Bala, Duesterwald and Banerjia, "Dynamo: A Transparent
// Dynamic Optimization System", section 5, and of Bruening's DynamoRIO,
// which, like rvdyn, invalidates per region rather than flushing).
//
// Loads and stores are checked against Memory's intervals (the fast
// path, see Memory), not against this table.

// Page permissions: PROT_READ, PROT_WRITE and PROT_EXEC's bits, and
// whether the page is mapped at all (a PROT_NONE page is mapped).
const (
	permR   uint8 = 1
	permW   uint8 = 2
	permX   uint8 = 4
	permMap uint8 = 8
	permBus uint8 = 16 // a file view's page wholly past the end of its file: an access is SIGBUS

	permRW = permMap | permR | permW
)

// initPages sizes the page table for the address space, every page
// unmapped.
func (m *Machine) initPages() {
	m.perm = make([]uint8, m.Mem.size/pageSize)
}

// pageOf returns the permission byte of the page holding guest address
// a (0, unmapped, outside the address space).
func (m *Machine) pageOf(a uint64) uint8 {
	if p := a / pageSize; p < uint64(len(m.perm)) {
		return m.perm[p]
	}
	return 0
}

// isExec reports whether guest address pc lies on an executable page.
func (m *Machine) isExec(pc uint64) bool { return m.pageOf(pc)&permX != 0 }

// setPages gives the pages of [lo, hi) (page aligned, inside the address
// space) permission byte p. An executable page that loses PROT_EXEC, or
// whose contents are replaced (replace: a new mapping, an unmap), stops
// being code: see dropCode.
func (m *Machine) setPages(lo, hi uint64, p uint8, replace bool) {
	for a := lo; a < hi; a += pageSize {
		old := &m.perm[a/pageSize]
		if *old&permX != 0 && (p&permX == 0 || replace) {
			m.dropCode(a)
		}
		*old = p
	}
}

// mappedRange reports whether every page of [lo, hi) is mapped.
func (m *Machine) mappedRange(lo, hi uint64) bool {
	for a := lo; a < hi; a += pageSize {
		if m.pageOf(a)&permMap == 0 {
			return false
		}
	}
	return true
}

// dropCode forgets the predecoded instructions of the text page at a
// (decoded again at its next fetch) and reports the page by TextChanged.
func (m *Machine) dropCode(a uint64) {
	off := a - m.codeLo
	if off >= 2*uint64(len(m.code)) {
		return
	}
	if p := off / pageSize; m.decoded[p] {
		clear(m.code[off/2 : off/2+slotsPerPage])
		m.decoded[p] = false
	}
	m.noteChanged(a)
}

// noteChanged records that code built from the text page at a is stale,
// once until TextChanged reports it.
func (m *Machine) noteChanged(a uint64) {
	if m.changedSet == nil {
		m.changedSet = map[uint64]bool{}
	}
	if !m.changedSet[a] {
		m.changedSet[a] = true
		m.changed = append(m.changed, a)
	}
}

// protBits converts PROT_* bits to a mapped page's permission byte.
func protBits(prot uint64) uint8 { return permMap | uint8(prot&7) }
