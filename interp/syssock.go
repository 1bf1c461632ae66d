// Sockets: socket, socketpair, bind, listen, accept4, connect, the address and option calls, sendto, recvfrom, shutdown -> host sockets behind guest fds, whose waits end for signals as a read's do.

package interp

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A socket's host fd is always non-blocking; whether the guest's calls
// wait is the guest's flag (gfile.nonblock). A call that would block
// waits in poll beside the signal eventfd (Machine.wait) and is tried
// again, so a signal ends the wait as it ends a read's. The address
// structures (sockaddr_in, sockaddr_in6, sockaddr_un, sockaddr_nl) and
// the common option values (ints, struct linger, struct timeval) have
// the same layout on RISC-V and x86-64 Linux, so they pass as bytes.

const (
	maxSockaddr = 128 // sizeof(struct sockaddr_storage)
	maxSockopt  = 1024
	msgDontwait = 0x40
	msgNosignal = 0x4000
	afUnix      = 1
)

// sockFamilies are the address families a guest may open: local, IPv4,
// IPv6 and netlink (glibc's getifaddrs).
var sockFamilies = map[uint64]bool{afUnix: true, 2: true, 10: true, 16: true}

// sock returns guest fd's socket and its host fd, or -ENOTSOCK or
// -EBADF.
func (m *Machine) sock(fd uint64) (*gfile, int, uint64) {
	f := m.fds.get(fd)
	if f == nil {
		return nil, -1, neg(eBADF)
	}
	if !f.sock {
		return nil, -1, neg(88) // ENOTSOCK
	}
	return f, f.host, 0
}

// retry runs call until it does not answer EAGAIN for a blocking guest
// socket, waiting for events between tries; -EINTR when a signal ends
// the wait, -EAGAIN when the socket's timeout for it (SO_RCVTIMEO for
// input, SO_SNDTIMEO for output) passes first.
func (m *Machine) retry(f *gfile, events int16, dontwait bool, call func() (uintptr, unix.Errno)) uint64 {
	var deadline time.Time
	if d := f.timeout(events == unix.POLLOUT); d > 0 {
		deadline = time.Now().Add(d)
	}
	for {
		r, e := call()
		if e == unix.EINTR {
			continue
		}
		if e != unix.EAGAIN || f.nonblock || dontwait {
			if e != 0 {
				return neg(uint64(e))
			}
			return uint64(r)
		}
		if ok, timedOut := m.waitUntil(f.host, events, deadline); timedOut {
			return neg(eAGAIN)
		} else if !ok {
			return neg(eINTR)
		}
	}
}

// sockaddrIn reads the guest's address at p (n bytes) for bind, connect
// and sendto. Under --root a named local socket is refused (-EACCES): its
// path would be the host's.
func (m *Machine) sockaddrIn(p, n uint64) ([]byte, uint64) {
	if n > maxSockaddr {
		return nil, neg(eINVAL)
	}
	if !m.Mem.CanRead(p, n) {
		return nil, neg(eFAULT)
	}
	b := append([]byte(nil), m.Mem.Bytes(p, n)...)
	if m.fds.root != "" && n > 2 && b[0] == afUnix && b[1] == 0 && b[2] != 0 {
		return nil, neg(eACCES)
	}
	return b, 0
}

// bufPtr is b's first byte for a host call (nil for an empty b).
func bufPtr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}

// sockaddrOut writes address a (n bytes long) to the guest's buffer p of
// *lenp bytes, truncated as the kernel truncates, and the full length to
// *lenp; p 0 writes nothing.
func (m *Machine) sockaddrOut(a []byte, n uint32, p, lenp uint64) uint64 {
	if p == 0 {
		return 0
	}
	if !m.Mem.CanWrite(lenp, 4) {
		return neg(eFAULT)
	}
	room := m.Mem.load32(lenp) // checked writable above
	if int32(room) < 0 {
		return neg(eINVAL)
	}
	k := min(room, n, uint32(len(a)))
	if !m.Mem.CanWrite(p, uint64(k)) {
		return neg(eFAULT)
	}
	copy(m.Mem.Bytes(p, uint64(k)), a[:k])
	m.Mem.store32(lenp, n)
	return 0
}

// newSocket installs host socket h as a guest fd.
func (m *Machine) newSocket(h int, nonblock bool) uint64 {
	r := m.fds.install(&gfile{host: h, nonblock: nonblock, kind: kindPipe, sock: true, hostNB: true}, 0)
	if int64(r) < 0 {
		unix.Close(h)
	}
	return r
}

func (m *Machine) sysSocket(domain, typ, proto uint64) uint64 {
	if !sockFamilies[domain] {
		return neg(97) // EAFNOSUPPORT
	}
	if typ&^uint64(0xf|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	h, err := unix.Socket(int(domain), int(typ&0xf)|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, int(proto))
	if err != nil {
		return errno(err)
	}
	return m.newSocket(h, typ&unix.SOCK_NONBLOCK != 0)
}

func (m *Machine) sysSocketpair(domain, typ, proto, sv uint64) uint64 {
	if domain != afUnix {
		return neg(95) // EOPNOTSUPP
	}
	if typ&^uint64(0xf|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(sv, 8) {
		return neg(eFAULT)
	}
	p, err := unix.Socketpair(int(domain), int(typ&0xf)|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, int(proto))
	if err != nil {
		return errno(err)
	}
	nb := typ&unix.SOCK_NONBLOCK != 0
	a := m.newSocket(p[0], nb)
	if int64(a) < 0 {
		unix.Close(p[1])
		return a
	}
	b := m.newSocket(p[1], nb)
	if int64(b) < 0 {
		m.fds.drop(a)
		return b
	}
	m.Mem.store32(sv, uint32(a))
	m.Mem.store32(sv+4, uint32(b))
	return 0
}

// sysBindConnect is bind (connect false) or connect: a blocking guest's
// connect that the host starts (EINPROGRESS) waits until the socket is
// writable and answers its SO_ERROR.
func (m *Machine) sysBindConnect(fd, addr, n uint64, connect bool) uint64 {
	f, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	a, e := m.sockaddrIn(addr, n)
	if e != 0 {
		return e
	}
	num := uintptr(unix.SYS_BIND)
	if connect {
		num = unix.SYS_CONNECT
	}
	_, _, errn := unix.Syscall(num, uintptr(h), bufPtr(a), uintptr(len(a)))
	if errn != unix.EINPROGRESS || f.nonblock {
		if errn != 0 {
			return neg(uint64(errn))
		}
		return 0
	}
	if !m.wait(h, unix.POLLOUT) {
		return neg(eINTR)
	}
	soErr, err := unix.GetsockoptInt(h, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return errno(err)
	}
	return neg(uint64(soErr))
}

// onSock runs op on guest fd's host socket (onHostFd for sockets:
// -ENOTSOCK for another file).
func (m *Machine) onSock(fd uint64, op func(h int) error) uint64 {
	_, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	if err := op(h); err != nil {
		return errno(err)
	}
	return 0
}

func (m *Machine) sysListen(fd, backlog uint64) uint64 {
	return m.onSock(fd, func(h int) error { return unix.Listen(h, int(int32(backlog))) })
}

func (m *Machine) sysAccept4(fd, addr, lenp, flags uint64) uint64 {
	f, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	if flags&^uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	if addr != 0 && !m.Mem.CanWrite(lenp, 4) {
		return neg(eFAULT)
	}
	var a [maxSockaddr]byte
	n := uint32(len(a))
	r := m.retry(f, unix.POLLIN, false, func() (uintptr, unix.Errno) {
		n = uint32(len(a))
		r, _, errn := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(h), uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&n)), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
		return r, errn
	})
	if int64(r) < 0 {
		return r
	}
	g := m.newSocket(int(r), flags&unix.SOCK_NONBLOCK != 0)
	if int64(g) < 0 {
		return g
	}
	if e := m.sockaddrOut(a[:], n, addr, lenp); e != 0 {
		m.fds.drop(g)
		return e
	}
	return g
}

// sysSockName is getsockname (peer false) or getpeername.
func (m *Machine) sysSockName(fd, addr, lenp uint64, peer bool) uint64 {
	_, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	if addr == 0 {
		return neg(eFAULT)
	}
	var a [maxSockaddr]byte
	n := uint32(len(a))
	num := uintptr(unix.SYS_GETSOCKNAME)
	if peer {
		num = unix.SYS_GETPEERNAME
	}
	if _, _, errn := unix.Syscall(num, uintptr(h), uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&n))); errn != 0 {
		return neg(uint64(errn))
	}
	return m.sockaddrOut(a[:], n, addr, lenp)
}

func (m *Machine) sysSendto(fd, buf, n, flags, addr, alen uint64) uint64 {
	f, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	n = min(n, maxRW)
	if !m.Mem.CanRead(buf, n) {
		return neg(eFAULT)
	}
	var a []byte
	if addr != 0 {
		if a, e = m.sockaddrIn(addr, alen); e != 0 {
			return e
		}
	}
	return m.sendBytes(f, h, m.Mem.Bytes(buf, n), a, flags)
}

// sendBytes sends b on socket f (host fd h) to address a (nil: the
// connected peer), waiting for room when the guest's socket blocks; EPIPE
// raises SIGPIPE unless flags has MSG_NOSIGNAL.
func (m *Machine) sendBytes(f *gfile, h int, b, a []byte, flags uint64) uint64 {
	r := m.retry(f, unix.POLLOUT, flags&msgDontwait != 0, func() (uintptr, unix.Errno) {
		r, _, errn := unix.Syscall6(unix.SYS_SENDTO, uintptr(h), bufPtr(b), uintptr(len(b)), uintptr(flags|msgNosignal), bufPtr(a), uintptr(len(a)))
		return r, errn
	})
	if r == neg(ePIPE) && flags&msgNosignal == 0 {
		m.raise(sigPipe)
	}
	return r
}

func (m *Machine) sysRecvfrom(fd, buf, n, flags, addr, lenp uint64) uint64 {
	f, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	n = min(n, maxRW)
	if !m.Mem.CanWrite(buf, n) {
		return neg(eFAULT)
	}
	if addr != 0 && !m.Mem.CanWrite(lenp, 4) {
		return neg(eFAULT)
	}
	b := m.Mem.Bytes(buf, n)
	var a [maxSockaddr]byte
	al := uint32(len(a))
	r := m.retry(f, unix.POLLIN, flags&msgDontwait != 0, func() (uintptr, unix.Errno) {
		al = uint32(len(a))
		r, _, errn := unix.Syscall6(unix.SYS_RECVFROM, uintptr(h), bufPtr(b), uintptr(len(b)), uintptr(flags), uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&al)))
		return r, errn
	})
	if int64(r) < 0 {
		return r
	}
	if e := m.sockaddrOut(a[:], al, addr, lenp); e != 0 {
		return e
	}
	return r
}

func (m *Machine) sysSetsockopt(fd, level, name, val, n uint64) uint64 {
	_, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	if n > maxSockopt {
		return neg(eINVAL)
	}
	if !m.Mem.CanRead(val, n) {
		return neg(eFAULT)
	}
	b := append([]byte(nil), m.Mem.Bytes(val, n)...)
	if _, _, errn := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(h), uintptr(level), uintptr(name), bufPtr(b), uintptr(len(b)), 0); errn != 0 {
		return neg(uint64(errn))
	}
	if level == unix.SOL_SOCKET && (name == unix.SO_RCVTIMEO || name == unix.SO_SNDTIMEO) && n >= 16 {
		// The host socket never blocks, so its timeout never applies:
		// the guest's waits keep it (a negative one is none).
		d, _ := m.readTimeval(val)
		f, _, _ := m.sock(fd)
		if name == unix.SO_RCVTIMEO {
			f.rcvTimeo = d
		} else {
			f.sndTimeo = d
		}
	}
	return 0
}

// timeout is the socket's SO_SNDTIMEO (out) or SO_RCVTIMEO: 0 for none.
func (f *gfile) timeout(out bool) time.Duration {
	if out {
		return f.sndTimeo
	}
	return f.rcvTimeo
}

func (m *Machine) sysGetsockopt(fd, level, name, val, lenp uint64) uint64 {
	_, h, e := m.sock(fd)
	if e != 0 {
		return e
	}
	if !m.Mem.CanWrite(lenp, 4) {
		return neg(eFAULT)
	}
	room := m.Mem.load32(lenp) // checked writable above
	if int32(room) < 0 {
		return neg(eINVAL)
	}
	b := make([]byte, min(room, maxSockopt)+1)
	n := uint32(len(b) - 1)
	if _, _, errn := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(h), uintptr(level), uintptr(name), uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&n)), 0); errn != 0 {
		return neg(uint64(errn))
	}
	if !m.Mem.CanWrite(val, uint64(n)) {
		return neg(eFAULT)
	}
	copy(m.Mem.Bytes(val, uint64(n)), b[:n])
	m.Mem.store32(lenp, n)
	return 0
}

func (m *Machine) sysShutdown(fd, how uint64) uint64 {
	return m.onSock(fd, func(h int) error { return unix.Shutdown(h, int(int32(how))) })
}

func init() {
	for num, e := range map[uint64]sysEntry{
		198: {"socket", "ddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSocket(a[0], a[1], a[2]) }},
		199: {"socketpair", "dddp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSocketpair(a[0], a[1], a[2], a[3]) }},
		200: {"bind", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysBindConnect(a[0], a[1], a[2], false) }},
		201: {"listen", "dd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysListen(a[0], a[1]) }},
		202: {"accept", "dpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysAccept4(a[0], a[1], a[2], 0) }},
		203: {"connect", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysBindConnect(a[0], a[1], a[2], true) }},
		204: {"getsockname", "dpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSockName(a[0], a[1], a[2], false) }},
		205: {"getpeername", "dpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSockName(a[0], a[1], a[2], true) }},
		206: {"sendto", "dpdxpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSendto(a[0], a[1], a[2], a[3], a[4], a[5]) }},
		207: {"recvfrom", "dpdxpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRecvfrom(a[0], a[1], a[2], a[3], a[4], a[5]) }},
		208: {"setsockopt", "dddpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSetsockopt(a[0], a[1], a[2], a[3], a[4]) }},
		209: {"getsockopt", "dddpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetsockopt(a[0], a[1], a[2], a[3], a[4]) }},
		210: {"shutdown", "dd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysShutdown(a[0], a[1]) }},
		211: {"sendmsg", "dpx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSendmsg(a[0], a[1], a[2]) }},
		212: {"recvmsg", "dpx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRecvmsg(a[0], a[1], a[2]) }},
		242: {"accept4", "dppx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysAccept4(a[0], a[1], a[2], a[3]) }},
	} {
		sysTable[num] = e
	}
}
