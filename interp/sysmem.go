// Memory system calls: mmap, munmap, mprotect, mremap, madvise -> page ranges inside the guest address space.

package interp

import (
	"sort"

	"golang.org/x/sys/unix"
)

// Mappings live between the brk heap and the guard gap under the stack,
// handed out top down from the heap's original limit as Linux does below
// the stack; the brk heap's limit follows the lowest mapping down, so the
// two never overlap. Memory there is already inside the guest's checked
// address space: a mapping is bookkeeping (the spans here, the page
// table of pages.go) plus zeroed pages, and the guest can never be given
// memory outside [0, MemSize). A mapping may be executable (a dynamic
// loader maps libraries so, a JIT its buffers): the page table says so,
// and unmapping, remapping or re-protecting such pages drops the code
// built from them. Loads and stores are checked against the address
// space's intervals (see Memory), not yet against each page's protection
// (documented in docs/syscalls.md).

type span struct{ lo, hi uint64 }

// mmapState is the set of mapped page ranges, sorted and disjoint.
type mmapState struct {
	spans []span
	top   uint64 // the highest address a mapping may reach (the heap's original limit)
}

const (
	protGrowsdown    = 0x01000000
	protGrowsup      = 0x02000000
	mapShared        = 0x01
	mapPrivate       = 0x02
	mapFixed         = 0x10
	mapAnonymous     = 0x20
	mapFixedNoreplac = 0x100000
	mremapMaymove    = 1
	mremapFixed      = 2
)

func pageUp(n uint64) uint64 { return (n + pageSize - 1) &^ (pageSize - 1) }

// mmapLow is the lowest address a mapping may take: above the break.
func (m *Machine) mmapLow() uint64 { return pageUp(m.brk) }

// mapAdd records [lo, hi) as mapped with permission p (merging
// neighbours) and zeroes it.
func (m *Machine) mapAdd(lo, hi uint64, p uint8) {
	m.zeroPages(lo, hi)
	m.setPages(lo, hi, p, true)
	s := append(m.mm.spans, span{lo, hi})
	sort.Slice(s, func(i, j int) bool { return s[i].lo < s[j].lo })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	m.mm.spans = out
	m.brkLimit = min(m.mm.top, out[0].lo)
}

// mapRemove unmaps [lo, hi): the pages go back to the host (and read as
// zero when mapped again).
func (m *Machine) mapRemove(lo, hi uint64) {
	var out []span
	for _, x := range m.mm.spans {
		if x.hi <= lo || x.lo >= hi {
			out = append(out, x)
			continue
		}
		if x.lo < lo {
			out = append(out, span{x.lo, lo})
		}
		if x.hi > hi {
			out = append(out, span{hi, x.hi})
		}
		m.zeroPages(max(x.lo, lo), min(x.hi, hi))
		m.setPages(max(x.lo, lo), min(x.hi, hi), 0, true)
	}
	m.mm.spans = out
	m.brkLimit = m.mm.top
	if len(out) > 0 {
		m.brkLimit = out[0].lo
	}
}

// zeroPages gives [lo, hi) back to the host: the private anonymous
// mapping reads as zeros afterwards.
func (m *Machine) zeroPages(lo, hi uint64) {
	if hi > lo {
		unix.Madvise(m.Mem.Bytes(lo, hi-lo), unix.MADV_DONTNEED)
	}
}

// free reports whether [lo, hi) is free for a mapping.
func (m *Machine) mapFree(lo, hi uint64) bool {
	if lo < m.mmapLow() || hi > m.mm.top || hi < lo {
		return false
	}
	for _, x := range m.mm.spans {
		if x.lo < hi && lo < x.hi {
			return false
		}
	}
	return true
}

// mapped reports whether [lo, hi) lies inside one mapping.
func (m *Machine) mapped(lo, hi uint64) bool {
	for _, x := range m.mm.spans {
		if lo >= x.lo && hi <= x.hi {
			return true
		}
	}
	return false
}

// findFree returns the highest free range of n bytes, or 0.
func (m *Machine) findFree(n uint64) uint64 {
	hi := m.mm.top
	for i := len(m.mm.spans) - 1; i >= -1; i-- {
		lo := m.mmapLow()
		if i >= 0 {
			lo = max(lo, m.mm.spans[i].hi)
		}
		if hi >= lo && hi-lo >= n {
			return hi - n
		}
		if i >= 0 {
			hi = m.mm.spans[i].lo
		}
	}
	return 0
}

// sysMmap makes its checks in the kernel's order (arch/riscv sys_mmap,
// ksys_mmap_pgoff, do_mmap): the offset, the fd, the length (a length
// that cannot fit is -ENOMEM, as there is no room for it), the mapping
// type, then what the file allows.
func (m *Machine) sysMmap(addr, length, prot, flags, fd, off uint64) uint64 {
	if m.mm.top == 0 {
		m.mm.top = m.brkLimit
	}
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
	switch {
	case length == 0:
		return neg(eINVAL)
	case n < length || n > m.mm.top:
		return neg(eNOMEM)
	case flags&(mapShared|mapPrivate) == 0 || flags&(mapShared|mapPrivate) == mapShared|mapPrivate:
		return neg(eINVAL)
	}
	var host int // the file to copy from, or -1
	if file != nil {
		var e uint64
		if host, e = mappable(file); e != 0 {
			return e
		}
		if flags&mapShared != 0 {
			return neg(eNODEV) // a shared file mapping needs the host's pages: not offered
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
	m.mapAdd(at, at+n, protBits(prot))
	if file != nil && host >= 0 {
		// A private file mapping is a copy of the file: read it in.
		b := m.Mem.Bytes(at, length)
		for done := 0; done < len(b); {
			k, err := unix.Pread(host, b[done:], int64(off)+int64(done))
			if err != nil {
				m.mapRemove(at, at+n)
				return errno(err)
			}
			if k == 0 {
				break
			}
			done += k
		}
	}
	return at
}

// mappable says what a private mapping of file f is: a copy of a host
// regular file (its fd), zeros (/dev/zero, fd -1), or -errno as the
// kernel answers: -EACCES if f is not open for reading, -ENODEV for what
// has no mmap (a directory, a pipe, a terminal, most devices, and a
// standard stream that is not a host file).
func mappable(f *gfile) (int, uint64) {
	h := f.hostFd()
	if h < 0 {
		return -1, neg(eNODEV)
	}
	fl, err := unix.FcntlInt(uintptr(h), unix.F_GETFL, 0)
	if err != nil {
		return -1, errno(err)
	}
	if fl&unix.O_ACCMODE == unix.O_WRONLY {
		return -1, neg(eACCES)
	}
	var st unix.Stat_t
	if err := unix.Fstat(h, &st); err != nil {
		return -1, errno(err)
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFREG:
		return h, 0
	case st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(1, 5): // /dev/zero
		return -1, 0
	}
	return -1, neg(eNODEV)
}

func (m *Machine) sysMunmap(addr, length uint64) uint64 {
	n := pageUp(length)
	if addr%pageSize != 0 || length == 0 || n < length || addr+n < addr {
		return neg(eINVAL)
	}
	m.mapRemove(addr, addr+n)
	return 0
}

// sysMprotect changes the protection of mapped pages, as Linux does:
// -ENOMEM if any page of the range is unmapped. PROT_GROWSDOWN and
// PROT_GROWSUP are accepted and have no effect.
func (m *Machine) sysMprotect(addr, length, prot uint64) uint64 {
	n := pageUp(length)
	switch {
	case addr%pageSize != 0 || n < length || addr+n < addr || prot&^(7|protGrowsdown|protGrowsup) != 0:
		return neg(eINVAL)
	case addr+n > m.Mem.size || !m.mappedRange(addr, addr+n):
		return neg(eNOMEM)
	}
	m.setPages(addr, addr+n, protBits(prot), false)
	return 0
}

func (m *Machine) sysMremap(old, oldLen, newLen, flags, newAddr uint64) uint64 {
	on, nn := pageUp(oldLen), pageUp(newLen)
	switch {
	case old%pageSize != 0 || flags&^(mremapMaymove|mremapFixed) != 0 || flags&mremapFixed != 0 && flags&mremapMaymove == 0:
		return neg(eINVAL)
	case newLen == 0 || nn < newLen || on < oldLen || old+on < old || nn > taskSize:
		return neg(eINVAL) // a length that wraps, or no address space has
	case flags&mremapFixed != 0:
		return neg(eINVAL) // moving to a chosen address is not offered
	case on == 0 || !m.mapped(old, old+on):
		return neg(eFAULT)
	}
	switch {
	case nn <= on:
		m.mapRemove(old+nn, old+on)
		return old
	case m.mapFree(old+on, old+nn):
		m.mapAdd(old+on, old+nn, m.pageOf(old+on-pageSize))
		return old
	case flags&mremapMaymove == 0:
		return neg(eNOMEM)
	}
	at := m.findFree(nn)
	if at == 0 {
		return neg(eNOMEM)
	}
	m.mapAdd(at, at+nn, m.pageOf(old))
	copy(m.Mem.Bytes(at, on), m.Mem.Bytes(old, on))
	for a := uint64(0); a < on; a += pageSize {
		m.perm[(at+a)/pageSize] = m.perm[(old+a)/pageSize] // protections move with the pages (at's are not decoded)
	}
	m.mapRemove(old, old+on)
	return at
}

// sysMadvise accepts the advice; MADV_DONTNEED zeroes mapped pages, as
// it does for private anonymous memory under Linux.
func (m *Machine) sysMadvise(addr, length, advice uint64) uint64 {
	n := pageUp(length)
	if addr%pageSize != 0 || n < length || addr+n < addr {
		return neg(eINVAL)
	}
	if advice == unix.MADV_DONTNEED {
		for _, x := range m.mm.spans {
			lo, hi := max(x.lo, addr), min(x.hi, addr+n)
			if lo < hi {
				m.zeroPages(lo, hi)
			}
		}
	}
	return 0
}
