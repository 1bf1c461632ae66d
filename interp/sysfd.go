// More calls on an open file: fsync, fdatasync, fchmod, flock, fstatfs -> the host's answer for the host fd behind a guest fd.

package interp

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// onHostFd runs op on the host fd behind guest fd: -EBADF when fd is
// not open, -EINVAL when it is a standard stream that is not a host file
// (a library user's reader or writer: as Linux answers for a file that
// cannot do it).
func (m *Machine) onHostFd(fd uint64, op func(h int) error) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	h := f.hostFd()
	if h < 0 {
		return neg(eINVAL)
	}
	if err := op(h); err != nil {
		return errno(err)
	}
	return 0
}

// sysFstatfs is fstatfs: the host's answer for fd's file system.
func (m *Machine) sysFstatfs(fd, buf uint64) uint64 {
	var st unix.Statfs_t
	if e := m.onHostFd(fd, func(h int) error { return unix.Fstatfs(h, &st) }); e != 0 {
		return e
	}
	return m.putStatfs(buf, &st)
}

// putStatfs writes st as the RISC-V struct statfs (120 bytes: the
// generic 64-bit layout, x86-64's) at buf, or gives -EFAULT.
func (m *Machine) putStatfs(buf uint64, st *unix.Statfs_t) uint64 {
	const size = 120
	if !m.Mem.CanWrite(buf, size) {
		return neg(eFAULT)
	}
	b := m.Mem.Bytes(buf, size)
	clear(b)
	le := binary.LittleEndian
	for i, v := range []uint64{uint64(st.Type), uint64(st.Bsize), st.Blocks, st.Bfree, st.Bavail, st.Files, st.Ffree} {
		le.PutUint64(b[8*i:], v)
	}
	le.PutUint32(b[56:], uint32(st.Fsid.Val[0]))
	le.PutUint32(b[60:], uint32(st.Fsid.Val[1]))
	le.PutUint64(b[64:], uint64(st.Namelen))
	le.PutUint64(b[72:], uint64(st.Frsize))
	le.PutUint64(b[80:], uint64(st.Flags))
	return 0
}

func init() {
	for num, e := range map[uint64]sysEntry{
		32: {"flock", "dd", 'd', func(m *Machine, a *[6]uint64) uint64 {
			return m.onHostFd(a[0], func(h int) error { return unix.Flock(h, int(int32(a[1]))) })
		}},
		44: {"fstatfs", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFstatfs(a[0], a[1]) }},
		52: {"fchmod", "do", 'd', func(m *Machine, a *[6]uint64) uint64 {
			return m.onHostFd(a[0], func(h int) error { return unix.Fchmod(h, uint32(a[1])&0o7777) })
		}},
		82: {"fsync", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.onHostFd(a[0], unix.Fsync) }},
		83: {"fdatasync", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.onHostFd(a[0], unix.Fdatasync) }},
	} {
		sysTable[num] = e
	}
}
