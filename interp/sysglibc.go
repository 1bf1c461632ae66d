// System calls glibc's and libstdc++'s start-up and runtime make (checked against qemu-riscv64 -strace): arguments -> results.

package interp

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// More errno values.
const (
	eAGAIN     = 11
	eTIMEDOUT  = 110
	sigAbrt    = 6
	futexWait  = 0
	futexWake  = 1
	futexWaitB = 9 // FUTEX_WAIT_BITSET
	futexWakeB = 10
)

// ErrFutexDeadlock ends a run whose only thread waits on a futex with no
// timeout: nothing could ever wake it (threads are not supported), where
// Linux would block the process forever.
var ErrFutexDeadlock = errors.New("guest waits on a futex with no timeout and no other thread to wake it")

func init() {
	for num, e := range map[uint64]sysEntry{
		78:  {"readlinkat", "fspd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysReadlinkat(a[0], a[1], a[2], a[3]) }},
		98:  {"futex", "pFdpxd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFutex(a[0], a[1], a[2], a[3]) }},
		99:  {"set_robust_list", "dddddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return neg(eNOSYS) }},
		47:  {"fallocate", "dddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFallocate(a[0], a[1], a[2], a[3]) }},
		71:  {"sendfile", "ddpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSendfile(a[0], a[1], a[2], a[3]) }},
		120: {"sched_getscheduler", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedGetscheduler(a[0]) }},
		121: {"sched_getparam", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedGetparam(a[0], a[1]) }},
		122: {"sched_setaffinity", "ddp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedSetaffinity(a[0], a[1], a[2]) }},
		123: {"sched_getaffinity", "ddp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedGetaffinity(a[0], a[1], a[2]) }},
		125: {"sched_get_priority_max", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedPriority(a[0], true) }},
		126: {"sched_get_priority_min", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSchedPriority(a[0], false) }},
		141: {"getpriority", "dd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetpriority(a[0], a[1]) }},
		167: {"prctl", "dxxxx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysPrctl(a[0], a[1]) }},
		168: {"getcpu", "ppp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetcpu(a[0], a[1]) }},
		228: {"mlock", "pd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMlock(a[0], a[1]) }},
		229: {"munlock", "pd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMlock(a[0], a[1]) }},
		230: {"mlockall", "x", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMlockall(a[0]) }},
		231: {"munlockall", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return 0 }},
		279: {"memfd_create", "sx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMemfdCreate(a[0], a[1]) }},
		285: {"copy_file_range", "dpdpdx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysCopyFileRange(a[0], a[1], a[2], a[3], a[4], a[5]) }},
		291: {"statx", "fsxxp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysStatx(a[0], a[1], a[2], a[3], a[4]) }},
		102: {"getitimer", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetitimer(a[0], a[1]) }},
		103: {"setitimer", "dpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSetitimer(a[0], a[1], a[2]) }},
		129: {"kill", "dS", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysKill(a[0], a[1], false) }},
		130: {"tkill", "dS", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysKill(a[0], a[1], true) }},
		131: {"tgkill", "ddS", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysKill(a[1], a[2], true) }},
		132: {"sigaltstack", "pp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSigaltstack(a[0], a[1]) }},
		133: {"rt_sigsuspend", "pd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigsuspend(a[0], a[1]) }},
		136: {"rt_sigpending", "pd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigpending(a[0], a[1]) }},
		137: {"rt_sigtimedwait", "pppd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigtimedwait(a[0], a[1], a[2], a[3]) }},
		139: {"rt_sigreturn", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigreturn() }},
		293: {"rseq", "dddddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return neg(eNOSYS) }},
	} {
		sysTable[num] = e
	}
}

// exePath returns what readlink("/proc/self/exe") gives: the program
// file's absolute path with symlinks resolved, as Linux and qemu-riscv64
// report it, or Config.ExecPath if the file cannot be found (an embedded
// guest).
func (m *Machine) exePath() string {
	p := m.cfg.ExecPath()
	if abs, err := filepath.Abs(p); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return real
		}
		return abs
	}
	return p
}

// isSelfExe reports whether p names /proc/self/exe (or /proc/PID/exe of
// this process).
func isSelfExe(p string) bool {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	who, ok := strings.CutSuffix(rest, "/exe")
	return ok && (who == "self" || who == strconv.Itoa(os.Getpid()) || who == "thread-self")
}

// sysReadlinkat answers /proc/self/exe with the guest program's path (not
// rvdyn's); other links are read from the file system.
func (m *Machine) sysReadlinkat(dirfd, pathp, buf, size uint64) uint64 {
	p, e := m.readPath(pathp)
	if e != 0 {
		return e
	}
	if int64(size) <= 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(buf, size) {
		return neg(eFAULT)
	}
	var target string
	if isSelfExe(p) {
		target = m.exePath()
	} else {
		r, e := m.fds.resolveParent(dirfd, p, neg(eINVAL), neg(eINVAL))
		if e == 1 { // "." or ".." under a root: not a link
			return neg(eINVAL)
		}
		if e != 0 {
			return e
		}
		b := make([]byte, min(size, pathMax))
		n, err := unix.Readlinkat(r.dir, r.name, b)
		r.done()
		if err != nil {
			return errno(err)
		}
		target = string(b[:n])
	}
	n := copy(m.Mem.Bytes(buf, size), target)
	return uint64(n)
}

// sysFutex serves the futex operations a single-threaded glibc program
// makes: a wake finds no waiter (0); a wait whose word differs returns
// EAGAIN, and one whose word matches sleeps out its timeout (ETIMEDOUT),
// or with no timeout ends the run (ErrFutexDeadlock): no other thread
// exists to wake it.
func (m *Machine) sysFutex(uaddr, op, val, timeout uint64) uint64 {
	switch op & 0x7f { // without FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256)
	case futexWake, futexWakeB:
		if uaddr&3 != 0 {
			return neg(eINVAL)
		}
		return 0
	case futexWait, futexWaitB:
		if uaddr&3 != 0 {
			return neg(eINVAL)
		}
		if !m.Mem.CanRead(uaddr, 4) {
			return neg(eFAULT)
		}
		if m.Mem.load32(uaddr) != uint32(val) {
			return neg(eAGAIN)
		}
		if timeout == 0 {
			m.hostErr = ErrFutexDeadlock
			m.exited, m.exitCode = true, 134
			return 0
		}
		d, e := m.readTimespec(timeout)
		if e != 0 {
			return e
		}
		if op&0x7f == futexWaitB { // an absolute time on CLOCK_MONOTONIC
			d -= time.Since(processStart)
		}
		if d > 0 {
			time.Sleep(d)
		}
		return neg(eTIMEDOUT)
	}
	return neg(eNOSYS)
}

// sysKill serves a signal the guest sends itself (kill, tkill, tgkill
// with its own pid, or kill with pid 0): raise() and abort() use it. The
// signal is posted (Signal) with the guest as its sender (SI_USER, or
// SI_TKILL for tkill and tgkill) and acted on as the call returns, as
// Linux delivers it: the default action of terminating ends the guest
// with status 128+sig (abort() gives 134), a handler runs, an ignored
// signal is dropped, a blocked one stays pending. Another pid is EPERM:
// the guest may signal only itself.
func (m *Machine) sysKill(pid, sig uint64, thread bool) uint64 {
	if sig > 64 {
		return neg(eINVAL)
	}
	if int64(pid) != int64(os.Getpid()) && pid != 0 {
		return neg(1) // EPERM
	}
	if sig != 0 {
		m.noteSender(int(sig), thread)
		m.Signal(int(sig))
	}
	return 0
}
