// The Linux system call table beyond the core calls of syscall.go: a syscall number and a0..a5 -> the handler, and its name and argument kinds for --strace.

package interp

import "golang.org/x/sys/unix"

// More Linux errno values, returned negated in a0.
const (
	eNOENT       = 2
	eSRCH        = 3
	eIO          = 5
	eACCES       = 13
	eBUSY        = 16
	eEXIST       = 17
	eNODEV       = 19
	eNOTDIR      = 20
	eISDIR       = 21
	eMFILE       = 24
	eRANGE       = 34
	eNAMETOOLONG = 36
	ePIPE        = 32
	eNOTEMPTY    = 39
)

// A sysEntry is one system call: its name and argument kinds for the
// trace (see strace.go) and its handler.
type sysEntry struct {
	name string
	args string // one letter per argument: see formatArg
	ret  byte   // 'd' decimal (or -errno), 'x' an address
	fn   func(m *Machine, a *[6]uint64) uint64
}

// sysTable holds every system call the guest may make, by number
// (asm-generic/unistd.h, as RISC-V Linux numbers them). The core calls of
// syscall.go are listed for their names only (fn nil).
var sysTable = map[uint64]sysEntry{
	SysGetcwd:       {"getcwd", "pd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetcwd(a[0], a[1]) }},
	23:              {"dup", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysDup(a[0]) }},
	24:              {"dup3", "ddo", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysDup3(a[0], a[1], a[2]) }},
	25:              {"fcntl", "ddx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFcntl(a[0], a[1], a[2]) }},
	SysIoctl:        {"ioctl", "dxx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysIoctl(a[0]) }},
	34:              {"mkdirat", "fso", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMkdirat(a[0], a[1], a[2]) }},
	35:              {"unlinkat", "fsx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysUnlinkat(a[0], a[1], a[2]) }},
	46:              {"ftruncate", "dd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.resized(m.sysFtruncate(a[0], a[1]), true) }},
	48:              {"faccessat", "fsox", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFaccessat(a[0], a[1], a[2], a[3]) }},
	56:              {"openat", "fsOo", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.resized(m.sysOpenat(a[0], a[1], a[2], a[3]), true) }},
	SysClose:        {"close", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysClose(a[0]) }},
	61:              {"getdents64", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetdents64(a[0], a[1], a[2]) }},
	SysLseek:        {"lseek", "ddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysLseek(a[0], a[1], a[2]) }},
	SysRead:         {"read", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rw(a[0], a[1], a[2], -1, false) }},
	SysWrite:        {"write", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rw(a[0], a[1], a[2], -1, true) }},
	65:              {"readv", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rwv(a[0], a[1], a[2], -1, false) }},
	SysWritev:       {"writev", "dpd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rwv(a[0], a[1], a[2], -1, true) }},
	67:              {"pread64", "dpdd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rw(a[0], a[1], a[2], offArg(a[3]), false) }},
	68:              {"pwrite64", "dpdd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rw(a[0], a[1], a[2], offArg(a[3]), true) }},
	69:              {"preadv", "dpdd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rwv(a[0], a[1], a[2], offArg(a[3]), false) }},
	70:              {"pwritev", "dpdd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.rwv(a[0], a[1], a[2], offArg(a[3]), true) }},
	79:              {"newfstatat", "fspx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysNewfstatat(a[0], a[1], a[2], a[3]) }},
	SysFstat:        {"fstat", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFstat(a[0], a[1]) }},
	SysExit:         {"exit", "d", 'd', nil},
	SysExitGroup:    {"exit_group", "d", 'd', nil},
	SysSetTidAddr:   {"set_tid_address", "dddddd", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getpid()) }},
	101:             {"nanosleep", "pp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysNanosleep(a[0], a[1]) }},
	SysClockGettime: {"clock_gettime", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysClockGettime(a[0], a[1]) }},
	115:             {"clock_nanosleep", "dxpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysClockNanosleep(a[0], a[1], a[2], a[3]) }},
	124:             {"sched_yield", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return 0 }},
	134:             {"rt_sigaction", "dppd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigaction(a[0], a[1], a[2], a[3]) }},
	135:             {"rt_sigprocmask", "dppd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRtSigprocmask(a[0], a[1], a[2], a[3]) }},
	160:             {"uname", "p", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysUname(a[0]) }},
	163:             {"getrlimit", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetrlimit(a[0], a[1]) }},
	59:              {"pipe2", "px", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysPipe2(a[0], a[1]) }},
	72:              {"pselect6", "dpppp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysPselect6(a[0], a[1], a[2], a[3], a[4], a[5]) }},
	73:              {"ppoll", "pdpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysPpoll(a[0], a[1], a[2], a[3], a[4]) }},
	114:             {"clock_getres", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysClockGetres(a[0], a[1]) }},
	153:             {"times", "p", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysTimes(a[0]) }},
	155:             {"getpgid", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSessionID(a[0], false) }},
	156:             {"getsid", "d", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSessionID(a[0], true) }},
	166:             {"umask", "o", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Umask(int(a[0] & 0o777))) }},
	165:             {"getrusage", "dp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetrusage(a[0], a[1]) }},
	179:             {"sysinfo", "p", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysSysinfo(a[0]) }},
	SysGetpid:       {"getpid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getpid()) }},
	173:             {"getppid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getppid()) }},
	174:             {"getuid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getuid()) }},
	175:             {"geteuid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Geteuid()) }},
	176:             {"getgid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getgid()) }},
	177:             {"getegid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getegid()) }},
	SysGettid:       {"gettid", "", 'd', func(m *Machine, a *[6]uint64) uint64 { return uint64(unix.Getpid()) }},
	SysBrk:          {"brk", "x", 'x', func(m *Machine, a *[6]uint64) uint64 { return m.remapped(m.sysBrk(a[0])) }},
	SysMunmap:       {"munmap", "xd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.remapped(m.sysMunmap(a[0], a[1])) }},
	216:             {"mremap", "xddxx", 'x', func(m *Machine, a *[6]uint64) uint64 { return m.remapped(m.sysMremap(a[0], a[1], a[2], a[3], a[4])) }},
	SysMmap: {"mmap", "pdPMdd", 'x', func(m *Machine, a *[6]uint64) uint64 {
		return m.remapped(m.sysMmap(a[0], a[1], a[2], a[3], a[4], a[5]))
	}},
	226: {"mprotect", "xdP", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.remapped(m.sysMprotect(a[0], a[1], a[2])) }},
	227: {"msync", "xdx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMsync(a[0], a[1], a[2]) }},
	233: {"madvise", "xdd", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysMadvise(a[0], a[1], a[2]) }},
	259: {"riscv_flush_icache", "xxx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysFlushIcache(a[0], a[1], a[2]) }},
	261: {"prlimit64", "ddpp", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysPrlimit64(a[0], a[1], a[2], a[3]) }},
	276: {"renameat2", "fsfsx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysRenameat2(a[0], a[1], a[2], a[3], a[4]) }},
	278: {"getrandom", "pdx", 'd', func(m *Machine, a *[6]uint64) uint64 { return m.sysGetrandom(a[0], a[1], a[2]) }},
}

// offArg reads a file offset argument; a negative one is invalid (-2
// keeps it apart from -1, "at the file position").
func offArg(v uint64) int64 {
	if int64(v) < 0 {
		return -2
	}
	return int64(v)
}

// sysIoctl answers ENOTTY for every request on an open fd: no guest file
// is a terminal.
func (m *Machine) sysIoctl(fd uint64) uint64 {
	if m.fds.get(fd) == nil {
		return neg(eBADF)
	}
	return neg(eNOTTY)
}
