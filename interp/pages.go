// Page table: the guest's mappings and protections, one byte per 4 KiB page -> what is mapped, readable, writable, executable.

package interp

import "encoding/binary"

// The page table is the kernel's view of the address space: which pages
// are mapped (the ELF segments, the brk heap, the stack, mmap'd ranges)
// and with which protection. It is the truth about what may be executed:
// instruction fetch, decoding and translation consult it. Code can come
// from the ELF's segments and from mappings the guest makes executable
// (a dynamic loader's libraries, a JIT's buffers), and a page stops
// holding code when it is unmapped, remapped or loses PROT_EXEC: its
// predecoded instructions are dropped at once and the page is reported by
// TextChanged, so that code translated from it goes too (the cache
// consistency of Bala, Duesterwald and Banerjia's "Dynamo: A Transparent
// Dynamic Optimization System" and of Bruening's DynamoRIO ("Efficient,
// Transparent, and Comprehensive Runtime Code Manipulation"), which, like
// rvdyn, invalidates per region rather than flushing).
//
// Loads and stores are checked against Memory's intervals first (the
// fast path) and against the access table this table keeps (Memory.acc)
// when they miss them. The intervals are kept to hold only accessible
// pages (fixSpans). One documented exception to Linux: the pages between
// the program's end and the guard gap that were never mapped (the brk
// heap's reserve, where the heap grows) are accessible, so that a
// program whose heap and mappings are one run of pages (every static one)
// keeps one fast interval; an access there does not fault where Linux
// would give SIGSEGV. Pages between the program's segments (the standard toolchains
// leave none; hand-made images do) may be loaded from (zeros), not stored
// to, so that the loads' interval runs from the text to the data. Pages
// unmapped after being mapped (munmap, a break moved down) are neither:
// an access there faults.

// Page permissions: PROT_READ, PROT_WRITE and PROT_EXEC's bits, and
// whether the page is mapped at all (a PROT_NONE page is mapped).
const (
	permR    uint8 = 1
	permW    uint8 = 2
	permX    uint8 = 4
	permMap  uint8 = 8
	permBus  uint8 = 16 // a file view's page wholly past the end of its file: an access is SIGBUS
	permGone uint8 = 32 // unmapped, but mapped before (not the heap's reserve)

	permRW = permMap | permR | permW
)

// initPages sizes the page table for the address space, every page
// unmapped.
func (m *Machine) initPages() {
	m.perm = make([]uint8, m.Mem.size/pageSize)
	m.lowLostR, m.lowLostW, m.lowLostStack = ^uint64(0), ^uint64(0), ^uint64(0)
}

// putPerm sets page p's permission byte and its access bits (a SIGBUS
// page has none), and notes an access taken away for fixSpans.
func (m *Machine) putPerm(p uint64, v uint8) {
	old := m.perm[p]
	if v&permMap == 0 && old&(permMap|permGone) != 0 {
		v |= permGone
	}
	acc := v & (permR | permW)
	if v&permW != 0 {
		acc |= permR // RISC-V has no write-only pages: PROT_WRITE reads too
	}
	switch {
	case v == 0:
		acc = m.Mem.acc[p] // never mapped: the heap's reserve stays accessible (see markReserve)
	case v&permBus != 0 || v&permMap == 0:
		acc = 0
	}
	if m.unprotected && v&permBus == 0 {
		acc |= m.Mem.acc[p] // see Config.Unprotected
	}
	if lost := m.Mem.acc[p] &^ acc; lost != 0 {
		if a := p * pageSize; a >= m.Mem.guardHi {
			m.lowLostStack = min(m.lowLostStack, a)
		}
		if lost&AccR != 0 {
			m.lowLostR = min(m.lowLostR, p*pageSize)
			m.highLostR = max(m.highLostR, (p+1)*pageSize)
		}
		if lost&AccW != 0 {
			m.lowLostW = min(m.lowLostW, p*pageSize)
			m.highLostW = max(m.highLostW, (p+1)*pageSize)
		}
	}
	m.perm[p] = v
	m.Mem.acc[p] = acc
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
		m.putPerm(a/pageSize, p)
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
	if p := off / pageSize; m.decoded[p] != 0 {
		clear(m.code[off/2 : off/2+slotsPerPage])
		m.decoded[p] = 0
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

// fixSpans brings Memory's fast intervals up to date with the page table
// after it changed: an interval is cut at the lowest page that lost
// access (lowLostR, lowLostW, lowLostStack), then grown over the accessible pages above its
// end. The heap's intervals run from ReadLo and WriteLo up to at most
// the guard gap, counting the reserve (never-mapped pages above the
// program) as accessible; the stack's from the stack limit to the top;
// the mappings' are runs above the heap's (mapRun). A
// page below staticHi that loses access changes what compiled code may
// assume of constant addresses (EnvEpoch); a heap or stack interval cut
// short counts in IntervalCuts.
func (m *Machine) fixSpans() {
	mem := m.Mem
	readHi, writeHi, stackHi := m.readHi, m.writeHi, m.stackHi
	lr, lw, hr, hw := m.lowLostR, m.lowLostW, m.highLostR, m.highLostW
	m.stackHi = min(m.stackHi, m.lowLostStack)
	if min(lr, lw) != ^uint64(0) {
		m.lowLostR, m.lowLostW, m.lowLostStack = ^uint64(0), ^uint64(0), ^uint64(0)
		// A load at a constant address is proven from ReadLo, a store
		// from WriteLo (RELRO, below it, turning read-only changes
		// nothing).
		if lr < m.staticHi && lr >= mem.readLo || lw < m.staticHi && lw >= mem.writeLo {
			m.staticHi = min(max(lr, mem.readLo), max(lw, mem.writeLo))
			m.envEpoch++
		}
		m.readHi = min(m.readHi, max(lr, mem.readLo))
		m.writeHi = min(m.writeHi, max(lw, mem.writeLo))
	}
	m.readHi = m.grow(m.readHi, mem.guardLo, AccR)
	m.writeHi = m.grow(m.writeHi, mem.guardLo, AccW)
	m.stackHi = m.grow(m.stackHi, mem.size, AccR|AccW)
	cutR, cutW := m.stranded(m.readHi, readHi), m.stranded(m.writeHi, writeHi)
	m.highLostR, m.highLostW = 0, 0
	var movedR, movedW bool
	m.mapRead, movedR = m.mapRun(m.mapRead, lr, hr, m.readHi, AccR, cutR)
	m.mapWrite, movedW = m.mapRun(m.mapWrite, lw, hw, m.writeHi, AccW, cutW)
	if m.stackHi < stackHi || cutR || cutW || movedR || movedW {
		m.intervalCuts++
	}
	mem.setMapSpans(m.mapRead.lo, span(m.mapRead.lo, m.mapRead.hi), m.mapWrite.lo, span(m.mapWrite.lo, m.mapWrite.hi))
	stack := m.stackHi - mem.guardHi
	if m.stackHi < mem.size {
		stack = span(mem.guardHi, m.stackHi)
	} // at the top the slack page past the address space takes a straddling access
	mem.setSpans(span(mem.readLo, m.readHi), span(mem.writeLo, m.writeHi), stack)
}

// A run is a range [lo, hi) of guest pages that all have an access:
// the mappings' fast intervals (native code's third; MapSpanOffsets).
type run struct{ lo, hi uint64 }

// mapRun returns the mappings' run for accesses that need need, after
// pages in [lostLo, lostHi) lost access: the run r as it was when none
// of them lies in it and the heap's interval (which ends at heapHi) was
// not cut (cut: memory in use was left above it), else the run above
// the heap's interval that holds the most mapped pages (bestRun); grown
// both ways over accessible pages, down to heapHi and up to the guard
// gap. The run starts as the empty one at the guard gap; after a cut it
// follows the memory the program maps: an array between two holes (the
// block mapped after it unmapped above it, then the one before it
// below) keeps a fast interval.
//
// moved reports that pages of r lost access: code compiled to test the
// mappings' interval first (ir.Inst.Mapped) may now find its memory
// elsewhere (glibc's array unmapped, the brk heap used at the same
// sites), as after a cut.
func (m *Machine) mapRun(r run, lostLo, lostHi, heapHi uint64, need uint8, cut bool) (_ run, moved bool) {
	moved = lostLo < r.hi && lostHi > r.lo
	if cut || moved {
		r = m.bestRun(heapHi, m.Mem.guardLo, need)
	}
	r.lo = m.growDown(max(r.lo, heapHi), heapHi, need)
	r.hi = m.grow(max(r.hi, r.lo), m.Mem.guardLo, need)
	return r, moved
}

// bestRun returns the run of pages with access need in [lo, hi) that
// holds the most mapped pages (the highest of equals), or the empty run
// at hi when none holds any. It walks the access table from hi down,
// eight pages at a time where all eight have the access and are all
// mapped or all not (the never-mapped reserve is most of the way in a
// 1 GiB address space: a quarter million pages), and only at a cut or
// when a munmap or mprotect took access from the run in use.
func (m *Machine) bestRun(lo, hi uint64, need uint8) run {
	const ones = 0x0101010101010101
	acc, perm := m.Mem.acc, m.perm
	want, mapped := uint64(need)*ones, uint64(permMap)*ones
	best, bestN := run{hi, hi}, 0
	cur, n := run{hi, hi}, 0
	for a := hi; a > lo; {
		if a-lo >= 8*pageSize {
			p := a/pageSize - 8
			w, pm := binary.LittleEndian.Uint64(acc[p:p+8]), binary.LittleEndian.Uint64(perm[p:p+8])&mapped
			if w&want == want && (pm == 0 || pm == mapped) {
				cur.lo = a - 8*pageSize
				if pm != 0 {
					n += 8
				}
				if n > bestN {
					best, bestN = cur, n
				}
				a -= 8 * pageSize
				continue
			}
		}
		p := a/pageSize - 1
		a -= pageSize
		if acc[p]&need != need {
			cur, n = run{a, a}, 0
			continue
		}
		cur.lo = a
		if perm[p]&permMap != 0 {
			n++
		}
		if n > bestN {
			best, bestN = cur, n
		}
	}
	return best
}

// stranded reports whether a cut of the heap's interval from hi down to
// lo leaves memory the program uses outside it: the program's image or
// brk heap, or a mapping, in [lo, hi). A munmap at the top of the
// mappings (glibc freeing the block it mapped last) strands nothing.
func (m *Machine) stranded(lo, hi uint64) bool {
	if lo >= hi {
		return false
	}
	if lo < m.brkTop {
		return true
	}
	for _, v := range m.mm.vmas {
		if v.lo < hi && v.hi > lo {
			return true
		}
	}
	return false
}

// span returns the fast path's span of the interval [lo, hi): the start
// addresses of the 8-byte accesses it holds (the page after hi may be
// inaccessible).
func span(lo, hi uint64) uint64 {
	if hi < lo+8 {
		return 0
	}
	return hi - lo - 7
}

// growDown returns the start of the run of pages from lo down to limit
// that have access need.
func (m *Machine) growDown(lo, limit uint64, need uint8) uint64 {
	for lo > limit && m.Mem.acc[lo/pageSize-1]&need == need {
		lo -= pageSize
	}
	return lo
}

// grow returns the end of the run of pages from hi up to limit that have
// access need.
func (m *Machine) grow(hi, limit uint64, need uint8) uint64 {
	// Eight pages at a time while they all have it: the first call walks
	// the whole never-mapped reserve (a quarter million pages in a 1 GiB
	// address space), which byte by byte took 0.8 ms of start-up.
	acc, want := m.Mem.acc, uint64(need)*0x0101010101010101
	for hi+8*pageSize <= limit {
		p := hi / pageSize
		if binary.LittleEndian.Uint64(acc[p:p+8])&want != want {
			break
		}
		hi += 8 * pageSize
	}
	for hi < limit {
		p := hi / pageSize
		if m.Mem.acc[p]&need != need {
			break
		}
		hi += pageSize
	}
	return hi
}

// EnvEpoch counts the times a page of the program's image lost access
// (mprotect or munmap of its data): compiled code that proved constant
// addresses accessible against StaticHi is stale then.
func (m *Machine) EnvEpoch() uint64 { return m.envEpoch }

// IntervalCuts counts the times a munmap or mprotect cut the heap's or
// the stack's fast interval short with memory the program uses above the
// cut (reached then through the mappings' interval or the page walk).
// Compiled code stays correct, but it tests its intervals in the order
// its recording found the addresses in (ir.Inst.Mapped): an access that
// the cut moved out of its first interval pays a cold test on every
// execution until its fragment is compiled again.
func (m *Machine) IntervalCuts() uint64 { return m.intervalCuts }

// StaticHi returns the end of the pages from Memory.ReadLo (or WriteLo,
// for stores) that stay accessible unless EnvEpoch changes: the
// program's image, as loaded.
func (m *Machine) StaticHi() uint64 { return m.staticHi }

// remapped is the last step of every system call that changes mappings
// or protections: the fast intervals follow the page table. It returns r.
func (m *Machine) remapped(r uint64) uint64 {
	m.fixSpans()
	return r
}

// markReserve gives the never-mapped pages of [lo, hi) access acc: the
// heap's reserve, and the gaps between the program's segments.
func (m *Machine) markReserve(lo, hi uint64, acc uint8) {
	// 64 pages at a time where none is mapped (the reserve is a quarter
	// million pages in a 1 GiB address space, a million in 4 GiB; see
	// grow), then eight, then one.
	var fill64 [64]uint8
	for i := range fill64 {
		fill64[i] = acc
	}
	fill := uint64(acc) * 0x0101010101010101
	for a := lo; a < hi; {
		p := a / pageSize
		if a%pageSize == 0 && a+64*pageSize <= hi && allZero(m.perm[p:p+64]) {
			copy(m.Mem.acc[p:p+64], fill64[:])
			a += 64 * pageSize
			continue
		}
		if a%pageSize == 0 && a+8*pageSize <= hi && binary.LittleEndian.Uint64(m.perm[p:p+8]) == 0 {
			binary.LittleEndian.PutUint64(m.Mem.acc[p:p+8], fill)
			a += 8 * pageSize
			continue
		}
		if m.perm[p] == 0 {
			m.Mem.acc[p] = acc
		}
		a += pageSize
	}
}

// allZero reports whether the 64 bytes of b are all zero.
func allZero(b []uint8) bool {
	var or uint64
	for i := 0; i < 64; i += 8 {
		or |= binary.LittleEndian.Uint64(b[i:])
	}
	return or == 0
}

// MemWidth returns the bytes a load or store instruction accesses (1, 2,
// 4 or 8; 0 for any other).
func MemWidth(op Op) uint64 {
	switch op {
	case OpLB, OpLBU, OpSB:
		return 1
	case OpLH, OpLHU, OpSH:
		return 2
	case OpLW, OpLWU, OpSW, OpFLW, OpFSW:
		return 4
	case OpLD, OpSD, OpFLD, OpFSD:
		return 8
	}
	return 0
}

// accessFault is the fault of a load or store (kind) at addr that the
// access table refused: SIGBUS on a file view's page past the end of its
// file whose protection allows the access, as Linux gives (its fault
// handler checks the vma's protection before it asks the file for the
// page), else kind (SIGSEGV). The page is addr's, or the next one's when
// addr's allows the access (one that crosses into it).
func (m *Machine) accessFault(kind FaultKind, pc, addr uint64, raw uint32) error {
	need := permR | permW // a load: RISC-V has no write-only pages
	if kind == FaultStore {
		need = permW
	}
	p := m.pageOf(addr)
	if p&permMap != 0 && p&permBus == 0 && p&need != 0 {
		p = m.pageOf(addr + 7) // the refusal is the next page's
	}
	if p&permBus != 0 && p&need != 0 {
		kind = FaultBus
	}
	return &Fault{Kind: kind, PC: pc, Addr: addr, Raw: raw}
}

// MapRuns returns the mappings' fast intervals for loads and for stores
// as they are now, each [lo, hi) (see MapSpanOffsets and mapRun).
func (m *Machine) MapRuns() (readLo, readHi, writeLo, writeHi uint64) {
	return m.mapRead.lo, m.mapRead.hi, m.mapWrite.lo, m.mapWrite.hi
}
