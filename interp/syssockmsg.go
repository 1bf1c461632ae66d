// Socket messages: sendmsg and recvmsg -> their iovecs gathered into one send and scattered from one receive, without control data.

package interp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// msghdr is the guest's struct msghdr (56 bytes, the same fields and
// offsets on RISC-V and x86-64).
type msghdr struct {
	name, namelen, iov, iovlen, control, controllen uint64
}

const maxIov = 1024 // UIO_MAXIOV

// readMsghdr reads the struct msghdr at p and gathers its iovecs'
// buffers, checked readable (write false) or writable.
func (m *Machine) readMsghdr(p uint64, write bool) (msghdr, [][]byte, uint64) {
	var h msghdr
	if !m.Mem.CanRead(p, 56) {
		return h, nil, neg(eFAULT)
	}
	w := func(off uint64) uint64 { v, _ := m.Mem.Read64(p + off); return v }
	h = msghdr{name: w(0), namelen: w(8) & 0xffffffff, iov: w(16), iovlen: w(24), control: w(32), controllen: w(40)}
	if h.iovlen > maxIov {
		return h, nil, neg(eINVAL)
	}
	if !m.Mem.CanRead(h.iov, 16*h.iovlen) {
		return h, nil, neg(eFAULT)
	}
	var bufs [][]byte
	total := uint64(0)
	for i := range h.iovlen {
		base, _ := m.Mem.Read64(h.iov + 16*i)
		n, _ := m.Mem.Read64(h.iov + 16*i + 8)
		n = min(n, maxRW-total)
		ok := m.Mem.CanRead(base, n)
		if write {
			ok = m.Mem.CanWrite(base, n)
		}
		if !ok {
			return h, nil, neg(eFAULT)
		}
		bufs = append(bufs, m.Mem.Bytes(base, n))
		total += n
	}
	return h, bufs, 0
}

// sysSendmsg sends the iovecs' bytes as one sendto of their
// concatenation, to msg_name if set. Control data (ancillary messages:
// passed fds, credentials) is not built: -EOPNOTSUPP.
func (m *Machine) sysSendmsg(fd, msg, flags uint64) uint64 {
	f, hfd, e := m.sock(fd)
	if e != 0 {
		return e
	}
	h, bufs, e := m.readMsghdr(msg, false)
	if e != 0 {
		return e
	}
	if h.controllen != 0 {
		return neg(95) // EOPNOTSUPP
	}
	var a []byte
	if h.name != 0 {
		if a, e = m.sockaddrIn(h.name, h.namelen); e != 0 {
			return e
		}
	}
	var data []byte
	for _, b := range bufs {
		data = append(data, b...)
	}
	return m.sendBytes(f, hfd, data, a, flags)
}

// sysRecvmsg receives into the iovecs in order and writes msg_name (as
// recvfrom does), msg_flags, and no control data (msg_controllen 0:
// anything sent with it, passed fds included, the host drops).
func (m *Machine) sysRecvmsg(fd, msg, flags uint64) uint64 {
	f, hfd, e := m.sock(fd)
	if e != 0 {
		return e
	}
	h, bufs, e := m.readMsghdr(msg, true)
	if e != 0 {
		return e
	}
	if !m.Mem.CanWrite(msg, 56) || h.name != 0 && !m.Mem.CanWrite(h.name, h.namelen) {
		return neg(eFAULT)
	}
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	data := make([]byte, total+1)
	var a [maxSockaddr]byte
	hdr := unix.Msghdr{Name: &a[0], Namelen: uint32(len(a))}
	iov := unix.Iovec{Base: &data[0]}
	iov.SetLen(total)
	hdr.Iov, hdr.Iovlen = &iov, 1
	r := m.retry(f, unix.POLLIN, flags&msgDontwait != 0, func() (uintptr, unix.Errno) {
		hdr.Namelen = uint32(len(a))
		r, _, errn := unix.Syscall(unix.SYS_RECVMSG, uintptr(hfd), uintptr(unsafe.Pointer(&hdr)), uintptr(flags))
		return r, errn
	})
	if int64(r) < 0 {
		return r
	}
	rest := data[:min(int(r), total)]
	for _, b := range bufs {
		rest = rest[copy(b, rest):]
	}
	if h.name != 0 {
		k := min(uint64(hdr.Namelen), h.namelen)
		copy(m.Mem.Bytes(h.name, k), a[:k])
		m.Mem.store32(msg+8, hdr.Namelen)
	}
	m.Mem.store64(msg+40, 0)
	m.Mem.store32(msg+48, uint32(hdr.Flags))
	return r
}
