// File system calls: openat, close, read/write and their vector and positioned forms, lseek, stat, getdents64, unlinkat, mkdirat, renameat2, ftruncate, dup, fcntl, getcwd -> the guest fd table and the host file system.

package interp

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

const (
	pathMax = 4096
	// openFlags are the open(2) flags passed on to the host (asm-generic
	// values, shared by RISC-V and x86-64); others are dropped.
	openFlags = unix.O_ACCMODE | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_TRUNC |
		unix.O_APPEND | unix.O_NONBLOCK | unix.O_DSYNC | unix.O_SYNC | unix.O_DIRECTORY |
		unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_LARGEFILE | unix.O_NOATIME | unix.O_TMPFILE | unix.O_PATH
	atSymlinkNofollow = 0x100
	atRemovedir       = 0x200
	atEmptyPath       = 0x1000
)

// readString returns the NUL-terminated string at guest address a (at most
// max bytes before the NUL), -EFAULT if it runs into memory the guest may
// not read, or -ENAMETOOLONG.
func (m *Machine) readString(a uint64, max int) (string, uint64) {
	var b []byte
	for i := uint64(0); ; i++ {
		if !m.Mem.CanRead(a+i, 1) {
			return "", neg(eFAULT)
		}
		c := m.Mem.load8(a + i)
		if c == 0 {
			return string(b), 0
		}
		if len(b) == max {
			return "", neg(eNAMETOOLONG)
		}
		b = append(b, c)
	}
}

func (m *Machine) readPath(a uint64) (string, uint64) { return m.readString(a, pathMax-1) }

func (m *Machine) sysOpenat(dirfd, pathp, flags, mode uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if p == "" {
		return neg(eNOENT)
	}
	fl := int(flags) & openFlags
	if b, ok := m.selfProcFile(p); ok {
		if fl&unix.O_ACCMODE != unix.O_RDONLY {
			return neg(eACCES)
		}
		return m.openContent(b)
	}
	fd, gp, e := m.fds.open(dirfd, p, fl, uint32(mode))
	if e != 0 {
		return e
	}
	if fl&unix.O_TMPFILE == unix.O_TMPFILE {
		gp = "" // an unnamed file in that directory, not the directory
	}
	r := m.fds.install(&gfile{host: fd, gpath: gp, nonblock: fl&unix.O_NONBLOCK != 0}, 0)
	if int64(r) < 0 {
		unix.Close(fd)
	}
	return r
}

func (m *Machine) sysClose(fd uint64) uint64 {
	if !m.fds.drop(fd) {
		return neg(eBADF)
	}
	return 0
}

// taskSize is the top of the smallest RISC-V Linux user address space
// (Sv39, 2^38 bytes): the kernel's access_ok refuses a buffer that ends
// above it even when the transfer is empty.
const taskSize = 1 << 38

// transfer moves b between file f and guest memory, at offset off (-1: at
// the file position), and returns the count or -errno. An empty b makes
// the checks the kernel makes before any transfer (the file's mode,
// whether it can seek) and returns 0 if they pass. A transfer that may
// have to wait for another process waits so that a signal can end it
// (waitIO); a write to a pipe nobody reads raises SIGPIPE.
func (m *Machine) transfer(f *gfile, b []byte, off int64, write bool) uint64 {
	r := m.transfer1(f, b, off, write)
	if write && r == neg(ePIPE) {
		m.raise(sigPipe)
	}
	if write {
		return m.resized(r, false) // a write may grow a file under a view
	}
	return r
}

func (m *Machine) transfer1(f *gfile, b []byte, off int64, write bool) uint64 {
	if f.host >= 0 {
		if len(b) > 0 && off < 0 && !f.nonblock {
			if k := f.blockKind(f.host); k != kindNever {
				return m.waitIO(f.host, b, write, k, f.timeout(write))
			}
		}
		return hostTransfer(f.host, b, off, write)
	}
	if write && f.w == nil || !write && f.w != nil {
		return neg(eBADF) // a standard stream open the other way
	}
	if off >= 0 {
		// Positioned I/O on a standard stream is the host file's
		// answer: data from a regular file, -ESPIPE from a pipe or a
		// terminal.
		if h := f.stdFd(); h >= 0 {
			return hostTransfer(h, b, off, write)
		}
		return neg(eSPIPE) // a stream that is not a host file
	}
	if len(b) == 0 {
		return 0
	}
	if h := f.stdFd(); h >= 0 {
		switch k := f.blockKind(h); {
		case k != kindNever && write:
			// The host file itself: a broken pipe is the guest's
			// SIGPIPE, where os.File would end rvdyn on fd 1 and 2.
			return m.waitIO(h, b, write, k, 0)
		case k != kindNever && !m.wait(h, unix.POLLIN):
			return neg(eINTR) // the guest was ended while it waited
		}
		// Ready: read through the stream (a tee keeps its copy).
	}
	var k int
	var err error
	if write {
		k, err = f.w.Write(b)
	} else if f.r != nil {
		k, err = f.r.Read(b)
		if err == io.EOF {
			err = nil
		}
	}
	if k == 0 && err != nil {
		return neg(eIO)
	}
	return uint64(k)
}

// hostTransfer is transfer on a host fd.
func hostTransfer(fd int, b []byte, off int64, write bool) uint64 {
	var k int
	var err error
	switch {
	case write && off >= 0:
		k, err = unix.Pwrite(fd, b, off)
	case write:
		k, err = unix.Write(fd, b)
	case off >= 0:
		k, err = unix.Pread(fd, b, off)
	default:
		k, err = unix.Read(fd, b)
	}
	if err != nil {
		return errno(err)
	}
	return uint64(k)
}

// pipeBuf is PIPE_BUF: once poll says a pipe has room, a write of this
// much does not wait.
const pipeBuf = 4096

// waitIO is a read or write on host fd h, of kind k, that may have to
// wait for another process (a pipe, a FIFO, a socket, a terminal). It
// waits in poll beside the signal eventfd (Machine.wait), so that a
// signal that ends the guest ends the wait. To a pipe or a socket it
// writes at most pipeBuf bytes at a time, as more could wait again; a
// write returns when all of b is written, as a blocking write does.
// EAGAIN (a host fd that is non-blocking although the guest did not ask
// for it, such as a standard stream Go polls) waits again. A signal that
// ends the guest or has a handler ends the wait (Machine.wait): the
// result is what was written, or -EINTR; so does a socket's timeout
// (timeout, 0 for none): what was written, or -EAGAIN.
func (m *Machine) waitIO(h int, b []byte, write bool, k fileKind, timeout time.Duration) uint64 {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	if !write {
		for {
			if ok, timedOut := m.waitUntil(h, unix.POLLIN, deadline); timedOut {
				return neg(eAGAIN)
			} else if !ok {
				return neg(eINTR)
			}
			n, err := unix.Read(h, b)
			switch {
			case err == unix.EAGAIN || err == unix.EINTR:
				continue
			case err != nil:
				return errno(err)
			}
			return uint64(n)
		}
	}
	done := 0
	for done < len(b) {
		if ok, timedOut := m.waitUntil(h, unix.POLLOUT, deadline); !ok {
			if done > 0 && !m.exited {
				m.sig.restart = false // a short write is not restarted
				return uint64(done)
			}
			if timedOut {
				return neg(eAGAIN)
			}
			return neg(eINTR)
		}
		end := len(b)
		if k == kindPipe {
			end = min(end, done+pipeBuf)
		}
		n, err := unix.Write(h, b[done:end])
		switch {
		case err == unix.EAGAIN || err == unix.EINTR:
			continue
		case err == unix.EPIPE && done > 0:
			m.raise(sigPipe) // as the kernel does after a short write
			return uint64(done)
		case err != nil && done > 0:
			return uint64(done)
		case err != nil:
			return errno(err)
		}
		done += n
	}
	return uint64(done)
}

// maxRW is Linux's MAX_RW_COUNT: the most one read or write transfers.
const maxRW = 0x7ffff000

// rw is read, write, pread64 and pwrite64: fd and buffer checked, then the
// transfer, straight between the file and guest memory. As in the kernel,
// the file is checked before the buffer, and an empty transfer passes the
// file's checks but needs no memory behind its pointer.
func (m *Machine) rw(fd, buf, n uint64, off int64, write bool) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if off < -1 {
		return neg(eINVAL)
	}
	n = min(n, maxRW)
	var ok bool
	switch {
	case n == 0:
		ok = buf <= taskSize
	case write:
		ok = m.Mem.CanRead(buf, n)
	default:
		ok = m.Mem.CanWrite(buf, n)
	}
	if !ok {
		if r := m.transfer(f, nil, off, write); int64(r) < 0 {
			return r
		}
		return neg(eFAULT)
	}
	var b []byte
	if n > 0 {
		b = m.Mem.Bytes(buf, n)
	}
	return m.transfer(f, b, off, write)
}

// rwv is readv, writev (and their positioned forms): each iovec in turn,
// stopping at a short transfer; an error after some bytes moved returns
// the count.
func (m *Machine) rwv(fd, iov, cnt uint64, off int64, write bool) uint64 {
	f := m.fds.get(fd)
	switch {
	case f == nil:
		return neg(eBADF)
	case cnt > 1024: // UIO_MAXIOV
		return neg(eINVAL)
	case cnt == 0: // no vector to read: writev(fd, NULL, 0) is 0
		if off < -1 {
			return neg(eINVAL)
		}
		return m.transfer(f, nil, off, write)
	case !m.Mem.CanRead(iov, 16*cnt):
		return neg(eFAULT)
	}
	var total uint64
	for i := uint64(0); i < cnt; i++ {
		base, _ := m.Mem.Read64(iov + 16*i)
		n, _ := m.Mem.Read64(iov + 16*i + 8)
		if int64(n) < 0 {
			return neg(eINVAL)
		}
		o := off
		if off >= 0 {
			o = off + int64(total)
		}
		r := m.rw(fd, base, n, o, write)
		if int64(r) < 0 {
			if total > 0 {
				return total
			}
			return r
		}
		total += r
		if r < n {
			break
		}
	}
	return total
}

func (m *Machine) sysLseek(fd, off, whence uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	h := f.hostFd()
	if h < 0 {
		return neg(eSPIPE)
	}
	r, err := unix.Seek(h, int64(off), int(whence))
	if err != nil {
		return errno(err)
	}
	return uint64(r)
}

func (m *Machine) sysFtruncate(fd, size uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if f.host < 0 {
		return neg(eINVAL)
	}
	if err := unix.Ftruncate(f.host, int64(size)); err != nil {
		return errno(err)
	}
	return 0
}

// putStat writes a host stat as the RISC-V (asm-generic) struct stat, 128
// bytes, at guest address a, already checked.
func (m *Machine) putStat(a uint64, s *unix.Stat_t) {
	b := m.Mem.Bytes(a, 128)
	clear(b)
	put := func(off uint64, v uint64, size int) {
		for i := 0; i < size; i++ {
			b[off+uint64(i)] = byte(v >> (8 * i))
		}
	}
	put(0, s.Dev, 8)
	put(8, s.Ino, 8)
	put(16, uint64(s.Mode), 4)
	put(20, uint64(s.Nlink), 4)
	put(24, uint64(s.Uid), 4)
	put(28, uint64(s.Gid), 4)
	put(32, s.Rdev, 8)
	put(48, uint64(s.Size), 8)
	put(56, uint64(s.Blksize), 4)
	put(64, uint64(s.Blocks), 8)
	put(72, uint64(s.Atim.Sec), 8)
	put(80, uint64(s.Atim.Nsec), 8)
	put(88, uint64(s.Mtim.Sec), 8)
	put(96, uint64(s.Mtim.Nsec), 8)
	put(104, uint64(s.Ctim.Sec), 8)
	put(112, uint64(s.Ctim.Nsec), 8)
}

func (m *Machine) statFd(f *gfile, st uint64) uint64 {
	var s unix.Stat_t
	if h := f.hostFd(); h >= 0 {
		if err := unix.Fstat(h, &s); err != nil {
			return errno(err)
		}
	} else {
		s.Mode = unix.S_IFIFO | 0o600 // a stream that is not a host file
		s.Blksize = 4096
	}
	m.putStat(st, &s)
	return 0
}

func (m *Machine) sysFstat(fd, st uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if !m.Mem.CanWrite(st, 128) {
		return neg(eFAULT)
	}
	return m.statFd(f, st)
}

func (m *Machine) sysNewfstatat(dirfd, pathp, st, flags uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if !m.Mem.CanWrite(st, 128) {
		return neg(eFAULT)
	}
	if flags&^(atSymlinkNofollow|atEmptyPath|0x800 /* AT_NO_AUTOMOUNT */) != 0 {
		return neg(eINVAL)
	}
	if p == "" && flags&atEmptyPath != 0 {
		if isCwd(dirfd) {
			p = "."
		} else {
			f := m.fds.get(dirfd)
			if f == nil {
				return neg(eBADF)
			}
			return m.statFd(f, st)
		}
	}
	if p == "" {
		return neg(eNOENT)
	}
	var s unix.Stat_t
	if m.fds.root == "" || flags&atSymlinkNofollow != 0 {
		// lstat of a last component "." or ".." is a stat of a
		// directory: resolveParent refuses those (errno 0 -> -1 here)
		// and the open below does it.
		r, e := m.fds.resolveParent(dirfd, p, ^uint64(0), ^uint64(0))
		if e == 0 {
			err := unix.Fstatat(r.dir, r.name, &s, int(flags&atSymlinkNofollow))
			r.done()
			if err != nil {
				return errno(err)
			}
			m.putStat(st, &s)
			return 0
		}
		if e != 1 {
			return e
		}
	}
	fd, _, e := m.fds.open(dirfd, p, unix.O_PATH, 0)
	if e != 0 {
		return e
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &s); err != nil {
		return errno(err)
	}
	m.putStat(st, &s)
	return 0
}

func (m *Machine) sysGetdents64(fd, buf, n uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if f.host < 0 {
		return neg(eNOTDIR)
	}
	n = min(n, maxRead)
	if !m.Mem.CanWrite(buf, n) {
		return neg(eFAULT)
	}
	// struct linux_dirent64 is the same on both architectures.
	k, err := unix.Getdents(f.host, m.Mem.Bytes(buf, n))
	if err != nil {
		return errno(err)
	}
	return uint64(k)
}

func (m *Machine) sysUnlinkat(dirfd, pathp, flags uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if flags&^atRemovedir != 0 {
		return neg(eINVAL)
	}
	dot, dotdot := uint64(eISDIR), uint64(eISDIR) // unlink(2) of a directory
	if flags&atRemovedir != 0 {
		dot, dotdot = eINVAL, eNOTEMPTY // rmdir(2) of "." and ".."
	}
	r, e := m.fds.resolveParent(dirfd, p, dot, dotdot)
	if e != 0 {
		return e
	}
	defer r.done()
	if err := unix.Unlinkat(r.dir, r.name, int(flags)); err != nil {
		return errno(err)
	}
	return 0
}

func (m *Machine) sysMkdirat(dirfd, pathp, mode uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	return m.onParent(dirfd, p, eEXIST, eEXIST, func(dir int, name string) error { return unix.Mkdirat(dir, name, uint32(mode)) })
}

func (m *Machine) sysRenameat2(olddir, oldp, newdir, newp, flags uint64) uint64 {
	op, e := m.readPath(oldp)
	if e != 0 {
		return e
	}
	np, e := m.readPath(newp)
	if e != 0 {
		return e
	}
	if flags&^7 != 0 { // RENAME_NOREPLACE, _EXCHANGE, _WHITEOUT
		return neg(eINVAL)
	}
	return m.onParents(olddir, op, eBUSY, newdir, np, eBUSY, func(od int, on string, nd int, nn string) error {
		return unix.Renameat2(od, on, nd, nn, uint(flags))
	})
}

func (m *Machine) sysDup(old uint64) uint64 {
	f := m.fds.get(old)
	if f == nil {
		return neg(eBADF)
	}
	return m.fds.install(f, 0)
}

func (m *Machine) sysDup3(old, newfd, flags uint64) uint64 {
	f := m.fds.get(old)
	if f == nil {
		return neg(eBADF)
	}
	newfd = fdArg(newfd)
	if flags&^unix.O_CLOEXEC != 0 || fdArg(old) == newfd {
		return neg(eINVAL)
	}
	if newfd >= maxFds {
		return neg(eBADF)
	}
	m.fds.drop(newfd)
	return m.fds.install(f, newfd)
}

const (
	fDupfd        = 0
	fGetfd        = 1
	fSetfd        = 2
	fGetfl        = 3
	fSetfl        = 4
	fDupfdCloexec = 1030
)

func (m *Machine) sysFcntl(fd, cmd, arg uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	switch cmd {
	case fDupfd, fDupfdCloexec:
		if int32(arg) < 0 || int32(arg) >= maxFds { // an int argument
			return neg(eINVAL)
		}
		return m.fds.install(f, fdArg(arg))
	case fGetfd, fSetfd:
		return 0 // close-on-exec is meaningless without exec
	case fGetfl:
		switch {
		case f.host >= 0:
			r, err := unix.FcntlInt(uintptr(f.host), unix.F_GETFL, 0)
			if err != nil {
				return errno(err)
			}
			if f.hostNB && !f.nonblock {
				r &^= unix.O_NONBLOCK // the host's is always non-blocking
			}
			return uint64(r) &^ unix.O_LARGEFILE
		case f.w != nil:
			return unix.O_WRONLY
		}
		return unix.O_RDONLY
	case fSetfl:
		if f.host >= 0 {
			host := int(arg) & (unix.O_APPEND | unix.O_NONBLOCK)
			if f.hostNB {
				host |= unix.O_NONBLOCK
			}
			if _, err := unix.FcntlInt(uintptr(f.host), unix.F_SETFL, host); err != nil {
				return errno(err)
			}
			f.nonblock = arg&unix.O_NONBLOCK != 0
		}
		return 0
	}
	return neg(eINVAL)
}

// sysGetcwd writes the guest's working directory: "/" under a root (the
// guest starts there and cannot move), the host's otherwise.
func (m *Machine) sysGetcwd(buf, size uint64) uint64 {
	t := &m.fds
	cwd := "/"
	switch {
	case t.root != "" && t.cwdPath != "":
		cwd = t.cwdPath
	case t.root != "":
	case t.hasCwd:
		d, err := os.Readlink("/proc/self/fd/" + itoa(t.cwdFd))
		if err != nil {
			return errno(err)
		}
		cwd = d
	default:
		d, err := os.Getwd()
		if err != nil {
			return errno(err)
		}
		cwd = d
	}
	n := uint64(len(cwd) + 1)
	if size < n {
		return neg(eRANGE)
	}
	if !m.Mem.CanWrite(buf, n) {
		return neg(eFAULT)
	}
	b := m.Mem.Bytes(buf, n)
	copy(b, cwd)
	b[n-1] = 0
	return n
}

func (m *Machine) sysFaccessat(dirfd, pathp, mode, flags uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if mode&^7 != 0 {
		return neg(eINVAL)
	}
	fd, _, e := m.fds.open(dirfd, p, unix.O_PATH, 0)
	if e != 0 {
		return e
	}
	defer unix.Close(fd)
	if mode == 0 {
		return 0
	}
	// Check through /proc/self/fd, which names the file already found.
	if err := unix.Faccessat(unix.AT_FDCWD, "/proc/self/fd/"+itoa(fd), uint32(mode), 0); err != nil {
		return errno(err)
	}
	return 0
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
