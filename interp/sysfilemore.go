// File calls beyond open, read and write: statx, sendfile, copy_file_range, fallocate, memfd_create -> the host's answers on the guest's files, their bytes moved by the guest's own transfers.

package interp

import (
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
