// Pipes and waiting on several files: pipe2, ppoll, pselect6, and clock_getres -> host pipes and polls behind guest fds.

package interp

import (
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"
)

// sysPipe2 makes a host pipe and gives the guest its two ends at the two
// lowest free fds, written to fds as two ints (read end first). Flags:
// O_CLOEXEC (nothing here execs) and O_NONBLOCK; others are -EINVAL. A
// pointer the guest cannot write is -EFAULT with no fd left open, as
// Linux does.
func (m *Machine) sysPipe2(fds, flags uint64) uint64 {
	if flags&^uint64(unix.O_CLOEXEC|unix.O_NONBLOCK) != 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(fds, 8) {
		return neg(eFAULT)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return errno(err)
	}
	nb := flags&unix.O_NONBLOCK != 0
	r := m.fds.install(&gfile{host: p[0], nonblock: nb, kind: kindPipe}, 0)
	if int64(r) < 0 {
		unix.Close(p[0])
		unix.Close(p[1])
		return r
	}
	w := m.fds.install(&gfile{host: p[1], nonblock: nb, kind: kindPipe}, 0)
	if int64(w) < 0 {
		m.fds.drop(r)
		unix.Close(p[1])
		return w
	}
	b := m.Mem.Bytes(fds, 8)
	binary.LittleEndian.PutUint32(b, uint32(r))
	binary.LittleEndian.PutUint32(b[4:], uint32(w))
	return 0
}

// maxPollFds is the most pollfds one ppoll takes (the guest's
// RLIMIT_NOFILE, as in the kernel).
const maxPollFds = maxFds

// A pollSet is the guest's files to wait on, as host pollfds: host[i]
// waits for guest entry i; ready[i] is set for entries answered without
// the host (a standard stream the Config gives as a Go reader or writer
// is always ready; a closed fd is POLLNVAL).
type pollSet struct {
	host  []unix.PollFd
	ready []int16
}

// add appends guest fd (ignored when negative, as poll ignores it) with
// events.
func (m *Machine) pollAdd(s *pollSet, fd int32, events int16) {
	pfd := unix.PollFd{Fd: -1, Events: events}
	var ready int16
	switch f := m.fds.get(uint64(uint32(fd))); {
	case fd < 0:
	case f == nil:
		ready = unix.POLLNVAL
	case f.hostFd() >= 0:
		pfd.Fd = int32(f.hostFd())
	case f.r != nil:
		ready = events & unix.POLLIN
	default:
		ready = events & unix.POLLOUT
	}
	s.host = append(s.host, pfd)
	s.ready = append(s.ready, ready)
}

// pollWait waits until some entry of s is ready or the deadline (zero:
// none; in the past: do not wait) passes, and returns how many entries
// are ready with their events in revents. A posted signal that ends the
// guest ends the wait with -EINTR; other signals are acted on and the
// wait goes on.
func (m *Machine) pollWait(s *pollSet, deadline time.Time) ([]int16, uint64) {
	revents := make([]int16, len(s.host))
	answered := false // some entry is ready without the host: do not wait
	for _, r := range s.ready {
		answered = answered || r != 0
	}
	fds := append(append([]unix.PollFd(nil), s.host...), unix.PollFd{Fd: m.wakeFd(), Events: unix.POLLIN})
	for {
		if m.interrupted() {
			return nil, neg(eINTR)
		}
		var ts *unix.Timespec
		if answered || !deadline.IsZero() {
			left := time.Duration(0)
			if !answered {
				left = max(time.Until(deadline), 0)
			}
			t := unix.NsecToTimespec(int64(left))
			ts = &t
		}
		_, err := unix.Ppoll(fds, ts, nil)
		if err != nil && err != unix.EINTR {
			return nil, errno(err)
		}
		if w := &fds[len(fds)-1]; w.Revents != 0 {
			w.Revents = 0
			m.drainWake()
			if m.deliver(false) {
				return nil, neg(eINTR)
			}
		}
		n := uint64(0)
		for i := range s.host {
			revents[i] = s.ready[i]
			if s.host[i].Fd >= 0 {
				revents[i] |= fds[i].Revents
			}
			if revents[i] != 0 {
				n++
			}
		}
		if n > 0 || answered || !deadline.IsZero() && !time.Now().Before(deadline) {
			return revents, n
		}
	}
}

// timeoutArg reads a struct timespec timeout at ts (0: wait for ever) as
// a deadline (zero: none), or gives -EFAULT or -EINVAL.
func (m *Machine) timeoutArg(ts uint64) (time.Time, uint64) {
	if ts == 0 {
		return time.Time{}, 0
	}
	if !m.Mem.CanRead(ts, 16) {
		return time.Time{}, neg(eFAULT)
	}
	sec, nsec := int64(m.Mem.load64(ts)), int64(m.Mem.load64(ts+8))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return time.Time{}, neg(eINVAL)
	}
	d := time.Duration(min(sec, int64(time.Duration(1<<62)/time.Second)))*time.Second + time.Duration(nsec)
	return time.Now().Add(d), 0
}

// putTimeLeft writes the time left before deadline back to the timeout
// at ts, as ppoll and pselect6 do (0 when it passed).
func (m *Machine) putTimeLeft(ts uint64, deadline time.Time) {
	if ts == 0 || deadline.IsZero() || !m.Mem.CanWrite(ts, 16) {
		return
	}
	left := max(time.Until(deadline), 0)
	m.Mem.store64(ts, uint64(left/time.Second))
	m.Mem.store64(ts+8, uint64(left%time.Second))
}

// sysPpoll waits on nfds struct pollfd (int fd; short events; short
// revents) at fds. The signal mask argument is accepted and not applied
// (no handler ever runs: docs/syscalls.md).
func (m *Machine) sysPpoll(fds, nfds, ts, sigmask, sigsetsize uint64) uint64 {
	if nfds > maxPollFds {
		return neg(eINVAL)
	}
	if nfds > 0 && !m.Mem.CanWrite(fds, nfds*8) {
		return neg(eFAULT)
	}
	deadline, e := m.timeoutArg(ts)
	if e != 0 {
		return e
	}
	var s pollSet
	for i := range nfds {
		a := fds + 8*i
		m.pollAdd(&s, int32(m.Mem.load32(a)), int16(m.Mem.load16(a+4)))
	}
	revents, n := m.pollWait(&s, deadline)
	if int64(n) < 0 {
		return n
	}
	for i := range nfds {
		m.Mem.store16(fds+8*i+6, uint16(revents[i]))
	}
	m.putTimeLeft(ts, deadline)
	return n
}

// sysPselect6 is select over three fd_sets of nfds bits (a readable,
// writable or exceptional fd has its bit left set; the rest are
// cleared) by way of the same wait as ppoll. An fd in a set that is not
// open is -EBADF.
func (m *Machine) sysPselect6(nfds, rd, wr, ex, ts, sig uint64) uint64 {
	if int32(nfds) < 0 {
		return neg(eINVAL)
	}
	nfds = min(uint64(int32(nfds)), maxFds)
	size := (nfds + 63) / 64 * 8
	sets := [3]uint64{rd, wr, ex}
	var bits [3][]byte
	for k, a := range sets {
		if a == 0 || size == 0 {
			continue
		}
		if !m.Mem.CanWrite(a, size) {
			return neg(eFAULT)
		}
		bits[k] = m.Mem.Bytes(a, size)
	}
	deadline, e := m.timeoutArg(ts)
	if e != 0 {
		return e
	}
	want := [3]int16{unix.POLLIN, unix.POLLOUT, unix.POLLPRI}
	var s pollSet
	var fdOf []uint64
	for fd := range nfds {
		var ev int16
		for k := range bits {
			if bits[k] != nil && bits[k][fd/8]&(1<<(fd%8)) != 0 {
				ev |= want[k]
			}
		}
		if ev == 0 {
			continue
		}
		if m.fds.get(fd) == nil {
			return neg(eBADF)
		}
		m.pollAdd(&s, int32(fd), ev)
		fdOf = append(fdOf, fd)
	}
	revents, n := m.pollWait(&s, deadline)
	if int64(n) < 0 {
		return n
	}
	for k := range bits {
		clear(bits[k])
	}
	// As the kernel counts: a readable fd counts in the read set, a
	// writable one in the write set, each bit once.
	n = 0
	in := [3]int16{unix.POLLIN | unix.POLLHUP | unix.POLLERR, unix.POLLOUT | unix.POLLERR, unix.POLLPRI}
	for i, fd := range fdOf {
		for k := range bits {
			if bits[k] != nil && s.host[i].Events&want[k] != 0 && revents[i]&in[k] != 0 {
				bits[k][fd/8] |= 1 << (fd % 8)
				n++
			}
		}
	}
	m.putTimeLeft(ts, deadline)
	return n
}

// sysClockGetres answers with the host's resolution of the same clock
// (every clock clock_gettime knows); a NULL res is allowed.
func (m *Machine) sysClockGetres(clk, res uint64) uint64 {
	switch clk {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11:
	default:
		return neg(eINVAL)
	}
	if res == 0 {
		return 0
	}
	if !m.Mem.CanWrite(res, 16) {
		return neg(eFAULT)
	}
	var ts unix.Timespec
	if err := unix.ClockGetres(int32(clk), &ts); err != nil {
		return errno(err)
	}
	m.Mem.store64(res, uint64(ts.Sec))
	m.Mem.store64(res+8, uint64(ts.Nsec))
	return 0
}
