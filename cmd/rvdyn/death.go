// How rvdyn ends: an exit status, or the signal that killed its guest -> rvdyn exits, or dies of that signal as qemu-riscv64 does.

package main

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// An exitStatus is how rvdyn ends: with exit status code or, when signal
// is nonzero, by dying of that signal (code is then 128+signal, the
// status a shell reports for such a death, used where dying is not
// possible: in tests, or if the signal does not terminate).
type exitStatus struct {
	code   int
	signal syscall.Signal
}

// exit ends rvdyn as st says. Everything rvdyn prints must be written
// before: a signal death runs no deferred function.
func (st exitStatus) exit() {
	if st.signal != 0 && terminates(st.signal) {
		dieOfSignal(st.signal)
	}
	os.Exit(st.code)
}

// terminates reports whether sig's default action ends a process (rather
// than stopping it, continuing it or being ignored): only such a signal
// can have killed the guest, and only such a one may end rvdyn.
func terminates(sig syscall.Signal) bool {
	switch sig {
	case unix.SIGSTOP, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU, unix.SIGCONT, unix.SIGCHLD, unix.SIGURG, unix.SIGWINCH:
		return false
	}
	return sig > 0 && sig < 65
}

// dieOfSignal makes rvdyn die of sig, as qemu-riscv64 does when its guest
// is killed by a signal: a parent's wait sees WIFSIGNALED with sig, and a
// shell prints "Segmentation fault", but no core file is written (it
// would be rvdyn's, not the guest's). The Go runtime catches most signals
// and turns a SIGSEGV sent by kill(2) into nothing, so the action is
// reset to the default with rt_sigaction itself, the signal unblocked on
// this thread and raised on it. It returns if sig does not end the
// process (its default action is to ignore it, or to stop).
func dieOfSignal(sig syscall.Signal) {
	unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	runtime.LockOSThread() // the thread whose mask is changed is the one raising
	var dfl struct {       // struct kernel_sigaction, all zero: SIG_DFL
		handler, flags, restorer uintptr
		mask                     uint64
	}
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, unsafe.Sizeof(dfl.mask), 0, 0)
	var set unix.Sigset_t
	set.Val[(sig-1)/64] |= 1 << ((uint(sig) - 1) % 64)
	unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	runtime.UnlockOSThread()
}
