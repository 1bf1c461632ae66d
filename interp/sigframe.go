// Signal frames: a signal whose action is a handler -> the guest's context saved in an rt_sigframe on its stack (or alternate stack) and the handler called; rt_sigreturn -> the context restored from that frame.

package interp

import (
	"fmt"
	"os"
)

// The frame is Linux's for RISC-V (arch/riscv/kernel/signal.c, and
// qemu-riscv64's linux-user/riscv/signal.c, which lays it out the same):
//
//	struct rt_sigframe { siginfo_t info; struct ucontext uc; }
//	struct ucontext    { uc_flags; uc_link; stack_t uc_stack;
//	                     sigset_t uc_sigmask; u8 unused[120];
//	                     struct sigcontext uc_mcontext (16-aligned); }
//	struct sigcontext  { pc, x1..x31; f0..f31 (64 bits each), fcsr,
//	                     3 reserved words (the union's largest member) }
//
// A handler's ucontext_t (glibc's, with its 128-byte sigset_t) reads the
// same bytes.
const (
	frameInfo     = 0                      // siginfo_t, 128 bytes
	frameUC       = 128                    // struct ucontext
	ucStack       = frameUC + 16           // stack_t: ss_sp, ss_flags (int), ss_size
	ucSigmask     = frameUC + 40           // the mask to restore
	ucMcontext    = frameUC + 176          // sc_regs[32]: pc, then x1..x31
	ucFregs       = ucMcontext + 256       // f0..f31
	ucFcsr        = ucFregs + 256          // fcsr (32 bits)
	sigFrameSize  = ucMcontext + 256 + 528 // 1088, a multiple of 16
	minSigStkSize = 2048                   // MINSIGSTKSZ on RISC-V
	sigSegv       = 11
	unblockable   = 1<<(SigKill-1) | 1<<(19-1) // SIGKILL, SIGSTOP
)

// sigaction flags (asm-generic).
const (
	saOnStack   = 0x08000000
	saRestart   = 0x10000000
	saNoDefer   = 0x40000000
	saResetHand = 0x80000000
)

// sigaltstack flags.
const (
	ssOnStack = 1
	ssDisable = 2
)

// siginfo codes for signals one process sends (siginfo.h).
const (
	siUser   = 0    // kill
	siTkill  = -6   // tkill, tgkill
	siKernel = 0x80 // the kernel's own
)

// altStack is the alternate signal stack sigaltstack set: zero when
// disabled.
type altStack struct {
	sp, size uint64
}

// onAltStack reports whether sp lies in the alternate signal stack.
func (m *Machine) onAltStack(sp uint64) bool {
	a := m.sig.alt
	return a.size != 0 && sp-a.sp < a.size
}

// altFlags is ss_flags of the alternate stack as sigaltstack reports it
// for stack pointer sp (Linux's sas_ss_flags).
func (m *Machine) altFlags(sp uint64) uint64 {
	switch {
	case m.sig.alt.size == 0:
		return ssDisable
	case m.onAltStack(sp):
		return ssOnStack
	}
	return 0
}

// sysSigaltstack sets and reports the alternate signal stack as Linux
// does: it cannot change while the guest runs on it (EPERM); flags other
// than 0 and SS_DISABLE are EINVAL (SS_AUTODISARM is accepted and has no
// effect), a stack smaller than MINSIGSTKSZ ENOMEM.
func (m *Machine) sysSigaltstack(ss, oss uint64) uint64 {
	sp := m.CPU.X[2]
	if oss != 0 && !m.Mem.CanWrite(oss, 24) {
		return neg(eFAULT)
	}
	old := m.sig.alt
	if ss != 0 {
		if !m.Mem.CanRead(ss, 24) {
			return neg(eFAULT)
		}
		if m.onAltStack(sp) {
			return neg(1) // EPERM
		}
		base, _ := m.Mem.Read64(ss)
		flags, _ := m.Mem.Read64(ss + 8)
		size, _ := m.Mem.Read64(ss + 16)
		switch uint32(flags) &^ (1 << 31) { // SS_AUTODISARM
		case ssDisable:
			m.sig.alt = altStack{}
		case 0:
			if size < minSigStkSize {
				return neg(eNOMEM)
			}
			m.sig.alt = altStack{sp: base, size: size}
		default:
			return neg(eINVAL)
		}
	}
	if oss != 0 {
		flags := uint64(ssDisable)
		if old.size != 0 {
			flags = 0
			if sp-old.sp < old.size {
				flags = ssOnStack
			}
		}
		m.Mem.store64(oss, old.sp)
		m.Mem.store64(oss+8, flags)
		m.Mem.store64(oss+16, old.size)
	}
	return 0
}

// trampoline returns the address of the code a handler returns to
// (`li a7, 139; ecall`, the vDSO's __vdso_rt_sigreturn on Linux and
// qemu-riscv64's sigtramp page), mapping its page read and execute at
// the first delivery; 0 if the address space has no room for it.
func (m *Machine) trampoline() uint64 {
	if m.sig.tramp != 0 {
		return m.sig.tramp
	}
	const prot, flags = 5, 0x22 // PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS
	a := m.sysMmap(0, pageSize, prot, flags, ^uint64(0), 0)
	if a >= neg(4095) {
		return 0
	}
	m.Mem.store32(a, 0x08b00893) // addi a7, zero, 139
	m.Mem.store32(a+4, 0x00000073)
	m.sig.tramp = a
	return a
}

// enterHandler saves the guest's context (resuming at m.CPU.PC) in a
// signal frame and calls the handler for sig as Linux's setup_rt_frame
// does: the frame below sp, or at the top of the alternate stack for an
// SA_ONSTACK handler not already on it, 16-aligned; a0 the signal, a1 the
// siginfo, a2 the ucontext, ra the trampoline; the handler's mask and the
// signal itself (unless SA_NODEFER) blocked while it runs; SA_RESETHAND
// resets the action first. A frame that cannot be written kills the
// guest with SIGSEGV, as Linux forces it. It sets m.sig.jumped.
func (m *Machine) enterHandler(sig int) {
	act := &m.sig.act[sig]
	handler, flags, hmask := act[0], act[1], act[2]
	x := &m.CPU.X
	if m.sig.rewind[0] != 0 && flags&saRestart != 0 {
		// A call the signal interrupted is made again when the handler
		// returns (Linux's -ERESTARTSYS).
		m.CPU.PC, x[10] = m.sig.rewind[0], m.sig.rewind[1]
	}
	m.sig.rewind = [2]uint64{}
	sp := x[2]
	if flags&saOnStack != 0 && m.sig.alt.size != 0 && !m.onAltStack(sp) {
		sp = m.sig.alt.sp + m.sig.alt.size
	}
	f := (sp - sigFrameSize) &^ 15
	tramp := m.trampoline()
	if tramp == 0 || f > sp || !m.Mem.CanWrite(f, sigFrameSize) {
		m.exited, m.exitCode, m.sig.killed = true, 128+sigSegv, sigSegv
		return
	}
	clear(m.Mem.Bytes(f, sigFrameSize)) // uc_flags and uc_link stay zero
	info := m.takeInfo(sig)
	if m.cfg.Strace != nil {
		m.traceSignal(sig, info)
	}
	m.putSiginfo(f+frameInfo, sig, info)
	m.Mem.store64(f+ucStack, m.sig.alt.sp)
	m.Mem.store64(f+ucStack+8, m.altFlags(x[2]))
	m.Mem.store64(f+ucStack+16, m.sig.alt.size)
	saved := m.sig.mask
	if m.sig.suspended { // rt_sigsuspend's mask lasts until the handler returns
		saved, m.sig.suspended = m.sig.saved, false
	}
	m.Mem.store64(f+ucSigmask, saved)
	m.Mem.store64(f+ucMcontext, m.CPU.PC)
	for i := 1; i < 32; i++ {
		m.Mem.store64(f+ucMcontext+8*uint64(i), x[i])
	}
	for i, v := range m.CPU.F {
		m.Mem.store64(f+ucFregs+8*uint64(i), v)
	}
	m.Mem.store32(f+ucFcsr, uint32(m.CPU.FCSR))
	if flags&saNoDefer == 0 {
		hmask |= 1 << (sig - 1)
	}
	m.sig.mask = (m.sig.mask | hmask) &^ unblockable
	if flags&saResetHand != 0 {
		act[0], act[1] = 0, act[1]&^4 // SIG_DFL, and SA_SIGINFO cleared
	}
	x[1], x[2], x[10], x[11], x[12] = tramp, f, uint64(sig), f+frameInfo, f+frameUC
	m.CPU.PC = handler &^ 1
	m.sig.jumped = true
	m.sig.handled++
}

// sysRtSigreturn restores the context a handler's frame saved (at sp,
// where the handler returns it), with whatever the handler changed in
// it: x1..x31, pc, the f registers and fcsr, the signal mask and the
// alternate stack. It returns the restored a0, which the call writes
// back. A frame that cannot be read kills the guest with SIGSEGV.
func (m *Machine) sysRtSigreturn() uint64 {
	x := &m.CPU.X
	f := x[2]
	if !m.Mem.CanRead(f, sigFrameSize) {
		m.exited, m.exitCode, m.sig.killed = true, 128+sigSegv, sigSegv
		return 0
	}
	mask, _ := m.Mem.Read64(f + ucSigmask)
	m.sig.mask = mask &^ unblockable
	pc, _ := m.Mem.Read64(f + ucMcontext)
	for i := 1; i < 32; i++ {
		x[i], _ = m.Mem.Read64(f + ucMcontext + 8*uint64(i))
	}
	for i := range m.CPU.F {
		m.CPU.F[i], _ = m.Mem.Read64(f + ucFregs + 8*uint64(i))
	}
	fcsr, _ := m.Mem.Read64(f + ucFcsr)
	m.CPU.FCSR = fcsr & 0xff
	// restore_altstack, which cannot change the alternate stack while
	// the frame (the sp of this call) is on it; a failure is ignored, as
	// Linux ignores it.
	if !m.onAltStack(f) {
		base, _ := m.Mem.Read64(f + ucStack)
		flags, _ := m.Mem.Read64(f + ucStack + 8)
		size, _ := m.Mem.Read64(f + ucStack + 16)
		switch {
		case uint32(flags)&ssDisable != 0:
			m.sig.alt = altStack{}
		case size >= minSigStkSize:
			m.sig.alt = altStack{sp: base, size: size}
		}
	}
	m.CPU.PC = pc &^ 1
	m.sig.jumped = true
	return x[10]
}

// sigInfo is what a signal's siginfo_t says of who sent it, or of the
// fault that raised it.
type sigInfo struct {
	code     int32
	pid, uid uint32
	fault    bool // a fault's signal: addr is si_addr
	addr     uint64
}

// CatchFault delivers the signal of guest fault f (SIGSEGV, SIGBUS,
// SIGILL or SIGTRAP, FaultKind.Signal) to the guest's handler for it, as
// Linux does for a faulting instruction: the frame saves the state the
// fault left (the pc of the faulting instruction, which has not
// retired), the siginfo has the kernel's si_code and si_addr (the bad
// address; the pc for SIGILL and SIGTRAP), and a handler that returns
// runs the instruction again. It reports false, changing nothing, when
// the signal's action is not a handler or the signal is blocked: the
// fault then ends the guest, as Linux forces the default action on a
// blocked or ignored fault signal. The dispatcher calls it where a run
// returns a *Fault.
func (m *Machine) CatchFault(f *Fault) bool {
	sig := f.Kind.Signal()
	if m.exited || m.sig.act[sig][0] <= 1 || m.sig.mask&(1<<(sig-1)) != 0 {
		return false
	}
	info := sigInfo{fault: true, addr: f.Addr, code: 1} // SEGV_MAPERR, BUS_ADRALN, ILL_ILLOPC, TRAP_BRKPT
	switch f.Kind {
	case FaultLoad, FaultStore, FaultFetch:
		if m.pageOf(f.Addr)&permMap != 0 {
			info.code = 2 // SEGV_ACCERR: mapped, without the access
		}
	case FaultBus:
		info.code = 2 // BUS_ADRERR
	case FaultIllegal, FaultBreakpoint:
		info.addr = f.PC
	}
	m.sig.info[sig] = info
	m.CPU.PC = f.PC
	m.enterHandler(sig)
	m.sig.jumped = false
	return !m.exited
}

// takeInfo returns, and forgets, what sig's siginfo says: its sender as
// noteSender recorded it, its fault as CatchFault did, or SI_KERNEL for
// a signal rvdyn posted (a timer, a forwarded signal, SIGPIPE).
func (m *Machine) takeInfo(sig int) sigInfo {
	info := m.sig.info[sig]
	m.sig.info[sig] = sigInfo{}
	if info == (sigInfo{}) {
		info.code = siKernel
	}
	return info
}

// putSiginfo writes the 128-byte siginfo_t of sig at a: signo, code, and
// si_addr for a fault, si_pid and si_uid otherwise.
func (m *Machine) putSiginfo(a uint64, sig int, info sigInfo) {
	clear(m.Mem.Bytes(a, 128))
	m.Mem.store32(a, uint32(sig))
	m.Mem.store32(a+8, uint32(info.code))
	if info.fault {
		m.Mem.store64(a+16, info.addr)
	} else {
		m.Mem.store32(a+16, info.pid)
		m.Mem.store32(a+20, info.uid)
	}
}

// noteSender records who sent sig, for its siginfo: the guest itself,
// by kill (SI_USER) or tkill/tgkill (SI_TKILL).
func (m *Machine) noteSender(sig int, thread bool) {
	code := int32(siUser)
	if thread {
		code = siTkill
	}
	m.sig.info[sig] = sigInfo{code: code, pid: uint32(os.Getpid()), uid: uint32(os.Getuid())}
}

// traceSignal writes the --strace line of a signal whose handler is
// entered, as qemu-riscv64 -strace does:
// "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=N, si_uid=0} ---".
func (m *Machine) traceSignal(sig int, info sigInfo) {
	name := signalNames[min(sig, len(signalNames)-1)]
	if sig >= len(signalNames) || name == "" {
		name = fmt.Sprintf("SIG%d", sig)
	}
	code := map[int32]string{siUser: "SI_USER", siTkill: "SI_TKILL", siKernel: "SI_KERNEL"}[info.code]
	switch {
	case info.fault:
		fmt.Fprintf(m.cfg.Strace, "--- %s {si_signo=%s, si_code=%d, si_addr=0x%x} ---\n", name, name, info.code, info.addr)
	case info.code == siKernel:
		fmt.Fprintf(m.cfg.Strace, "--- %s {si_signo=%s, si_code=%s} ---\n", name, name, code)
	default:
		fmt.Fprintf(m.cfg.Strace, "--- %s {si_signo=%s, si_code=%s, si_pid=%d, si_uid=%d} ---\n", name, name, code, info.pid, info.uid)
	}
}
