// Calls programs make about themselves: prctl's name, scheduling and priority queries, getcpu, mlock -> the host's answers where the guest's process is the host's, the kernel's rules otherwise.

package interp

import (
	"encoding/binary"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// self reports whether pid names the guest's process (0 or its pid).
func self(pid uint64) bool { return int32(pid) == 0 || int(int32(pid)) == unix.Getpid() }

// sysSchedGetaffinity writes the CPUs rvdyn's process may run on (the
// host's mask) and returns its size in bytes, as Linux does; the size
// asked for must hold the host's mask and be a multiple of 8.
func (m *Machine) sysSchedGetaffinity(pid, n, mask uint64) uint64 {
	if !self(pid) {
		return neg(eSRCH)
	}
	var host [128]byte
	r, _, errn := unix.RawSyscall(unix.SYS_SCHED_GETAFFINITY, 0, uintptr(len(host)), uintptr(unsafe.Pointer(&host[0])))
	if errn != 0 {
		return errno(errn)
	}
	if n < uint64(r) || n%8 != 0 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(mask, uint64(r)) {
		return neg(eFAULT)
	}
	copy(m.Mem.Bytes(mask, uint64(r)), host[:r])
	return uint64(r)
}

// sysSchedSetaffinity accepts a mask for the guest's process and changes
// nothing: rvdyn's threads are the Go runtime's.
func (m *Machine) sysSchedSetaffinity(pid, n, mask uint64) uint64 {
	if !self(pid) {
		return neg(eSRCH)
	}
	if !m.Mem.CanRead(mask, n) {
		return neg(eFAULT)
	}
	return 0
}

// sysSchedGetscheduler is SCHED_OTHER (0) for the guest's process.
func (m *Machine) sysSchedGetscheduler(pid uint64) uint64 {
	if int64(pid) < 0 {
		return neg(eINVAL)
	}
	if !self(pid) {
		return neg(eSRCH)
	}
	return 0
}

// sysSchedGetparam writes SCHED_OTHER's priority, 0.
func (m *Machine) sysSchedGetparam(pid, p uint64) uint64 {
	if int64(pid) < 0 || p == 0 {
		return neg(eINVAL)
	}
	if !self(pid) {
		return neg(eSRCH)
	}
	if !m.Mem.CanWrite(p, 4) {
		return neg(eFAULT)
	}
	m.Mem.store32(p, 0)
	return 0
}

// sysSchedPriority is sched_get_priority_max (max) or _min: 0 for
// SCHED_OTHER, SCHED_BATCH and SCHED_IDLE, 1..99 for SCHED_FIFO and
// SCHED_RR, EINVAL for others.
func (m *Machine) sysSchedPriority(policy uint64, max bool) uint64 {
	switch policy {
	case 0, 3, 5:
		return 0
	case 1, 2:
		if max {
			return 99
		}
		return 1
	}
	return neg(eINVAL)
}

// sysGetpriority is the host's answer for the guest's own process, in
// the system call's form (20 - nice); another process is ESRCH.
func (m *Machine) sysGetpriority(which, who uint64) uint64 {
	if which > 2 {
		return neg(eINVAL)
	}
	if which != 0 && int32(who) != 0 || which == 0 && !self(who) {
		return neg(eSRCH)
	}
	r, _, errn := unix.RawSyscall(unix.SYS_GETPRIORITY, uintptr(which), 0, 0)
	if errn != 0 {
		return errno(errn)
	}
	return uint64(r)
}

// sysPrctl serves the options glibc and programs use for themselves: the
// name (PR_SET_NAME, PR_GET_NAME: 16 bytes; it starts as the program's
// base name, as the kernel's comm), PR_GET_DUMPABLE and PR_SET_DUMPABLE
// (kept, 0 or 1), PR_SET_PDEATHSIG and PR_GET_PDEATHSIG (kept). Others
// are EINVAL.
func (m *Machine) sysPrctl(option, a2 uint64) uint64 {
	const (
		prSetPdeathsig = 1
		prGetPdeathsig = 2
		prGetDumpable  = 3
		prSetDumpable  = 4
		prSetName      = 15
		prGetName      = 16
	)
	p := &m.proc
	if !p.named {
		p.name = filepath.Base(m.cfg.Path)
		if m.cfg.Path == "" && len(m.cfg.Args) > 0 {
			p.name = filepath.Base(m.cfg.Args[0])
		}
		p.name = p.name[:min(len(p.name), 15)]
		p.named, p.dumpable = true, 1
	}
	switch option {
	case prSetName:
		s, e := m.readString(a2, 4096)
		if e != 0 {
			return e
		}
		p.name = s[:min(len(s), 15)]
	case prGetName:
		if !m.Mem.CanWrite(a2, 16) {
			return neg(eFAULT)
		}
		b := m.Mem.Bytes(a2, 16)
		clear(b)
		copy(b, p.name)
	case prGetDumpable:
		return p.dumpable
	case prSetDumpable:
		if a2 > 1 {
			return neg(eINVAL)
		}
		p.dumpable = a2
	case prSetPdeathsig:
		if a2 > 64 {
			return neg(eINVAL)
		}
		p.pdeathsig = a2
	case prGetPdeathsig:
		if !m.Mem.CanWrite(a2, 4) {
			return neg(eFAULT)
		}
		binary.LittleEndian.PutUint32(m.Mem.Bytes(a2, 4), uint32(p.pdeathsig))
	default:
		return neg(eINVAL)
	}
	return 0
}

// procState is what prctl keeps.
type procState struct {
	named               bool
	name                string
	dumpable, pdeathsig uint64
}

// sysGetcpu writes the host CPU rvdyn runs on now and its NUMA node
// (either pointer may be NULL).
func (m *Machine) sysGetcpu(cpu, node uint64) uint64 {
	var c, n uint32
	if _, _, errn := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&n)), 0); errn != 0 {
		return errno(errn)
	}
	for _, w := range [][2]uint64{{cpu, uint64(c)}, {node, uint64(n)}} {
		if w[0] == 0 {
			continue
		}
		if !m.Mem.CanWrite(w[0], 4) {
			return neg(eFAULT)
		}
		m.Mem.store32(w[0], uint32(w[1]))
	}
	return 0
}

// sysMlock accepts mlock and munlock of mapped memory (ENOMEM where a
// page is not mapped): the guest's memory is rvdyn's, never swapped out
// on its behalf.
func (m *Machine) sysMlock(addr, n uint64) uint64 {
	lo := addr &^ (pageSize - 1)
	if n == 0 {
		return 0
	}
	if addr+n < addr || !m.mappedRange(lo, addr+n) {
		return neg(eNOMEM)
	}
	return 0
}

// sysMlockall accepts MCL_CURRENT, MCL_FUTURE and MCL_ONFAULT (with one
// of the others); munlockall takes no flags.
func (m *Machine) sysMlockall(flags uint64) uint64 {
	if flags == 0 || flags&^7 != 0 || flags == 4 {
		return neg(eINVAL)
	}
	return 0
}
