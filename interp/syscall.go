// System calls: an ecall (a7 = number, a0..a5 = arguments) -> Linux behaviour, result in a0.

package interp

import (
	"io"
	"time"
)

// Linux RISC-V system call numbers (asm-generic/unistd.h).
const (
	SysGetcwd       = 17
	SysIoctl        = 29
	SysClose        = 57
	SysLseek        = 62
	SysRead         = 63
	SysWrite        = 64
	SysWritev       = 66
	SysFstat        = 80
	SysExit         = 93
	SysExitGroup    = 94
	SysSetTidAddr   = 96
	SysClockGettime = 113
	SysGetpid       = 172
	SysGettid       = 178
	SysBrk          = 214
	SysMunmap       = 215
	SysMmap         = 222
)

// Linux errno values, returned negated in a0.
const (
	eBADF   = 9
	eNOMEM  = 12
	eFAULT  = 14
	eINVAL  = 22
	eNOTTY  = 25
	eSPIPE  = 29
	eNOSYS  = 38
	maxRead = 1 << 20
)

var processStart = time.Now()

func neg(e uint64) uint64 { return -e }

// syscall performs the ecall at the current pc. It reports whether the
// guest exited.
func (m *Machine) syscall() bool {
	x := &m.CPU.X
	m.sys.Calls++
	a0, a1, a2 := x[10], x[11], x[12]
	var r uint64
	switch num := x[17]; num {
	case SysExit, SysExitGroup:
		m.exited, m.exitCode = true, int(a0&0xff)
		return true
	case SysWrite:
		r = m.sysWrite(a0, a1, a2)
	case SysWritev:
		r = m.sysWritev(a0, a1, a2)
	case SysRead:
		r = m.sysRead(a0, a1, a2)
	case SysBrk:
		r = m.sysBrk(a0)
	case SysClockGettime:
		r = m.sysClockGettime(a0, a1)
	case SysClose:
		if a0 > 2 {
			r = neg(eBADF)
		}
	case SysLseek:
		r = neg(eSPIPE)
	case SysIoctl:
		r = neg(eNOTTY)
	case SysSetTidAddr, SysGetpid, SysGettid:
		r = 1
	case SysMmap:
		r = neg(eNOMEM) // no anonymous mmap: allocators fall back to brk
	case SysMunmap:
		r = neg(eINVAL)
	default:
		if hr, handled, exit := m.hostcall(num); exit {
			return true
		} else if handled {
			r = hr
			break
		}
		if m.sys.Unknown == nil {
			m.sys.Unknown = make(map[uint64]uint64)
		}
		m.sys.Unknown[num]++
		r = neg(eNOSYS)
	}
	x[10] = r
	return false
}

func (m *Machine) out(fd uint64) io.Writer {
	switch fd {
	case 1:
		if m.cfg.Stdout == nil {
			return io.Discard
		}
		return m.cfg.Stdout
	case 2:
		if m.cfg.Stderr == nil {
			return io.Discard
		}
		return m.cfg.Stderr
	}
	return nil
}

func (m *Machine) sysWrite(fd, buf, n uint64) uint64 {
	w := m.out(fd)
	if w == nil {
		return neg(eBADF)
	}
	if n == 0 {
		return 0
	}
	if !m.Mem.CanRead(buf, n) {
		return neg(eFAULT)
	}
	k, err := w.Write(m.Mem.Bytes(buf, n))
	if k == 0 && err != nil {
		return neg(eBADF)
	}
	return uint64(k)
}

func (m *Machine) sysWritev(fd, iov, cnt uint64) uint64 {
	if m.out(fd) == nil {
		return neg(eBADF)
	}
	switch {
	case cnt > 1024: // UIO_MAXIOV
		return neg(eINVAL)
	case !m.Mem.CanRead(iov, 16*cnt):
		return neg(eFAULT)
	}
	var total uint64
	for i := uint64(0); i < cnt; i++ {
		base, _ := m.Mem.Read64(iov + 16*i)
		n, _ := m.Mem.Read64(iov + 16*i + 8)
		r := m.sysWrite(fd, base, n)
		if int64(r) < 0 {
			if total > 0 {
				return total
			}
			return r
		}
		total += r
	}
	return total
}

func (m *Machine) sysRead(fd, buf, n uint64) uint64 {
	if fd != 0 {
		return neg(eBADF)
	}
	if n == 0 {
		return 0
	}
	n = min(n, maxRead)
	if !m.Mem.CanWrite(buf, n) {
		return neg(eFAULT)
	}
	if m.cfg.Stdin == nil {
		return 0
	}
	k, err := m.cfg.Stdin.Read(m.Mem.Bytes(buf, n))
	if k == 0 && err != nil && err != io.EOF {
		return neg(eBADF)
	}
	return uint64(k)
}

// sysBrk moves the program break like Linux: a request outside
// [brkStart, brkLimit] leaves it where it is; the result is the break.
// Memory given back is zeroed, as Linux hands out fresh pages when the
// break grows again.
func (m *Machine) sysBrk(a uint64) uint64 {
	if a < m.brkStart || a > m.brkLimit {
		return m.brk
	}
	if a < m.brk {
		clear(m.Mem.Bytes(a, m.brk-a))
	}
	m.brk = a
	return a
}

func (m *Machine) sysClockGettime(clk, ts uint64) uint64 {
	if !m.Mem.CanWrite(ts, 16) {
		return neg(eFAULT)
	}
	var sec, nsec int64
	switch clk {
	case 0, 5, 8, 11: // REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI
		now := time.Now()
		sec, nsec = now.Unix(), int64(now.Nanosecond())
	case 1, 2, 3, 4, 6, 7, 9: // MONOTONIC(_RAW, _COARSE), PROCESS/THREAD_CPUTIME, BOOTTIME(_ALARM)
		d := time.Since(processStart)
		sec, nsec = int64(d/time.Second), int64(d%time.Second)
	default:
		return neg(eINVAL)
	}
	m.Mem.store64(ts, uint64(sec))
	m.Mem.store64(ts+8, uint64(nsec))
	return 0
}
