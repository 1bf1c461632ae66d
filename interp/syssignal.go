// Signal system calls: rt_sigaction, rt_sigprocmask, rt_sigpending, rt_sigsuspend, rt_sigtimedwait -> the guest's signal actions, mask and pending set (signal.go acts on them).

package interp

import (
	"math/bits"
	"time"
)

// sigState is what rt_sigaction, rt_sigprocmask and sigaltstack record,
// and the signals posted to the guest (signal.go): a posted signal whose
// action is the default one ends the guest as the kernel would, one with
// a handler runs it on a signal frame (sigframe.go). A guest fault ends
// the run as an unhandled signal would, handler or not.
type sigState struct {
	act    [65][3]uint64 // handler, flags, mask (the RISC-V struct sigaction)
	mask   uint64
	info   [65]sigInfo // who sent each pending signal the guest sent itself
	alt    altStack
	tramp  uint64 // the page handlers return through, once mapped
	jumped bool   // the last system call moved the pc (a handler entered, a frame returned from)
	// restart: a wait ended for a signal with a handler (Machine.wait);
	// rewind is then the ecall's pc and first argument, for a handler
	// with SA_RESTART (pc 0: none).
	restart bool
	rewind  [2]uint64
	// suspended: rt_sigsuspend replaced the mask, and saved is the one
	// to restore (by the next handler's frame, or at the call's return).
	suspended bool
	saved     uint64
	handled   uint64 // handler frames set up
	signalState
}

// sysRtSigaction records a handler (never invoked: see sigState).
func (m *Machine) sysRtSigaction(sig, act, oact, size uint64) uint64 {
	if size != 8 || sig < 1 || sig > 64 {
		return neg(eINVAL)
	}
	if act != 0 && (sig == 9 || sig == 19) { // SIGKILL, SIGSTOP
		return neg(eINVAL)
	}
	if act != 0 && !m.Mem.CanRead(act, 24) {
		return neg(eFAULT)
	}
	if oact != 0 && !m.Mem.CanWrite(oact, 24) {
		return neg(eFAULT)
	}
	old := m.sig.act[sig]
	if act != 0 {
		for i := range 3 {
			m.sig.act[sig][i], _ = m.Mem.Read64(act + 8*uint64(i))
		}
	}
	if oact != 0 {
		for i, v := range old {
			m.Mem.store64(oact+8*uint64(i), v)
		}
	}
	return 0
}

// sysRtSigprocmask keeps the signal mask (SIGKILL and SIGSTOP can never
// be blocked).
func (m *Machine) sysRtSigprocmask(how, set, oset, size uint64) uint64 {
	if size != 8 {
		return neg(eINVAL)
	}
	if set != 0 && how > 2 {
		return neg(eINVAL)
	}
	if set != 0 && !m.Mem.CanRead(set, 8) {
		return neg(eFAULT)
	}
	if oset != 0 && !m.Mem.CanWrite(oset, 8) {
		return neg(eFAULT)
	}
	old := m.sig.mask
	if set != 0 {
		s, _ := m.Mem.Read64(set)
		switch how {
		case 0: // SIG_BLOCK
			m.sig.mask |= s
		case 1: // SIG_UNBLOCK
			m.sig.mask &^= s
		case 2: // SIG_SETMASK
			m.sig.mask = s
		}
		m.sig.mask &^= unblockable
	}
	if oset != 0 {
		m.Mem.store64(oset, old)
	}
	return 0
}

// sysRtSigpending writes the set of signals posted and not yet acted on
// (those blocked, since the others are acted on at once).
func (m *Machine) sysRtSigpending(set, size uint64) uint64 {
	if size != 8 {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(set, 8) {
		return neg(eFAULT)
	}
	m.Mem.store64(set, m.sig.pending.Load()&m.sig.mask)
	return 0
}

// sysRtSigsuspend replaces the signal mask with the one at set and waits
// for a signal that ends the guest or runs a handler; it returns -EINTR,
// and the handler's frame saves the mask from before the call, which
// rt_sigreturn puts back (Linux's saved_sigmask).
func (m *Machine) sysRtSigsuspend(set, size uint64) uint64 {
	if size != 8 {
		return neg(eINVAL)
	}
	if !m.Mem.CanRead(set, 8) {
		return neg(eFAULT)
	}
	s, _ := m.Mem.Read64(set)
	m.sig.suspended, m.sig.saved = true, m.sig.mask
	m.sig.mask = s &^ unblockable
	for !m.exited && !m.interrupted() {
		m.napUntil(time.Time{})
	}
	return neg(eINTR)
}

// sysRtSigtimedwait takes a signal of the set at set (blocked ones, as
// sigwait uses it) off the pending ones, writes its siginfo to info (if
// not NULL) and returns its number; it waits for one as long as the
// timeout at ts says (NULL: for ever), then -EAGAIN. A signal outside
// the set that has a handler ends the wait with -EINTR (the handler runs
// as the call returns); one that ends the guest ends it.
func (m *Machine) sysRtSigtimedwait(set, info, ts, size uint64) uint64 {
	if size != 8 {
		return neg(eINVAL)
	}
	if !m.Mem.CanRead(set, 8) || info != 0 && !m.Mem.CanWrite(info, 128) {
		return neg(eFAULT)
	}
	want, _ := m.Mem.Read64(set)
	want &^= unblockable
	var deadline time.Time
	if ts != 0 {
		d, e := m.readTimespec(ts)
		if e != 0 {
			return e
		}
		deadline = time.Now().Add(d)
	}
	for {
		if p := m.sig.pending.Load() & want; p != 0 {
			sig := bits.TrailingZeros64(p) + 1
			m.sig.pending.And(^(uint64(1) << (sig - 1)))
			si := m.takeInfo(sig)
			if info != 0 {
				m.putSiginfo(info, sig, si)
			}
			return uint64(sig)
		}
		if m.exited || m.interrupted() {
			return neg(eINTR)
		}
		if m.napUntil(deadline) {
			return neg(eAGAIN)
		}
	}
}
