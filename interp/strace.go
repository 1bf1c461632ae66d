// System call tracing (--strace): each ecall, its arguments and result -> one line of text, in the style of qemu-riscv64 -strace.

package interp

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// traceCall formats the call part of a trace line, "PID name(arg,...)",
// before the call runs (string arguments may change during it).
func (m *Machine) traceCall(num uint64, a *[6]uint64) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(os.Getpid()))
	b.WriteByte(' ')
	e, ok := sysTable[num]
	if !ok {
		fmt.Fprintf(&b, "Unknown syscall %d(", num)
		e.args = "xxxxxx"
	} else {
		b.WriteString(e.name)
		b.WriteByte('(')
	}
	for i, k := range []byte(e.args) {
		if k == 'o' && e.name == "openat" && !creates(int(a[2])) {
			break // the mode means nothing without O_CREAT: qemu leaves it out
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.formatArg(k, a[i]))
	}
	b.WriteByte(')')
	return b.String()
}

// traceResult writes the whole line once the call has returned r.
func (m *Machine) traceResult(call string, num, r uint64) {
	kind := byte('d')
	if e, ok := sysTable[num]; ok {
		kind = e.ret
	}
	var res string
	switch {
	case int64(r) < 0 && int64(r) > -4096:
		msg := unix.Errno(-r).Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		res = fmt.Sprintf("-1 errno=%d (%s)", -int64(r), msg)
	case kind == 'x':
		res = fmt.Sprintf("0x%x", r)
	default:
		res = strconv.FormatInt(int64(r), 10)
	}
	fmt.Fprintf(m.cfg.Strace, "%s = %s\n", call, res)
}

// formatArg formats one argument by kind: d decimal, x hex, p pointer, o
// octal, f a directory fd (AT_FDCWD), s a string in guest memory, O open
// flags, P and M mmap's protection and flags, S a signal, F a futex
// operation.
func (m *Machine) formatArg(kind byte, v uint64) string {
	switch kind {
	case 'd':
		return strconv.FormatInt(int64(v), 10)
	case 'o':
		return "0" + strconv.FormatUint(v, 8)
	case 'p':
		if v == 0 {
			return "NULL"
		}
		return fmt.Sprintf("0x%x", v)
	case 'f':
		if isCwd(v) {
			return "AT_FDCWD"
		}
		return strconv.FormatInt(int64(v), 10)
	case 's':
		s, e := m.readString(v, pathMax-1)
		if e != 0 {
			return fmt.Sprintf("0x%x", v)
		}
		return strconv.Quote(s)
	case 'O':
		return openFlagString(v)
	case 'S':
		if v < uint64(len(signalNames)) && signalNames[v] != "" {
			return signalNames[v]
		}
		return strconv.FormatInt(int64(v), 10)
	case 'F':
		return futexOpString(v)
	case 'P':
		return flagString(v, protNames, "PROT_NONE")
	case 'M':
		return flagString(v, mapNames, "0")
	}
	return fmt.Sprintf("0x%x", v)
}

// signalNames are the names qemu-riscv64 -strace prints for the signals
// (6 is SIGIOT there, not SIGABRT).
var signalNames = [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGIOT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT",
	19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU",
	25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS"}

// futexOpString names a futex operation as qemu does: FUTEX_WAIT,
// FUTEX_WAKE, ... with |FUTEX_PRIVATE_FLAG and |FUTEX_CLOCK_REALTIME.
func futexOpString(v uint64) string {
	names := []string{"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
		"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI", "FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET"}
	s := strconv.FormatUint(v&0x7f, 10)
	if c := v & 0x7f; c < uint64(len(names)) {
		s = names[c]
	}
	if v&128 != 0 {
		s += "|FUTEX_PRIVATE_FLAG"
	}
	if v&256 != 0 {
		s += "|FUTEX_CLOCK_REALTIME"
	}
	return s
}

var openFlagNames = []flagName{
	{unix.O_CREAT, "O_CREAT"}, {unix.O_EXCL, "O_EXCL"}, {unix.O_NOCTTY, "O_NOCTTY"},
	{unix.O_TRUNC, "O_TRUNC"}, {unix.O_APPEND, "O_APPEND"}, {unix.O_NONBLOCK, "O_NONBLOCK"},
	{unix.O_TMPFILE, "O_TMPFILE"}, {unix.O_DIRECTORY, "O_DIRECTORY"}, {unix.O_NOFOLLOW, "O_NOFOLLOW"}, {unix.O_CLOEXEC, "O_CLOEXEC"},
	{unix.O_LARGEFILE, "O_LARGEFILE"},
}

var protNames = []flagName{{1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}}

var mapNames = []flagName{{mapShared, "MAP_SHARED"}, {mapPrivate, "MAP_PRIVATE"}, {mapFixed, "MAP_FIXED"},
	{mapAnonymous, "MAP_ANONYMOUS"}, {0x4000, "MAP_NORESERVE"}, {mapFixedNoreplac, "MAP_FIXED_NOREPLACE"}}

type flagName struct {
	bit  uint64
	name string
}

// flagString names the bits of v, "A|B|0x..." (none for 0).
func flagString(v uint64, names []flagName, none string) string {
	if v == 0 {
		return none
	}
	var parts []string
	for _, f := range names {
		if v&f.bit == f.bit { // all its bits: O_TMPFILE has two
			parts = append(parts, f.name)
			v &^= f.bit
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", v))
	}
	return strings.Join(parts, "|")
}

func openFlagString(v uint64) string {
	parts := []string{[]string{"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"}[v&3]}
	v &^= 3
	for _, f := range openFlagNames {
		if v&f.bit != 0 {
			parts = append(parts, f.name)
			v &^= f.bit
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", v))
	}
	return strings.Join(parts, "|")
}
