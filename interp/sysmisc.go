// Calls real programs make beside their main work: statx, sendfile, copy_file_range, fallocate, memfd_create, prctl's name, scheduling and priority queries, getcpu, mlock -> the host's answers where the guest's file or process is the host's, the kernel's rules otherwise.

package interp

import (
	"encoding/binary"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysStatx is statx: the path resolved as newfstatat resolves it (under
// --root, inside the root; AT_EMPTY_PATH for an open fd), and the host's
// struct statx copied as it is, since its layout is the same on every
// architecture (256 bytes). A standard stream that is not a host file is
// a FIFO, as fstat says.
func (m *Machine) sysStatx(dirfd, pathp, flags, mask, buf uint64) uint64 {
	const statxSize = 256
	if !m.Mem.CanWrite(buf, statxSize) {
		return neg(eFAULT)
	}
	if flags&^(atSymlinkNofollow|atEmptyPath|0x800|0x6000) != 0 || mask&0x80000000 != 0 { // AT_NO_AUTOMOUNT, AT_STATX_SYNC_TYPE; STATX__RESERVED
		return neg(eINVAL)
	}
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	var stx unix.Statx_t
	var err error
	switch {
	case p == "" && flags&atEmptyPath != 0 && !isCwd(dirfd):
		f := m.fds.get(dirfd)
		if f == nil {
			return neg(eBADF)
		}
		h := f.host
		if h < 0 {
			h = f.stdFd()
		}
		if h < 0 {
			stx.Mask = unix.STATX_TYPE | unix.STATX_MODE
			stx.Mode = unix.S_IFIFO | 0o600
			stx.Blksize = 4096
			break
		}
		err = unix.Statx(h, "", unix.AT_EMPTY_PATH, int(mask), &stx)
	case p == "" && flags&atEmptyPath == 0:
		return neg(eNOENT)
	default:
		if p == "" {
			p = "."
		}
		if flags&atSymlinkNofollow != 0 {
			r, e := m.fds.resolveParent(dirfd, p, ^uint64(0), ^uint64(0))
			if e == 0 {
				err = unix.Statx(r.dir, r.name, unix.AT_SYMLINK_NOFOLLOW, int(mask), &stx)
				r.done()
				break
			}
			if e != 1 { // 1: the last component is "." or "..": follow it
				return e
			}
		}
		fd, _, e := m.fds.open(dirfd, p, unix.O_PATH, 0)
		if e != 0 {
			return e
		}
		err = unix.Statx(fd, "", unix.AT_EMPTY_PATH, int(mask), &stx)
		unix.Close(fd)
	}
	if err != nil {
		return errno(err)
	}
	copy(m.Mem.Bytes(buf, statxSize), unsafe.Slice((*byte)(unsafe.Pointer(&stx)), statxSize))
	return 0
}

// copyData moves up to count bytes from in to out through a buffer, by
// the guest's files' own transfers (so a pipe waits, a standard stream
// that is not a host file works, SIGPIPE is raised): at *inOff and
// *outOff when given (and advanced), else at the files' positions. It
// returns the count moved or, when nothing was, -errno.
func (m *Machine) copyData(out, in *gfile, outOff, inOff *int64, count uint64) uint64 {
	count = min(count, maxRW)
	buf := make([]byte, min(count, 1<<20))
	var done uint64
	for done < count {
		chunk := buf[:min(uint64(len(buf)), count-done)]
		at := func(p *int64) int64 {
			if p == nil {
				return -1
			}
			return *p
		}
		r := m.transfer(in, chunk, at(inOff), false)
		if int64(r) <= 0 {
			if done > 0 || r == 0 {
				break
			}
			return r
		}
		w := m.transfer(out, chunk[:r], at(outOff), true)
		if int64(w) < 0 {
			if done > 0 {
				break
			}
			return w
		}
		for _, p := range []*int64{inOff, outOff} {
			if p != nil {
				*p += int64(w)
			}
		}
		done += w
		if w < r || r < uint64(len(chunk)) {
			break
		}
	}
	return done
}

// offsetArg reads the loff_t at p (NULL: none) for copyData.
func (m *Machine) offsetArg(p uint64) (*int64, uint64) {
	if p == 0 {
		return nil, 0
	}
	if !m.Mem.CanWrite(p, 8) {
		return nil, neg(eFAULT)
	}
	v, _ := m.Mem.Read64(p)
	if int64(v) < 0 {
		return nil, neg(eINVAL)
	}
	o := int64(v)
	return &o, 0
}

// sysSendfile copies count bytes from in_fd (at *offp, which is
// advanced, or at its position) to out_fd's position.
func (m *Machine) sysSendfile(outFd, inFd, offp, count uint64) uint64 {
	out, in := m.fds.get(outFd), m.fds.get(inFd)
	if out == nil || in == nil {
		return neg(eBADF)
	}
	off, e := m.offsetArg(offp)
	if e != 0 {
		return e
	}
	r := m.copyData(out, in, nil, off, count)
	if off != nil && int64(r) >= 0 {
		m.Mem.store64(offp, uint64(*off))
	}
	return r
}

// sysCopyFileRange copies between two files, at the offsets given (and
// advanced) or at their positions; flags must be 0.
func (m *Machine) sysCopyFileRange(inFd, offIn, outFd, offOut, count, flags uint64) uint64 {
	if flags != 0 {
		return neg(eINVAL)
	}
	out, in := m.fds.get(outFd), m.fds.get(inFd)
	if out == nil || in == nil {
		return neg(eBADF)
	}
	if in.host < 0 || out.host < 0 {
		return neg(eINVAL) // not regular files
	}
	oi, e := m.offsetArg(offIn)
	if e != 0 {
		return e
	}
	oo, e := m.offsetArg(offOut)
	if e != 0 {
		return e
	}
	r := m.copyData(out, in, oo, oi, count)
	if int64(r) >= 0 {
		for _, p := range [][2]any{{offIn, oi}, {offOut, oo}} {
			if o := p[1].(*int64); o != nil {
				m.Mem.store64(p[0].(uint64), uint64(*o))
			}
		}
	}
	return r
}

// sysFallocate is the host's fallocate on the guest's file (a file that
// grows under a mapping is seen, as after a write).
func (m *Machine) sysFallocate(fd, mode, off, n uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if f.host < 0 {
		return neg(eSPIPE)
	}
	if err := unix.Fallocate(f.host, uint32(mode), int64(off), int64(n)); err != nil {
		return errno(err)
	}
	return m.resized(0, mode != 0)
}

// sysMemfdCreate makes an anonymous host file (memfd_create) behind a new
// guest fd; the name is checked (at most 249 bytes) and the flags must be
// MFD_CLOEXEC and MFD_ALLOW_SEALING at most.
func (m *Machine) sysMemfdCreate(namep, flags uint64) uint64 {
	if flags&^3 != 0 {
		return neg(eINVAL)
	}
	name, e := m.readString(namep, 250)
	if e != 0 {
		return e
	}
	if len(name) > 249 {
		return neg(eINVAL)
	}
	h, err := unix.MemfdCreate(name, int(flags)|unix.MFD_CLOEXEC)
	if err != nil {
		return errno(err)
	}
	r := m.fds.install(&gfile{host: h, kind: kindNever}, 0)
	if int64(r) < 0 {
		unix.Close(h)
	}
	return r
}

// self reports whether pid names the guest's process (0 or its pid).
func self(pid uint64) bool { return int32(pid) == 0 || int(int32(pid)) == unix.Getpid() }

// sysSchedGetaffinity writes the CPUs rvdyn's process may run on (the
// host's mask) and returns its size in bytes, as Linux does; the size
// asked for must hold the host's mask and be a multiple of 8.
func (m *Machine) sysSchedGetaffinity(pid, n, mask uint64) uint64 {
	if !self(pid) {
		return neg(eSRCH)
	}
	var host [128]byte
	r, _, errn := unix.RawSyscall(unix.SYS_SCHED_GETAFFINITY, 0, uintptr(len(host)), uintptr(unsafe.Pointer(&host[0])))
	if errn != 0 {
		return errno(errn)
	}
	if n < uint64(r) || n%8 != 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(mask, uint64(r)) {
		return neg(eFAULT)
	}
	copy(m.Mem.Bytes(mask, uint64(r)), host[:r])
	return uint64(r)
}

// sysSchedSetaffinity accepts a mask for the guest's process and changes
// nothing: rvdyn's threads are the Go runtime's.
func (m *Machine) sysSchedSetaffinity(pid, n, mask uint64) uint64 {
	if !self(pid) {
		return neg(eSRCH)
	}
	if !m.Mem.CanRead(mask, n) {
		return neg(eFAULT)
	}
	return 0
}

// sysSchedGetscheduler is SCHED_OTHER (0) for the guest's process.
func (m *Machine) sysSchedGetscheduler(pid uint64) uint64 {
	if int64(pid) < 0 {
		return neg(eINVAL)
	}
	if !self(pid) {
		return neg(eSRCH)
	}
	return 0
}

// sysSchedGetparam writes SCHED_OTHER's priority, 0.
func (m *Machine) sysSchedGetparam(pid, p uint64) uint64 {
	if int64(pid) < 0 || p == 0 {
		return neg(eINVAL)
	}
	if !self(pid) {
		return neg(eSRCH)
	}
	if !m.Mem.CanWrite(p, 4) {
		return neg(eFAULT)
	}
	m.Mem.store32(p, 0)
	return 0
}

// sysSchedPriority is sched_get_priority_max (max) or _min: 0 for
// SCHED_OTHER, SCHED_BATCH and SCHED_IDLE, 1..99 for SCHED_FIFO and
// SCHED_RR, EINVAL for others.
func (m *Machine) sysSchedPriority(policy uint64, max bool) uint64 {
	switch policy {
	case 0, 3, 5:
		return 0
	case 1, 2:
		if max {
			return 99
		}
		return 1
	}
	return neg(eINVAL)
}

// sysGetpriority is the host's answer for the guest's own process, in
// the system call's form (20 - nice); another process is ESRCH.
func (m *Machine) sysGetpriority(which, who uint64) uint64 {
	if which > 2 {
		return neg(eINVAL)
	}
	if which != 0 && int32(who) != 0 || which == 0 && !self(who) {
		return neg(eSRCH)
	}
	r, _, errn := unix.RawSyscall(unix.SYS_GETPRIORITY, uintptr(which), 0, 0)
	if errn != 0 {
		return errno(errn)
	}
	return uint64(r)
}

// sysPrctl serves the options glibc and programs use for themselves: the
// name (PR_SET_NAME, PR_GET_NAME: 16 bytes; it starts as the program's
// base name, as the kernel's comm), PR_GET_DUMPABLE and PR_SET_DUMPABLE
// (kept, 0 or 1), PR_SET_PDEATHSIG and PR_GET_PDEATHSIG (kept). Others
// are EINVAL.
func (m *Machine) sysPrctl(option, a2 uint64) uint64 {
	const (
		prSetPdeathsig = 1
		prGetPdeathsig = 2
		prGetDumpable  = 3
		prSetDumpable  = 4
		prSetName      = 15
		prGetName      = 16
	)
	p := &m.proc
	if !p.named {
		p.name = filepath.Base(m.cfg.Path)
		if m.cfg.Path == "" && len(m.cfg.Args) > 0 {
			p.name = filepath.Base(m.cfg.Args[0])
		}
		p.name = p.name[:min(len(p.name), 15)]
		p.named, p.dumpable = true, 1
	}
	switch option {
	case prSetName:
		s, e := m.readString(a2, 4096)
		if e != 0 {
			return e
		}
		p.name = s[:min(len(s), 15)]
	case prGetName:
		if !m.Mem.CanWrite(a2, 16) {
			return neg(eFAULT)
		}
		b := m.Mem.Bytes(a2, 16)
		clear(b)
		copy(b, p.name)
	case prGetDumpable:
		return p.dumpable
	case prSetDumpable:
		if a2 > 1 {
			return neg(eINVAL)
		}
		p.dumpable = a2
	case prSetPdeathsig:
		if a2 > 64 {
			return neg(eINVAL)
		}
		p.pdeathsig = a2
	case prGetPdeathsig:
		if !m.Mem.CanWrite(a2, 4) {
			return neg(eFAULT)
		}
		binary.LittleEndian.PutUint32(m.Mem.Bytes(a2, 4), uint32(p.pdeathsig))
	default:
		return neg(eINVAL)
	}
	return 0
}

// procState is what prctl keeps.
type procState struct {
	named               bool
	name                string
	dumpable, pdeathsig uint64
}

// sysGetcpu writes the host CPU rvdyn runs on now and its NUMA node
// (either pointer may be NULL).
func (m *Machine) sysGetcpu(cpu, node uint64) uint64 {
	var c, n uint32
	if _, _, errn := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&n)), 0); errn != 0 {
		return errno(errn)
	}
	for _, w := range [][2]uint64{{cpu, uint64(c)}, {node, uint64(n)}} {
		if w[0] == 0 {
			continue
		}
		if !m.Mem.CanWrite(w[0], 4) {
			return neg(eFAULT)
		}
		m.Mem.store32(w[0], uint32(w[1]))
	}
	return 0
}

// sysMlock accepts mlock and munlock of mapped memory (ENOMEM where a
// page is not mapped): the guest's memory is rvdyn's, never swapped out
// on its behalf.
func (m *Machine) sysMlock(addr, n uint64) uint64 {
	lo := addr &^ (pageSize - 1)
	if n == 0 {
		return 0
	}
	if addr+n < addr || !m.mappedRange(lo, addr+n) {
		return neg(eNOMEM)
	}
	return 0
}

// sysMlockall accepts MCL_CURRENT, MCL_FUTURE and MCL_ONFAULT (with one
// of the others); munlockall takes no flags.
func (m *Machine) sysMlockall(flags uint64) uint64 {
	if flags == 0 || flags&^7 != 0 || flags == 4 {
		return neg(eINVAL)
	}
	return 0
}
