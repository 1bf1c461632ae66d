// Memory system calls: mmap, munmap, mprotect, mremap, madvise, msync -> mappings (vmas) inside the guest address space.

package interp

import (
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mappings live between the brk heap and the guard gap under the stack,
// handed out bottom up from a third of the way up (findFree), as
// qemu-riscv64 does; the brk heap's limit follows the lowest mapping, so
// the two never overlap. Memory there is already inside the guest's host
// mapping: an anonymous mapping is bookkeeping (the vmas here, the page
// table of pages.go) plus zeroed pages, and the guest can never be given
// memory outside [0, MemSize). A file mapping is a host mapping of the
// file placed over those pages (MAP_FIXED, private or shared as the guest
// asked), so that shared stores reach the file, private pages are copied
// on write and MADV_DONTNEED brings the file's bytes back, as under
// Linux; unmapping puts anonymous memory back. A mapping may be
// executable (a dynamic loader maps libraries so, a JIT its buffers): the
// page table says so, and unmapping, remapping or re-protecting such
// pages drops the code built from them.

// A vma is one mapping: [lo, hi), anonymous (file nil) or a view of a
// file from offset off. Neighbouring anonymous vmas merge, as Linux's do
// (protections are per page, in the page table).
type vma struct {
	lo, hi uint64
	file   *mapFile
	off    uint64
}

// A mapFile is a file some vmas view: a host fd of it (dup'd: the guest
// may close its own) and whether stores reach it.
type mapFile struct {
	fd     int
	shared bool
	refs   int
}

// mmapState is the set of mappings, sorted and disjoint.
type mmapState struct {
	vmas []vma
	top  uint64 // the highest address a mapping may reach (the heap's original limit)
	// pastEnd: some file view may have pages wholly past its file's end
	// (resized).
	pastEnd bool
}

const (
	protGrowsdown    = 0x01000000
	protGrowsup      = 0x02000000
	mapShared        = 0x01
	mapPrivate       = 0x02
	mapSharedValid   = 0x03
	mapType          = 0x0f
	mapFixed         = 0x10
	mapAnonymous     = 0x20
	mapFixedNoreplac = 0x100000
	mremapMaymove    = 1
	mremapFixed      = 2
	mremapDontunmap  = 4
	msAsync          = 1
	msInvalidate     = 2
	msSync           = 4
)

func pageUp(n uint64) uint64 { return (n + pageSize - 1) &^ (pageSize - 1) }

// mmapLow is the lowest address a mapping may take: above every page
// the break has reached (see sysBrk).
func (m *Machine) mmapLow() uint64 { return max(pageUp(m.brk), m.brkTop) }

// mapAdd maps [lo, hi) anonymous with permission p (zeroed; the caller
// has made the range free).
func (m *Machine) mapAdd(lo, hi uint64, p uint8) {
	m.zeroPages(lo, hi)
	m.vmaInsert(vma{lo: lo, hi: hi})
	m.setPages(lo, hi, p, true)
}

// vmaInsert records v (free before), merging it with compatible
// neighbours, and moves the brk heap's limit.
func (m *Machine) vmaInsert(v vma) {
	if v.file != nil {
		v.file.refs++
	}
	s := append(m.mm.vmas, v)
	sort.Slice(s, func(i, j int) bool { return s[i].lo < s[j].lo })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.lo == out[n-1].hi && contiguous(out[n-1], x) {
			out[n-1].hi = x.hi
			if x.file != nil {
				x.file.refs--
			}
			continue
		}
		out = append(out, x)
	}
	m.mm.vmas = out
	m.setBrkLimit()
}

// contiguous reports whether b continues a: both anonymous, or the same
// file at the following offset.
func contiguous(a, b vma) bool {
	return a.file == b.file && (a.file == nil || a.off+(a.hi-a.lo) == b.off)
}

func (m *Machine) setBrkLimit() {
	m.brkLimit = m.mm.top
	if len(m.mm.vmas) > 0 {
		m.brkLimit = min(m.mm.top, m.mm.vmas[0].lo)
	}
}

// mapRemove unmaps [lo, hi): anonymous pages go back to the host (and
// read as zero when mapped again), file views are replaced by anonymous
// memory, and the pages become unmapped in the page table.
func (m *Machine) mapRemove(lo, hi uint64) {
	var out []vma
	for _, x := range m.mm.vmas {
		if x.hi <= lo || x.lo >= hi {
			out = append(out, x)
			continue
		}
		if x.lo < lo {
			out = append(out, vma{lo: x.lo, hi: lo, file: x.file, off: x.off})
			x.fileRef()
		}
		if x.hi > hi {
			out = append(out, vma{lo: hi, hi: x.hi, file: x.file, off: x.off + (hi - x.lo)})
			x.fileRef()
		}
		a, b := max(x.lo, lo), min(x.hi, hi)
		if x.file != nil {
			m.hostAnon(a, b)
			x.file.release()
		} else {
			m.zeroPages(a, b)
		}
		m.setPages(a, b, 0, true)
	}
	m.mm.vmas = out
	m.setBrkLimit()
}

func (v vma) fileRef() {
	if v.file != nil {
		v.file.refs++
	}
}

// release drops a vma's reference to the file, closing the host fd with
// the last.
func (f *mapFile) release() {
	if f.refs--; f.refs == 0 {
		unix.Close(f.fd)
	}
}

// closeMappings closes the files mappings hold (the memory goes with the
// guest's).
func (m *Machine) closeMappings() {
	for _, x := range m.mm.vmas {
		if x.file != nil {
			x.file.release()
		}
	}
	m.mm.vmas = nil
}

// zeroPages gives [lo, hi) back to the host: the private anonymous
// mapping reads as zeros afterwards.
func (m *Machine) zeroPages(lo, hi uint64) {
	if hi > lo {
		unix.Madvise(m.Mem.Bytes(lo, hi-lo), unix.MADV_DONTNEED)
	}
}

// hostAnon puts fresh anonymous memory over [lo, hi) of the guest's host
// mapping (where a file view was).
func (m *Machine) hostAnon(lo, hi uint64) {
	if hi > lo {
		unix.MmapPtr(-1, 0, m.Mem.ptr(lo), uintptr(hi-lo), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_FIXED|unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	}
}

// mapFree reports whether [lo, hi) is free for a mapping.
func (m *Machine) mapFree(lo, hi uint64) bool {
	if lo < m.mmapLow() || hi > m.mm.top || hi < lo {
		return false
	}
	for _, x := range m.mm.vmas {
		if x.lo < hi && lo < x.hi {
			return false
		}
	}
	return true
}

// vmaOf returns the index of the vma holding all of [lo, hi), or -1.
func (m *Machine) vmaOf(lo, hi uint64) int {
	for i, x := range m.mm.vmas {
		if lo >= x.lo && hi <= x.hi {
			return i
		}
	}
	return -1
}

// findFree returns where a mapping of n bytes goes without a hint, or 0
// when no free range holds it: the lowest free range from mapBase up, as
// qemu-riscv64 hands out guest mappings (bottom up from its
// TASK_UNMAPPED_BASE, as Linux's legacy layout does); when none is left
// there, the highest free range below.
//
// Bottom up is also what keeps the fast intervals whole under glibc's
// malloc: the block it maps last lies at the top and is freed first (a
// sort's scratch buffer), so its munmap leaves a hole with nothing
// above it, where top down it left one between the brk heap and every
// block mapped before, cutting the heap's interval (IntervalCuts) with
// arrays that then alternate with brk memory at the same sites.
func (m *Machine) findFree(n uint64) uint64 {
	lo := m.mapBase()
	for _, v := range m.mm.vmas {
		if v.hi <= lo {
			continue
		}
		if v.lo >= lo && v.lo-lo >= n {
			return lo
		}
		lo = max(lo, v.hi)
	}
	if lo <= m.mm.top && m.mm.top-lo >= n {
		return lo
	}
	hi := m.mm.top
	for i := len(m.mm.vmas) - 1; i >= -1; i-- {
		lo := m.mmapLow()
		if i >= 0 {
			lo = max(lo, m.mm.vmas[i].hi)
		}
		if hi >= lo && hi-lo >= n {
			return hi - n
		}
		if i >= 0 {
			hi = m.mm.vmas[i].lo
		}
	}
	return 0
}

// mapBase is where findFree starts: a third of the way up to the guard
// gap (Linux's TASK_UNMAPPED_BASE rule, TASK_SIZE/3, for its legacy
// layout; qemu-riscv64 7.2 starts at 256 GiB, past any address space
// rvdyn gives), or above the brk heap if that has grown past it. What
// lies below is the brk heap's room.
func (m *Machine) mapBase() uint64 {
	return max(pageUp(m.mm.top/3), m.mmapLow())
}

// sysMmap makes its checks in the kernel's order (arch/riscv sys_mmap,
// ksys_mmap_pgoff, do_mmap): the offset, the fd, the length (a length
// that cannot fit is -ENOMEM, as there is no room for it), the mapping
// type, then what the file allows.
func (m *Machine) sysMmap(addr, length, prot, flags, fd, off uint64) uint64 {
	if off%pageSize != 0 {
		return neg(eINVAL)
	}
	var file *gfile
	if flags&mapAnonymous == 0 {
		if file = m.fds.get(fd); file == nil {
			return neg(eBADF)
		}
	}
	n := pageUp(length)
	shared := flags&mapType == mapShared || flags&mapType == mapSharedValid
	switch {
	case length == 0:
		return neg(eINVAL)
	case n < length || n > m.mm.top:
		return neg(eNOMEM)
	case !shared && flags&mapType != mapPrivate:
		return neg(eINVAL)
	case prot&^(7|protGrowsdown|protGrowsup) != 0:
		return neg(eINVAL)
	}
	host, size := -1, uint64(0) // the file to map, and its size
	if file != nil {
		var e uint64
		if host, size, e = mappable(file, shared && prot&unix.PROT_WRITE != 0); e != 0 {
			return e
		}
	}
	var at uint64
	switch {
	case flags&(mapFixed|mapFixedNoreplac) != 0:
		if addr%pageSize != 0 {
			return neg(eINVAL)
		}
		at = addr
		if flags&mapFixedNoreplac != 0 && !m.mapFree(at, at+n) {
			return neg(eEXIST)
		}
		if at < m.mmapLow() || at+n > m.mm.top || at+n < at {
			return neg(eNOMEM) // only the free range between heap and stack can be mapped over
		}
		m.mapRemove(at, at+n)
	case addr%pageSize == 0 && m.mapFree(addr, addr+n):
		at = addr // the hint is honoured when it is free
	default:
		if at = m.findFree(n); at == 0 {
			return neg(eNOMEM)
		}
	}
	if host < 0 {
		m.mapAdd(at, at+n, protBits(prot)) // anonymous, or /dev/zero
		return at
	}
	if e := m.mapFile(at, n, host, off, size, shared, protBits(prot)); e != 0 {
		return e
	}
	return at
}

// mapFile maps n bytes of host file fd (size bytes long) from offset off
// at guest address at, one vma: the pages the file reaches are a host
// view of it; those wholly past its end stay anonymous in the host, and
// an access there is SIGBUS, as under Linux (permBus), until the file
// grows to reach them (resized).
func (m *Machine) mapFile(at, n uint64, fd int, off, size uint64, shared bool, p uint8) uint64 {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return errno(err)
	}
	f := &mapFile{fd: dup, shared: shared}
	in := reach(off, n, size)
	if in > 0 {
		if err := f.view(m.Mem.ptr(at), off, in); err != nil {
			unix.Close(dup)
			return errno(err)
		}
	}
	m.vmaInsert(vma{lo: at, hi: at + n, file: f, off: off})
	m.setPages(at, at+in, p, true)
	if in < n {
		m.zeroPages(at+in, at+n)
		m.setPages(at+in, at+n, p|permBus, true)
		m.mm.pastEnd = true
	}
	return 0
}

// reach returns the bytes of a view of n bytes from file offset off that
// a file of size bytes reaches: whole pages, at most n.
func reach(off, n, size uint64) uint64 {
	if size <= off {
		return 0
	}
	return min(n, pageUp(size-off))
}

// view maps n bytes of f from offset off at host address at, over what
// is there.
func (f *mapFile) view(at unsafe.Pointer, off, n uint64) error {
	kind := unix.MAP_PRIVATE
	if f.shared {
		kind = unix.MAP_SHARED
	}
	_, err := unix.MmapPtr(f.fd, int64(off), at, uintptr(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_FIXED|kind)
	return err
}

// mappable says what a mapping of file f is: a view of a host regular
// file (its fd and size), zeros (/dev/zero, fd -1), or -errno as the
// kernel answers: -EACCES if f is not open for reading, or a writable
// shared mapping of a file not open for writing; -ENODEV for what has no
// mmap (a directory, a pipe, a terminal, most devices, and a standard
// stream that is not a host file).
func mappable(f *gfile, sharedWrite bool) (int, uint64, uint64) {
	h := f.hostFd()
	if h < 0 {
		return -1, 0, neg(eNODEV)
	}
	fl, err := unix.FcntlInt(uintptr(h), unix.F_GETFL, 0)
	if err != nil {
		return -1, 0, errno(err)
	}
	if fl&unix.O_ACCMODE == unix.O_WRONLY || sharedWrite && (fl&unix.O_ACCMODE != unix.O_RDWR || fl&unix.O_APPEND != 0) {
		return -1, 0, neg(eACCES)
	}
	var st unix.Stat_t
	if err := unix.Fstat(h, &st); err != nil {
		return -1, 0, errno(err)
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFREG:
		return h, uint64(st.Size), 0
	case st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(1, 5): // /dev/zero
		return -1, 0, 0
	}
	return -1, 0, neg(eNODEV)
}

// sysMunmap unmaps what lies in the range (nothing mapped: still 0).
// Pages of the program's segments, the brk heap and the stack are
// unmapped too (an access there then faults), as Linux does.
func (m *Machine) sysMunmap(addr, length uint64) uint64 {
	n := pageUp(length)
	if addr%pageSize != 0 || length == 0 || n < length || addr+n < addr || addr+n > taskSize {
		return neg(eINVAL)
	}
	m.mapRemove(addr, addr+n)
	for a := addr; a < addr+n && a < m.Mem.size; a += pageSize {
		if m.pageOf(a)&permMap != 0 { // the program's segments, the brk heap, the stack
			m.zeroPages(a, a+pageSize)
			m.setPages(a, a+pageSize, 0, true)
		}
	}
	return 0
}

// sysFlushIcache is riscv_flush_icache, what __builtin___clear_cache
// calls on RISC-V Linux: fence.i for the whole process (SyncText). The
// range and flags are hints the kernel ignores too, but for flags'
// unknown bits (-EINVAL).
func (m *Machine) sysFlushIcache(start, end, flags uint64) uint64 {
	if flags&^1 != 0 { // SYS_RISCV_FLUSH_ICACHE_LOCAL
		return neg(eINVAL)
	}
	m.SyncText()
	return 0
}

// sysMprotect changes the protection of mapped pages as Linux does
// (do_mprotect_pkey), in address order: it stops at the first page that
// is unmapped (-ENOMEM) or is a shared view of a file not open for
// writing when PROT_WRITE is asked (-EACCES), and the pages before it keep
// their new protection. PROT_GROWSDOWN and PROT_GROWSUP are accepted and
// have no effect.
func (m *Machine) sysMprotect(addr, length, prot uint64) uint64 {
	n := pageUp(length)
	if addr%pageSize != 0 || n < length || addr+n < addr || prot&^(7|protGrowsdown|protGrowsup) != 0 {
		return neg(eINVAL)
	}
	for a := addr; a < addr+n; a += pageSize {
		if a >= m.Mem.size || m.pageOf(a)&permMap == 0 {
			return neg(eNOMEM)
		}
		if i := m.vmaOf(a, a+pageSize); i >= 0 && prot&unix.PROT_WRITE != 0 {
			if f := m.mm.vmas[i].file; f != nil && f.shared && !writable(f.fd) {
				return neg(eACCES) // a shared view of a file not open for writing
			}
		}
		m.setPages(a, a+pageSize, protBits(prot)|m.pageOf(a)&permBus, false)
	}
	return 0
}

// writable reports whether host fd h is open for writing.
func writable(h int) bool {
	fl, err := unix.FcntlInt(uintptr(h), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}

// sysMremap resizes or moves a mapping, in the order of Linux's checks
// (mm/mremap.c): the first page must be mapped (else -EFAULT); shrinking
// in place, or keeping the size, then always succeeds (the old range's
// tail is unmapped, whatever it holds); growing or moving needs all of
// the old range (what remains of it after a move's shrink) in one Linux
// vma: one of ours, and one protection throughout (else -EFAULT). A move
// to a fixed address unmaps the destination first, and a shrinking one
// its tail, even when the move then fails. A file view grows by viewing
// more of its file; it moves by the host's mremap, so that private pages
// written so far move with it.
func (m *Machine) sysMremap(old, oldLen, newLen, flags, newAddr uint64) uint64 {
	on, nn := pageUp(oldLen), pageUp(newLen)
	switch {
	case old%pageSize != 0 || flags&^(mremapMaymove|mremapFixed|mremapDontunmap) != 0 || flags&mremapFixed != 0 && flags&mremapMaymove == 0:
		return neg(eINVAL)
	case flags&mremapDontunmap != 0:
		return neg(eINVAL) // MREMAP_DONTUNMAP is not offered
	case newLen == 0 || nn < newLen || on < oldLen || old+on < old || nn > taskSize:
		return neg(eINVAL) // a length that wraps, or no address space has
	case flags&mremapFixed != 0 && (newAddr%pageSize != 0 || newAddr < old+on && old < newAddr+nn):
		return neg(eINVAL)
	}
	if m.vmaOf(old, old+pageSize) < 0 {
		return neg(eFAULT)
	}
	fixed := flags&mremapFixed != 0
	if fixed {
		if newAddr < m.mmapLow() || newAddr+nn > m.mm.top || newAddr+nn < newAddr {
			return neg(eNOMEM)
		}
		m.mapRemove(newAddr, newAddr+nn)
	}
	if nn <= on {
		m.mapRemove(old+nn, old+on)
		if !fixed {
			return old
		}
		on = nn
	}
	i := m.vmaOf(old, old+on)
	if on == 0 || i < 0 || !m.samePerm(old, old+on) {
		return neg(eFAULT)
	}
	v := m.mm.vmas[i]
	switch {
	case fixed:
		return m.moveMapping(v, old, on, nn, newAddr)
	case m.mapFree(old+on, old+nn):
		if e := m.extend(v, old, on, nn); e != 0 {
			return e
		}
		return old
	case flags&mremapMaymove == 0:
		return neg(eNOMEM)
	}
	at := m.findFree(nn)
	if at == 0 {
		return neg(eNOMEM)
	}
	return m.moveMapping(v, old, on, nn, at)
}

// samePerm reports whether the pages of [lo, hi) all have lo's
// protection: within one of our vmas, a range Linux keeps in one vma.
func (m *Machine) samePerm(lo, hi uint64) bool {
	p := m.pageOf(lo) &^ permBus
	for a := lo + pageSize; a < hi; a += pageSize {
		if m.pageOf(a)&^permBus != p {
			return false
		}
	}
	return true
}

// extend grows the mapping [old, old+on) of vma v in place to nn bytes:
// more of the same file, or more anonymous memory, with the protection of
// its last page.
func (m *Machine) extend(v vma, old, on, nn uint64) uint64 {
	p := m.pageOf(old+on-pageSize) &^ permBus
	if v.file == nil {
		m.mapAdd(old+on, old+nn, p)
		return 0
	}
	var st unix.Stat_t
	if err := unix.Fstat(v.file.fd, &st); err != nil {
		return errno(err)
	}
	return m.mapFile(old+on, nn-on, v.file.fd, v.off+(old+on-v.lo), uint64(st.Size), v.file.shared, p)
}

// moveMapping moves [old, old+on) of vma v to at (free), resized to nn
// bytes, and returns at.
func (m *Machine) moveMapping(v vma, old, on, nn, at uint64) uint64 {
	keep := min(on, nn)
	moved := vma{lo: at, hi: at + keep, file: v.file, off: v.off + (old - v.lo)}
	perms := make([]uint8, keep/pageSize)
	copy(perms, m.perm[old/pageSize:])
	if v.file == nil {
		m.mapAdd(at, at+keep, permMap)
		copy(m.Mem.Bytes(at, keep), m.Mem.Bytes(old, keep))
	} else {
		if _, err := unix.MremapPtr(m.Mem.ptr(old), uintptr(keep), m.Mem.ptr(at), uintptr(keep), unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED); err != nil {
			return errno(err)
		}
		m.hostAnon(old, old+keep) // the host left a hole there
		m.vmaInsert(moved)
	}
	m.mapRemove(old, old+on) // a file view: its pages are anonymous already
	for j, p := range perms {
		m.setPages(at+uint64(j)*pageSize, at+uint64(j+1)*pageSize, p, true)
	}
	if nn > on {
		if e := m.extend(moved, at, on, nn); e != 0 {
			return e
		}
	}
	return at
}

// sysMadvise accepts the advice; MADV_DONTNEED gives mapped pages back,
// as Linux does: anonymous ones read as zero, private file views as the
// file again, shared ones keep the file's contents.
func (m *Machine) sysMadvise(addr, length, advice uint64) uint64 {
	n := pageUp(length)
	if addr%pageSize != 0 || n < length || addr+n < addr {
		return neg(eINVAL)
	}
	if advice == unix.MADV_DONTNEED {
		for _, x := range m.mm.vmas {
			lo, hi := max(x.lo, addr), min(x.hi, addr+n)
			if lo < hi {
				m.zeroPages(lo, hi)
			}
		}
	}
	return 0
}

// sysMsync writes shared file views back (the host's msync) after
// Linux's checks: -EINVAL for an unaligned address or bad flags, -ENOMEM
// if part of the range is unmapped.
func (m *Machine) sysMsync(addr, length, flags uint64) uint64 {
	n := pageUp(length)
	switch {
	case addr%pageSize != 0 || flags&^(msAsync|msInvalidate|msSync) != 0 || flags&(msAsync|msSync) == msAsync|msSync:
		return neg(eINVAL)
	case n < length || addr+n < addr || addr+n > m.Mem.size || !m.mappedRange(addr, addr+n):
		return neg(eNOMEM)
	}
	for _, x := range m.mm.vmas {
		lo, hi := max(x.lo, addr), min(x.hi, addr+n)
		if lo < hi && x.file != nil && x.file.shared {
			if err := unix.Msync(m.Mem.Bytes(lo, hi-lo), int(flags)); err != nil {
				return errno(err)
			}
		}
	}
	return 0
}

// resized is the last step of the system calls that may change a file's
// size (ftruncate, openat with O_TRUNC, and every write, in transfer): it
// makes the pages of every file view agree with its file's size as
// Linux's page faults do.
// Pages that now lie wholly past the end of their file become anonymous
// in the host and SIGBUS to the guest (where the host's view would fault
// in rvdyn itself); pages a grown file reaches again view it again, with
// their protection. (A file another process resizes is not seen.) The
// writes look only when some view has pages past its file's end. It
// returns r.
func (m *Machine) resized(r uint64, shrinks bool) uint64 {
	if !shrinks && !m.mm.pastEnd {
		return r
	}
	past, cut := false, false
	for _, x := range m.mm.vmas {
		if x.file == nil || !shrinks && m.pageOf(x.hi-pageSize)&permBus == 0 {
			continue // a view has pages past the end only at its end
		}
		var st unix.Stat_t
		if unix.Fstat(x.file.fd, &st) != nil {
			continue
		}
		// The pages past the end are a suffix of the view, from bus on.
		end, bus := x.lo+reach(x.off, x.hi-x.lo, uint64(st.Size)), x.hi
		for bus > x.lo && m.pageOf(bus-pageSize)&permBus != 0 {
			bus -= pageSize
		}
		switch {
		case end < bus:
			m.hostAnon(end, bus)
			for a := end; a < bus; a += pageSize {
				m.setPages(a, a+pageSize, m.pageOf(a)|permBus, false)
			}
			cut = true
		case end > bus:
			if x.file.view(m.Mem.ptr(bus), x.off+(bus-x.lo), end-bus) != nil {
				end = bus // they stay SIGBUS
			}
			for a := bus; a < end; a += pageSize {
				m.setPages(a, a+pageSize, m.pageOf(a)&^permBus, false)
			}
		}
		past = past || end < x.hi
	}
	m.mm.pastEnd = past
	if cut {
		m.fixSpans()
	}
	return r
}
