// Path calls beyond open and unlink: symlinkat, linkat, mknodat, fchmodat, truncate, statfs, utimensat, chdir, fchdir -> host calls on paths resolved as openat resolves them (under --root, inside it).

package interp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

const ePERM = 1

// onFollowed opens guest path pathp (relative to dirfd) as an O_PATH
// host fd, following symlinks as openat does (under a root, inside it),
// and runs op on it and on a host path that names the file it found
// (/proc/self/fd/N), for calls that follow the last symlink: chmod,
// truncate, statfs, utimensat. It returns 0 or -errno.
func (m *Machine) onFollowed(dirfd, pathp uint64, op func(fd int, proc string) error) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if p == "" {
		return neg(eNOENT)
	}
	fd, _, e := m.fds.open(dirfd, p, unix.O_PATH, 0)
	if e != 0 {
		return e
	}
	defer unix.Close(fd)
	if err := op(fd, "/proc/self/fd/"+strconv.Itoa(fd)); err != nil {
		return errno(err)
	}
	return 0
}

// onParent runs op on guest path p (relative to dirfd) made ready by
// resolveParent (dot and dotdot: the errno for "." and ".."), for calls
// that act on the last component itself. It returns 0 or -errno.
func (m *Machine) onParent(dirfd uint64, p string, dot, dotdot uint64, op func(dir int, name string) error) uint64 {
	r, e := m.fds.resolveParent(dirfd, p, dot, dotdot)
	if e != 0 {
		return e
	}
	defer r.done()
	if err := op(r.dir, r.name); err != nil {
		return errno(err)
	}
	return 0
}

// onParents is onParent for the calls that act on two paths (link,
// rename): each resolved by resolveParent, with dot as the errno for its
// "." and ".." (old's, then new's).
func (m *Machine) onParents(olddir uint64, op string, oldDot uint64, newdir uint64, np string, newDot uint64, fn func(od int, on string, nd int, nn string) error) uint64 {
	ro, e := m.fds.resolveParent(olddir, op, oldDot, oldDot)
	if e != 0 {
		return e
	}
	defer ro.done()
	rn, e := m.fds.resolveParent(newdir, np, newDot, newDot)
	if e != 0 {
		return e
	}
	defer rn.done()
	if err := fn(ro.dir, ro.name, rn.dir, rn.name); err != nil {
		return errno(err)
	}
	return 0
}

func (m *Machine) sysSymlinkat(target, dirfd, linkp uint64) uint64 {
	t, e := m.readPath(target)
	if e != 0 {
		return e
	}
	p, e := m.readPath(linkp)
	if e != 0 {
		return e
	}
	if t == "" {
		return neg(eNOENT)
	}
	return m.onParent(dirfd, p, eEXIST, eEXIST, func(dir int, name string) error { return unix.Symlinkat(t, dir, name) })
}

// sysLinkat makes a hard link without following a symlink at oldpath
// (flags 0, what link(3) passes); AT_SYMLINK_FOLLOW and AT_EMPTY_PATH
// are -EINVAL here.
func (m *Machine) sysLinkat(olddir, oldp, newdir, newp, flags uint64) uint64 {
	if flags != 0 {
		return neg(eINVAL)
	}
	op, e := m.readPath(oldp)
	if e != 0 {
		return e
	}
	np, e := m.readPath(newp)
	if e != 0 {
		return e
	}
	return m.onParents(olddir, op, ePERM, newdir, np, eEXIST, func(od int, on string, nd int, nn string) error {
		return unix.Linkat(od, on, nd, nn, 0)
	})
}

// sysMknodat makes a regular file or a FIFO (mkfifo); a device is
// -EPERM, as for a process without CAP_MKNOD.
func (m *Machine) sysMknodat(dirfd, pathp, mode, dev uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	switch uint32(mode) & unix.S_IFMT {
	case 0, unix.S_IFREG, unix.S_IFIFO:
	case unix.S_IFCHR, unix.S_IFBLK, unix.S_IFSOCK:
		return neg(ePERM)
	default:
		return neg(eINVAL)
	}
	return m.onParent(dirfd, p, eEXIST, eEXIST, func(dir int, name string) error { return unix.Mknodat(dir, name, uint32(mode), 0) })
}

func (m *Machine) sysFchmodat(dirfd, pathp, mode uint64) uint64 {
	return m.onFollowed(dirfd, pathp, func(_ int, p string) error { return unix.Chmod(p, uint32(mode)&0o7777) })
}

func (m *Machine) sysTruncate(pathp, length uint64) uint64 {
	return m.onFollowed(^uint64(99), pathp, func(_ int, p string) error { return unix.Truncate(p, int64(length)) }) // AT_FDCWD
}

func (m *Machine) sysStatfs(pathp, buf uint64) uint64 {
	var st unix.Statfs_t
	if e := m.onFollowed(^uint64(99), pathp, func(fd int, _ string) error { return unix.Fstatfs(fd, &st) }); e != 0 { // AT_FDCWD
		return e
	}
	return m.putStatfs(buf, &st)
}

// sysUtimensat sets a file's access and modification times: times is
// NULL (now) or two struct timespec (UTIME_NOW and UTIME_OMIT pass
// through). A NULL path acts on dirfd itself (futimens); with
// AT_SYMLINK_NOFOLLOW a symlink itself.
func (m *Machine) sysUtimensat(dirfd, pathp, times, flags uint64) uint64 {
	if flags&^atSymlinkNofollow != 0 {
		return neg(eINVAL)
	}
	var ts *[2]unix.Timespec
	if times != 0 {
		if !m.Mem.CanRead(times, 32) {
			return neg(eFAULT)
		}
		ts = &[2]unix.Timespec{
			{Sec: int64(m.Mem.load64(times)), Nsec: int64(m.Mem.load64(times + 8))},
			{Sec: int64(m.Mem.load64(times + 16)), Nsec: int64(m.Mem.load64(times + 24))},
		}
	}
	call := func(dir int, name string, fl int) error {
		var p *byte // NULL: dir itself
		if name != "" {
			var err error
			if p, err = unix.BytePtrFromString(name); err != nil {
				return unix.EINVAL
			}
		}
		if _, _, err := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(ts)), uintptr(fl), 0, 0); err != 0 {
			return err
		}
		return nil
	}
	if pathp == 0 {
		return m.onHostFd(dirfd, func(h int) error { return call(h, "", 0) })
	}
	if flags&atSymlinkNofollow != 0 {
		p, e := m.readPath(pathp)
		if e != 0 {
			return e
		}
		return m.onParent(dirfd, p, eINVAL, eINVAL, func(dir int, name string) error { return call(dir, name, unix.AT_SYMLINK_NOFOLLOW) })
	}
	return m.onFollowed(dirfd, pathp, func(_ int, p string) error { return call(unix.AT_FDCWD, p, 0) })
}

func init() {
	for num, e := range map[uint64]sysEntry{
		49: {"chdir", "s", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysChdir(a[0]) }},
		50: {"fchdir", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFchdir(a[0]) }},
		33: {"mknodat", "fsox", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMknodat(a[0], a[1], a[2], a[3]) }},
		36: {"symlinkat", "sfs", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSymlinkat(a[0], a[1], a[2]) }},
		37: {"linkat", "fsfsx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysLinkat(a[0], a[1], a[2], a[3], a[4]) }},
		43: {"statfs", "sp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysStatfs(a[0], a[1]) }},
		45: {"truncate", "sd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysTruncate(a[0], a[1]) }},
		53: {"fchmodat", "fso", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFchmodat(a[0], a[1], a[2]) }},
		88: {"utimensat", "fspx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysUtimensat(a[0], a[1], a[2], a[3]) }},
	} {
		sysTable[num] = e
	}
}

// sysChdir makes the directory at pathp (resolved as openat resolves
// it) the guest's working directory, where paths relative to AT_FDCWD
// start; the guest must be allowed to search it.
func (m *Machine) sysChdir(pathp uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if p == "" {
		return neg(eNOENT)
	}
	fd, _, e := m.fds.open(^uint64(99), p, unix.O_PATH|unix.O_DIRECTORY, 0) // AT_FDCWD
	if e != 0 {
		return e
	}
	return m.setCwd(fd)
}

// sysFchdir makes the directory open at guest fd the working directory.
func (m *Machine) sysFchdir(fd uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	h := f.hostFd()
	var st unix.Stat_t
	if h < 0 || unix.Fstat(h, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return neg(eNOTDIR)
	}
	d, err := unix.FcntlInt(uintptr(h), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return errno(err)
	}
	return m.setCwd(d)
}

// setCwd takes host directory fd d as the working directory (closing it
// on an error): -EACCES without search permission. Under a root its
// guest path is the host path of d below the root.
func (m *Machine) setCwd(d int) uint64 {
	t := &m.fds
	proc := "/proc/self/fd/" + strconv.Itoa(d)
	if err := unix.Faccessat(unix.AT_FDCWD, proc, unix.X_OK, 0); err != nil {
		unix.Close(d)
		return errno(err)
	}
	if t.root != "" {
		host, err1 := os.Readlink(proc)
		root, err2 := os.Readlink("/proc/self/fd/" + strconv.Itoa(t.rootFd))
		rel, err3 := filepath.Rel(root, host)
		if err1 != nil || err2 != nil || err3 != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			unix.Close(d)
			return neg(eNOENT) // not below the root: cannot happen with RESOLVE_IN_ROOT
		}
		t.cwdPath = filepath.Join("/", rel)
	}
	if t.hasCwd {
		unix.Close(t.cwdFd)
	}
	t.cwdFd, t.hasCwd = d, true
	return 0
}
