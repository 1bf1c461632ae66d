// System calls: an ecall (a7 = number, a0..a5 = arguments) -> Linux behaviour, result in a0.

package interp

import (
	"fmt"
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
	eINTR   = 4
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

// syscall performs the ecall at the current pc and leaves the pc at the
// instruction the guest resumes at: the next one, or where a signal
// handler or rt_sigreturn moved it (m.sig.jumped). It reports whether the
// guest exited. The exit calls are here; every other call is in sysTable
// (syslinux.go).
func (m *Machine) syscall() bool {
	x := &m.CPU.X
	m.sys.Calls++
	a := [6]uint64{x[10], x[11], x[12], x[13], x[14], x[15]}
	var call string
	if m.cfg.Strace != nil {
		call = m.traceCall(x[17], &a)
	}
	if m.sig.pending.Load() != 0 && m.deliver(false) {
		return true // killed by a signal posted before the call
	}
	pc := m.CPU.PC
	m.sig.jumped, m.sig.restart = false, false
	var r uint64
	switch num := x[17]; num {
	case SysExit, SysExitGroup:
		if m.cfg.Strace != nil {
			fmt.Fprintln(m.cfg.Strace, call)
		}
		m.exited, m.exitCode = true, int(a[0]&0xff)
		return true
	default:
		if hr, handled, exit := m.hostcall(num); exit {
			return true
		} else if handled {
			r = hr
			break
		}
		if e, ok := sysTable[num]; ok && e.fn != nil {
			r = e.fn(m, &a)
			break
		}
		if m.sys.Unknown == nil {
			m.sys.Unknown = make(map[uint64]uint64)
		}
		m.sys.Unknown[num]++
		r = neg(eNOSYS)
	}
	if m.cfg.Strace != nil && !m.exited {
		m.traceResult(call, x[17], r)
	}
	if m.exited {
		return true // ended by the call (a deadlock) or killed by a signal during it
	}
	x[10] = r
	if !m.sig.jumped {
		m.CPU.PC = pc + 4
	}
	if m.sig.restart && r == neg(eINTR) {
		// Interrupted by a signal with a handler: one with SA_RESTART
		// returns to this ecall with its first argument (enterHandler).
		m.sig.rewind = [2]uint64{pc, a[0]}
	}
	m.sig.restart = false
	if m.sig.pending.Load() != 0 && m.deliver(true) {
		return true // killed by a signal on the call's return, as Linux delivers
	}
	m.sig.rewind = [2]uint64{}
	if m.sig.suspended { // no handler took rt_sigsuspend's mask over
		m.sig.mask, m.sig.suspended = m.sig.saved, false
	}
	return false
}

// sysBrk moves the program break: a request outside [brkStart,
// brkLimit] leaves it where it is; the result is the break. As under
// qemu-riscv64 (7.2's do_brk), which is the reference here, memory given
// back when the break moves down stays mapped with its contents, and
// the bytes between the old break and the new are zeroed when it grows
// again; Linux unmaps whole pages above the new break instead (an access
// there faults). Only the pages the break ever reached (below brkTop)
// are cleared: the ones above it were never handed out.
func (m *Machine) sysBrk(a uint64) uint64 {
	if a < m.brkStart || a > m.brkLimit {
		return m.brk
	}
	if a > m.brk {
		if end := min(a, m.brkTop); end > m.brk {
			clear(m.Mem.Bytes(m.brk, end-m.brk))
		}
		m.setPages(pageUp(m.brk), pageUp(a), permRW, true) // the pages above brkTop, and any the guest unmapped
		m.brkTop = max(m.brkTop, pageUp(a))
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
