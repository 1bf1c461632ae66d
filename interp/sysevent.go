// Event files: eventfd2, epoll_create1, epoll_ctl, epoll_pwait, timerfd_create, timerfd_settime, timerfd_gettime -> host event files behind guest fds; epoll's events translated between RISC-V's 16-byte struct and x86-64's packed 12-byte one.

package interp

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newEventFile installs host fd h (an eventfd, epoll or timerfd file) as
// a guest fd: a read of it may wait, beside the signal wake-up, as a
// pipe's does.
func (m *Machine) newEventFile(h int, nonblock bool) uint64 {
	r := m.fds.install(&gfile{host: h, nonblock: nonblock, kind: kindPipe, hostNB: true}, 0)
	if int64(r) < 0 {
		unix.Close(h)
	}
	return r
}

// sysEventfd2 is a host eventfd (EFD_SEMAPHORE, EFD_NONBLOCK,
// EFD_CLOEXEC).
func (m *Machine) sysEventfd2(initval, flags uint64) uint64 {
	if flags&^uint64(unix.EFD_SEMAPHORE|unix.EFD_NONBLOCK|unix.EFD_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	h, err := unix.Eventfd(uint(uint32(initval)), int(flags&unix.EFD_SEMAPHORE)|unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return errno(err)
	}
	return m.newEventFile(h, flags&unix.EFD_NONBLOCK != 0)
}

func (m *Machine) sysEpollCreate1(flags uint64) uint64 {
	if flags&^uint64(unix.EPOLL_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	h, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return errno(err)
	}
	return m.newEventFile(h, false)
}

// epollEvent is RISC-V's struct epoll_event: events, 4 bytes of padding,
// then the 64-bit data.
const epollEventSize = 16

// sysEpollCtl adds, changes or removes guest fd fd (its host fd) in the
// epoll set epfd, the guest's 64-bit data kept by the host as it is.
func (m *Machine) sysEpollCtl(epfd, op, fd, ev uint64) uint64 {
	e, f := m.fds.get(epfd), m.fds.get(fd)
	if e == nil || f == nil {
		return neg(eBADF)
	}
	if e.host < 0 || f.hostFd() < 0 {
		return neg(1) // EPERM: a file epoll cannot watch (a Go reader or writer)
	}
	var hev unix.EpollEvent
	if op != unix.EPOLL_CTL_DEL {
		if !m.Mem.CanRead(ev, epollEventSize) {
			return neg(eFAULT)
		}
		events := m.Mem.load32(ev)
		data := m.Mem.load64(ev + 8)
		hev = unix.EpollEvent{Events: events, Fd: int32(data), Pad: int32(data >> 32)}
	}
	if err := unix.EpollCtl(e.host, int(op), f.hostFd(), &hev); err != nil {
		return errno(err)
	}
	return 0
}

// sysEpollPwait waits up to timeout ms (-1: for ever) for events of the
// epoll set and writes at most max of them in RISC-V's layout. It waits
// in poll on the epoll file beside the signal wake-up, so that a signal
// that ends the guest or has a handler ends it (-EINTR); the signal mask
// argument is not applied.
func (m *Machine) sysEpollPwait(epfd, evs, max, timeout uint64) uint64 {
	e := m.fds.get(epfd)
	if e == nil {
		return neg(eBADF)
	}
	if int32(max) <= 0 || max > 1<<20 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(evs, max*epollEventSize) {
		return neg(eFAULT)
	}
	if e.host < 0 {
		return neg(eINVAL)
	}
	host := make([]unix.EpollEvent, max)
	var deadline time.Time
	if ms := int32(timeout); ms >= 0 {
		deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	for {
		n, err := unix.EpollWait(e.host, host, 0)
		if err != nil && err != unix.EINTR {
			return errno(err)
		}
		if n > 0 {
			for i, h := range host[:n] {
				a := evs + uint64(i)*epollEventSize
				m.Mem.store32(a, h.Events)
				m.Mem.store32(a+4, 0)
				m.Mem.store64(a+8, uint64(uint32(h.Fd))|uint64(uint32(h.Pad))<<32)
			}
			return uint64(n)
		}
		// The epoll file is readable when an event is ready.
		ok, timedOut := m.waitUntil(e.host, unix.POLLIN, deadline)
		switch {
		case timedOut:
			return 0
		case !ok:
			m.sig.restart = false // epoll_wait is never restarted (signal(7))
			return neg(eINTR)
		}
	}
}

// sysTimerfdCreate is a host timerfd of a realtime, monotonic or boot
// clock (TFD_NONBLOCK, TFD_CLOEXEC).
func (m *Machine) sysTimerfdCreate(clock, flags uint64) uint64 {
	if flags&^uint64(unix.TFD_NONBLOCK|unix.TFD_CLOEXEC) != 0 {
		return neg(eINVAL)
	}
	switch clock {
	case unix.CLOCK_REALTIME, unix.CLOCK_MONOTONIC, unix.CLOCK_BOOTTIME:
	default:
		return neg(eINVAL)
	}
	h, err := unix.TimerfdCreate(int(clock), unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return errno(err)
	}
	return m.newEventFile(h, flags&unix.TFD_NONBLOCK != 0)
}

// sysTimerfdSettime arms or disarms a timerfd (struct itimerspec has the
// same layout on both sides) and reports its old setting.
func (m *Machine) sysTimerfdSettime(fd, flags, val, old uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if !m.Mem.CanRead(val, 32) || old != 0 && !m.Mem.CanWrite(old, 32) {
		return neg(eFAULT)
	}
	var nv, ov unix.ItimerSpec
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&nv)), 32), m.Mem.Bytes(val, 32))
	if err := unix.TimerfdSettime(f.host, int(flags), &nv, &ov); err != nil {
		return errno(err)
	}
	if old != 0 {
		copy(m.Mem.Bytes(old, 32), unsafe.Slice((*byte)(unsafe.Pointer(&ov)), 32))
	}
	return 0
}

func (m *Machine) sysTimerfdGettime(fd, cur uint64) uint64 {
	f := m.fds.get(fd)
	if f == nil {
		return neg(eBADF)
	}
	if !m.Mem.CanWrite(cur, 32) {
		return neg(eFAULT)
	}
	var v unix.ItimerSpec
	if err := unix.TimerfdGettime(f.host, &v); err != nil {
		return errno(err)
	}
	copy(m.Mem.Bytes(cur, 32), unsafe.Slice((*byte)(unsafe.Pointer(&v)), 32))
	return 0
}

func init() {
	for num, e := range map[uint64]sysEntry{
		19: {"eventfd2", "dx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysEventfd2(a[0], a[1]) }},
		20: {"epoll_create1", "x", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysEpollCreate1(a[0]) }},
		21: {"epoll_ctl", "dddp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysEpollCtl(a[0], a[1], a[2], a[3]) }},
		22: {"epoll_pwait", "dpddpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysEpollPwait(a[0], a[1], a[2], a[3]) }},
		85: {"timerfd_create", "dx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysTimerfdCreate(a[0], a[1]) }},
		86: {"timerfd_settime", "dxpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysTimerfdSettime(a[0], a[1], a[2], a[3]) }},
		87: {"timerfd_gettime", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysTimerfdGettime(a[0], a[1]) }},
	} {
		sysTable[num] = e
	}
}
