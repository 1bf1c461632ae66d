// Signals for the guest: a signal posted from any goroutine (rvdyn's timeout, a host signal forwarded to the guest), sent by the guest to itself or raised by a system call (SIGPIPE) -> the guest ended as the kernel ends a process whose action for it is the default, its handler called, or the signal dropped.

package interp

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Signal numbers the interpreter acts on itself (asm-generic).
const (
	SigKill = 9  // SIGKILL: always ends the guest (rvdyn's --timeout sends it)
	SigUsr1 = 10 // SIGUSR1
	SigUsr2 = 12 // SIGUSR2
	sigPipe = 13
)

// signalState is the half of the guest's signal state (sigState) that
// other goroutines touch: what has been posted, and the eventfd that
// wakes a system call blocked on the host so that it can look.
type signalState struct {
	pending atomic.Uint64 // posted, not yet acted on: bit sig-1
	mu      sync.Mutex    // guards wake against Close
	wake    int           // eventfd, valid while wakeOK
	wakeOK  bool
	killed  int // the signal that ended the guest, 0 if none
}

// sigAction is what the kernel does with a signal whose action is the
// default (signal(7)).
type sigAction uint8

const (
	actTerm   sigAction = iota // terminate (with or without a core dump)
	actIgnore                  // SIGCHLD, SIGURG, SIGWINCH
	actStop                    // SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, and SIGCONT
)

func defaultAction(sig int) sigAction {
	switch sig {
	case 17, 23, 28:
		return actIgnore
	case 18, 19, 20, 21, 22:
		return actStop
	}
	return actTerm
}

// initSignals opens the eventfd that wakes blocked system calls.
func (m *Machine) initSignals() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return &LoadError{Reason: "eventfd", Err: err}
	}
	s := &m.sig.signalState
	s.mu.Lock()
	s.wake, s.wakeOK = fd, true
	s.mu.Unlock()
	return nil
}

// closeSignals closes the eventfd; Signal does nothing afterwards.
func (m *Machine) closeSignals() {
	m.timer.stop()
	s := &m.sig.signalState
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wakeOK {
		unix.Close(s.wake)
		s.wakeOK = false
	}
}

// Signal posts signal sig (1..64) to the guest. It may be called from any
// goroutine, also while the guest runs, until Close. The guest acts on it
// as Linux would with the guest's own signal actions: at the return of
// its next system call, or when the caller calls DeliverSignals between
// runs. SIGKILL, and a signal whose action is the default one of
// terminating (SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, ...), end the guest as
// killed by it (Killed; ExitCode is 128+sig, as a shell reports it), and
// a system call blocked waiting on the host (for input, for room in a
// pipe, in a sleep) returns at once. A signal the guest ignores, or whose
// default action is to be ignored or to stop or continue the process
// (rvdyn does neither), is dropped. A blocked signal waits until the
// guest unblocks it. A signal with a handler runs it on a signal frame
// (SignalsHandled counts them) when the guest is between instructions:
// a blocking call does not end early for it (Linux would end it with
// EINTR), the handler runs when the call returns.
func (m *Machine) Signal(sig int) {
	if sig < 1 || sig > 64 {
		return
	}
	s := &m.sig.signalState
	s.pending.Or(1 << (sig - 1))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wakeOK {
		one := [8]byte{1}
		unix.Write(s.wake, one[:])
	}
}

// SignalPending reports whether signal sig (1..64) was posted and not
// yet acted on: blocked, or not yet reached by the guest. It may be
// called from any goroutine.
func (m *Machine) SignalPending(sig int) bool {
	return sig >= 1 && sig <= 64 && m.sig.pending.Load()&(1<<(sig-1)) != 0
}

// DeliverSignals acts on the signals posted to the guest (see Signal); it
// must be called on the guest's goroutine, between runs. It reports
// whether the guest has exited.
func (m *Machine) DeliverSignals() bool {
	if m.sig.pending.Load() != 0 {
		m.deliver(true)
	}
	return m.exited
}

// Killed returns the signal that ended the guest, or 0 if none did.
func (m *Machine) Killed() int { return m.sig.killed }

// SignalsHandled returns how many signals ran the guest's handler for
// them (signal frames set up).
func (m *Machine) SignalsHandled() uint64 { return m.sig.handled }

// deliver acts on every posted signal that is not blocked; it reports
// whether one ended the guest. With handlers, the first signal that has
// a handler enters it (enterHandler: the context saved is the one at
// m.CPU.PC) and the rest stay pending until the next delivery; without,
// signals with handlers stay pending (deliver is then called before or
// inside a system call, where the guest is not between instructions).
func (m *Machine) deliver(handlers bool) bool {
	s := &m.sig.signalState
	if m.exited {
		return true
	}
	p := s.pending.Load()
	for sig := 1; sig <= 64 && p != 0; sig++ {
		bit := uint64(1) << (sig - 1)
		if p&bit == 0 {
			continue
		}
		p &^= bit
		if sig != SigKill && m.sig.mask&bit != 0 {
			continue // blocked: it stays pending
		}
		handler := m.sig.act[sig][0]
		if sig != SigKill && handler > 1 && !handlers {
			continue // pending until the guest is between instructions
		}
		s.pending.And(^bit)
		switch {
		case sig == SigKill:
		case handler == 1: // SIG_IGN
			continue
		case handler != 0:
			m.enterHandler(sig)
			return m.exited
		case defaultAction(sig) != actTerm:
			continue
		}
		m.exited, m.exitCode, s.killed = true, 128+sig, sig
		return true
	}
	return false
}

// raise is a signal the kernel sends the guest from inside a system call
// (SIGPIPE for a write to a pipe nobody reads), acted on at once; it
// reports whether the guest was ended by it.
func (m *Machine) raise(sig int) bool {
	m.sig.pending.Or(1 << (sig - 1))
	return m.deliver(false)
}

// wakeFd returns the eventfd for a poll, or -1.
func (m *Machine) wakeFd() int32 {
	s := &m.sig.signalState
	if !s.wakeOK {
		return -1
	}
	return int32(s.wake)
}

// drainWake resets the eventfd after it woke a poll.
func (m *Machine) drainWake() {
	var b [8]byte
	unix.Read(int(m.wakeFd()), b[:])
}

// wait blocks until host fd h is ready for events (unix.POLLIN or
// unix.POLLOUT) or in error, and reports true; or until a posted signal
// ends the guest or has a handler to run, and reports false: the system
// call then returns at once, -EINTR (or what it transferred), and a
// handler with SA_RESTART makes the guest call it again
// (m.sig.restart). Signals that do neither are acted on and the wait
// goes on.
func (m *Machine) wait(h int, events int16) bool {
	ok, _ := m.waitUntil(h, events, time.Time{})
	return ok
}

// waitUntil is wait with a deadline (zero: none, as wait): when it
// passes first, it reports false and timedOut.
func (m *Machine) waitUntil(h int, events int16, deadline time.Time) (ok, timedOut bool) {
	for {
		timeout := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, true
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		if m.interrupted() {
			timeout = 0 // only what is ready now
		}
		fds := []unix.PollFd{{Fd: int32(h), Events: events}, {Fd: m.wakeFd(), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, timeout); err != nil && err != unix.EINTR {
			return true, false // let the transfer itself report the error
		}
		if fds[1].Revents != 0 {
			m.drainWake()
			if m.deliver(false) {
				return false, false
			}
		}
		if fds[0].Revents != 0 {
			return true, false
		}
		if m.interrupted() {
			m.sig.restart = true
			return false, false
		}
	}
}

// sleep waits for d, or less if a posted signal ends the guest or has a
// handler to run (interrupted); it returns the time left.
func (m *Machine) sleep(d time.Duration) time.Duration {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return 0
		}
		if m.exited || m.interrupted() {
			return left
		}
		m.napUntil(end)
	}
}

// napUntil waits until a signal is posted or deadline passes (zero: no
// deadline), acts on posted signals that need no handler (one may end
// the guest), and reports whether the deadline passed. The sleeps and
// the calls that wait for a signal loop on it, testing what they wait
// for between naps.
func (m *Machine) napUntil(deadline time.Time) (timedOut bool) {
	var ts *unix.Timespec
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return true
		}
		t := unix.NsecToTimespec(int64(left))
		ts = &t
	}
	fds := []unix.PollFd{{Fd: m.wakeFd(), Events: unix.POLLIN}}
	if n, _ := unix.Ppoll(fds, ts, nil); n > 0 {
		m.drainWake()
		m.deliver(false)
	}
	return false
}

// interrupted reports whether a posted signal that is not blocked has a
// handler: a call that waits (a sleep, ppoll, pselect6, rt_sigsuspend)
// then returns -EINTR, and the handler runs on its return.
func (m *Machine) interrupted() bool {
	p := m.sig.pending.Load() &^ m.sig.mask
	for p != 0 {
		sig := bits.TrailingZeros64(p) + 1
		if m.sig.act[sig][0] > 1 {
			return true
		}
		p &= p - 1
	}
	return false
}
