package interp_test

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

const (
	sysNanosleep      = 101
	sysClockNanosleep = 115
	sysRtSigaction    = 134
	sysRtSigprocmask  = 135
	sysGetpid         = 172
)

// hostPipe returns a pipe whose ends the test closes at its end.
func hostPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// teeFile is a standard input read through a tee (interp.StreamFile).
type teeFile struct {
	io.Reader
	f *os.File
}

func (t teeFile) File() *os.File { return t.f }

// putWords writes 64-bit words at the data segment and returns its address.
func putWords(m *interp.Machine, ws ...uint64) uint64 {
	b := m.Mem.Bytes(data, 8*uint64(len(ws)))
	for i, w := range ws {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return data
}

// TestSignalEndsBlockingCalls: a signal posted from another goroutine ends
// a guest blocked in a system call that waits on the host (a read of an
// empty pipe, standard input or a FIFO, a write to a full pipe, a sleep):
// the call returns, and the guest is killed by the signal.
func TestSignalEndsBlockingCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  int
		cfg  func(t *testing.T) interp.Config
		run  func(t *testing.T, m *interp.Machine)
	}{
		{"read of an empty stdin pipe", interp.SigKill, func(t *testing.T) interp.Config {
			r, _ := hostPipe(t)
			return interp.Config{Stdin: r}
		}, func(t *testing.T, m *interp.Machine) { call(t, m, interp.SysRead, 0, data, 16) }},
		{"read of an empty pipe through a tee", interp.SigKill, func(t *testing.T) interp.Config {
			r, _ := hostPipe(t)
			return interp.Config{Stdin: teeFile{io.TeeReader(r, io.Discard), r}}
		}, func(t *testing.T, m *interp.Machine) { call(t, m, interp.SysRead, 0, data, 16) }},
		{"read of an empty FIFO", interp.SigUsr1, func(t *testing.T) interp.Config {
			root := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			return interp.Config{Root: root}
		}, func(t *testing.T, m *interp.Machine) {
			call(t, m, interp.SysRead, 3, data, 16) // fd 3: the FIFO, opened before
		}},
		{"write to a full stdout pipe", interp.SigUsr2, func(t *testing.T) interp.Config {
			_, w := hostPipe(t)
			return interp.Config{Stdout: w}
		}, func(t *testing.T, m *interp.Machine) { call(t, m, interp.SysWrite, 1, data, 4<<20) }},
		{"nanosleep for an hour", interp.SigKill, nil, func(t *testing.T, m *interp.Machine) {
			call(t, m, sysNanosleep, putWords(m, 3600, 0), 0)
		}},
		{"clock_nanosleep for an hour", interp.SigKill, nil, func(t *testing.T, m *interp.Machine) {
			call(t, m, sysClockNanosleep, 1, 0, putWords(m, 3600, 0), 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg interp.Config
			if tc.cfg != nil {
				cfg = tc.cfg(t)
			}
			m := ecallMachine(t, cfg)
			if cfg.Root != "" {
				// Its own writer too: no end of file.
				if fd := call(t, m, sysOpenat, ^uint64(99), putString(m, "fifo"), oRDWR, 0); fd != 3 {
					t.Fatalf("open fifo: %d", int64(fd))
				}
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				tc.run(t, m)
			}()
			// Most likely the call is blocked by now; if not, the
			// signal ends the guest when the call starts, and the test
			// passes all the same.
			time.Sleep(20 * time.Millisecond)
			m.Signal(tc.sig)
			select {
			case <-done:
			case <-time.After(time.Minute): // only a hang gets here
				t.Fatal("the blocked call did not return after the signal")
			}
			if !m.Exited() || m.Killed() != tc.sig || m.ExitCode() != 128+tc.sig {
				t.Errorf("exited %v, killed by %d, status %d; want killed by %d, status %d", m.Exited(), m.Killed(), m.ExitCode(), tc.sig, 128+tc.sig)
			}
		})
	}
}

// TestSignalDisposition: a posted signal follows the guest's action for
// it: the default action terminates (or, for SIGCHLD, ignores), SIG_IGN
// drops it, a handler (which rvdyn cannot run) drops and counts it, a
// blocked signal waits until it is unblocked; SIGKILL always ends the
// guest. Each case posts the signal, then makes one system call.
func TestSignalDisposition(t *testing.T) {
	const sigChld = 17
	sigaction := func(sig int, handler uint64) func(t *testing.T, m *interp.Machine) {
		return func(t *testing.T, m *interp.Machine) {
			if r := call(t, m, sysRtSigaction, uint64(sig), putWords(m, handler, 0, 0), 0, 8); r != 0 {
				t.Fatalf("rt_sigaction: %d", int64(r))
			}
		}
	}
	block := func(sig int) func(t *testing.T, m *interp.Machine) {
		return func(t *testing.T, m *interp.Machine) {
			call(t, m, sysRtSigprocmask, 0, putWords(m, 1<<(sig-1)), 0, 8) // SIG_BLOCK
		}
	}
	for _, tc := range []struct {
		name    string
		sig     int
		setup   func(t *testing.T, m *interp.Machine)
		killed  int // 0: the guest runs on
		handled uint64
	}{
		{"SIGUSR1 default", interp.SigUsr1, nil, interp.SigUsr1, 0},
		{"SIGUSR2 default", interp.SigUsr2, nil, interp.SigUsr2, 0},
		{"SIGCHLD default (ignore)", sigChld, nil, 0, 0},
		{"SIGUSR1 ignored", interp.SigUsr1, sigaction(interp.SigUsr1, 1), 0, 0},
		{"SIGUSR1 with a handler", interp.SigUsr1, sigaction(interp.SigUsr1, rvtest.MakeELFText), 0, 1},
		{"SIGUSR1 blocked", interp.SigUsr1, block(interp.SigUsr1), 0, 0},
		{"SIGKILL blocked", interp.SigKill, block(interp.SigKill), interp.SigKill, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ecallMachine(t, interp.Config{})
			if tc.setup != nil {
				tc.setup(t, m)
			}
			m.Signal(tc.sig)
			call(t, m, sysGetpid)
			if m.Killed() != tc.killed || m.Exited() != (tc.killed != 0) || m.SignalsHandled() != tc.handled {
				t.Errorf("killed by %d (exited %v), %d handled; want %d, %d", m.Killed(), m.Exited(), m.SignalsHandled(), tc.killed, tc.handled)
			}
		})
	}
	// A blocked signal is acted on when the guest unblocks it.
	m := ecallMachine(t, interp.Config{})
	block(interp.SigUsr2)(t, m)
	m.Signal(interp.SigUsr2)
	if m.DeliverSignals() {
		t.Fatal("a blocked signal ended the guest")
	}
	call(t, m, sysRtSigprocmask, 1, putWords(m, 1<<(interp.SigUsr2-1)), 0, 8) // SIG_UNBLOCK
	if m.Killed() != interp.SigUsr2 {
		t.Errorf("after unblocking: killed by %d, want %d", m.Killed(), interp.SigUsr2)
	}
	// Between runs, DeliverSignals acts on what was posted.
	m = ecallMachine(t, interp.Config{})
	m.Signal(interp.SigUsr1)
	if !m.DeliverSignals() || m.Killed() != interp.SigUsr1 {
		t.Errorf("DeliverSignals: killed by %d", m.Killed())
	}
}

// TestSigpipe: a write to a pipe nobody reads raises SIGPIPE, which ends
// the guest (status 141) unless it ignores SIGPIPE, when the write is
// -EPIPE.
func TestSigpipe(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		r, w := hostPipe(t)
		r.Close()
		m := ecallMachine(t, interp.Config{Stdout: w})
		if ignore {
			call(t, m, sysRtSigaction, 13, putWords(m, 1, 0, 0), 0, 8)
		}
		got := int64(call(t, m, interp.SysWrite, 1, data, 4))
		switch {
		case ignore && (got != -32 || m.Exited()):
			t.Errorf("SIGPIPE ignored: write %d, exited %v; want -EPIPE", got, m.Exited())
		case !ignore && (m.Killed() != 13 || m.ExitCode() != 141):
			t.Errorf("SIGPIPE: killed by %d, status %d; want 13, 141", m.Killed(), m.ExitCode())
		}
	}
}

// TestSignalFrame: a signal with a handler saves the context in a frame
// laid out as Linux's rt_sigframe for RISC-V and enters the handler with
// a0 the signal, a1 the siginfo, a2 the ucontext and ra a page holding
// `li a7, 139; ecall`; rt_sigreturn puts back what the frame holds then,
// changes included, and a frame it cannot read kills the guest (139).
func TestSignalFrame(t *testing.T) {
	const sysRtSigreturn, sysKill = 139, 129
	const handler = rvtest.MakeELFText // the ecall itself, so that call keeps working
	m := ecallMachine(t, interp.Config{})
	act := putWords(m, handler, 0, 1<<(interp.SigUsr2-1)) // sa_mask: SIGUSR2
	if r := call(t, m, sysRtSigaction, interp.SigUsr1, act, 0, 8); r != 0 {
		t.Fatalf("rt_sigaction: %d", int64(r))
	}
	m.CPU.X[9], m.CPU.F[3], m.CPU.FCSR = 0x5eed, 0x400921fb54442d18, 0x41 // s1, f3, frm RUP + NX
	sp := m.CPU.X[2]
	pid := uint64(os.Getpid())
	call(t, m, sysKill, pid, interp.SigUsr1)
	x := &m.CPU.X
	f := x[2]
	if m.CPU.PC != handler || x[10] != interp.SigUsr1 || m.SignalsHandled() != 1 {
		t.Fatalf("pc %#x a0 %d handled %d: the handler was not entered", m.CPU.PC, x[10], m.SignalsHandled())
	}
	if f >= sp || f%16 != 0 || sp-f < 1088 || x[11] != f || x[12] != f+128 {
		t.Fatalf("frame at %#x (sp was %#x), a1 %#x, a2 %#x", f, sp, x[11], x[12])
	}
	word := func(a uint64) uint64 { v, _ := m.Mem.Read64(a); return v }
	if code := m.Mem.Bytes(x[1], 8); binary.LittleEndian.Uint32(code) != 0x08b00893 || binary.LittleEndian.Uint32(code[4:]) != 0x73 {
		t.Errorf("ra %#x holds %x, want li a7,139; ecall", x[1], code)
	}
	info := m.Mem.Bytes(f, 24)
	if signo, code := binary.LittleEndian.Uint32(info), int32(binary.LittleEndian.Uint32(info[8:])); signo != interp.SigUsr1 || code != 0 || uint64(binary.LittleEndian.Uint32(info[16:])) != pid {
		t.Errorf("siginfo: signo %d code %d pid %d", signo, code, binary.LittleEndian.Uint32(info[16:]))
	}
	mc := f + 128 + 176
	if word(mc) != handler+4 || word(mc+8*10) != 0 || word(mc+8*9) != 0x5eed || word(mc+8*2) != sp {
		t.Errorf("saved pc %#x a0 %d s1 %#x sp %#x; want %#x, 0 (kill's result), 0x5eed, %#x", word(mc), word(mc+80), word(mc+72), word(mc+16), handler+4, sp)
	}
	if word(mc+256+8*3) != 0x400921fb54442d18 || word(mc+512)&0xff != 0x41 {
		t.Errorf("saved f3 %#x fcsr %#x", word(mc+256+24), word(mc+512))
	}
	if word(f+128+40) != 0 {
		t.Errorf("saved mask %#x, want the one before the handler (empty)", word(f+128+40))
	}
	// While it runs, its own signal and sa_mask are blocked.
	mask := putWords(m, 0)
	call(t, m, sysRtSigprocmask, 0, 0, mask, 8)
	if want := uint64(1<<(interp.SigUsr1-1) | 1<<(interp.SigUsr2-1)); word(mask) != want {
		t.Errorf("mask in the handler %#x, want %#x", word(mask), want)
	}
	// The handler changes the saved a0 and s1, then returns.
	m.Mem.Bytes(mc+8*10, 8)[0] = 42
	binary.LittleEndian.PutUint64(m.Mem.Bytes(mc+8*9, 8), 0xbeef)
	x[9], m.CPU.FCSR = 0, 0
	x[2] = f
	r := call(t, m, sysRtSigreturn)
	if r != 42 || x[9] != 0xbeef || x[2] != sp || m.CPU.PC != handler+4 || m.CPU.F[3] != 0x400921fb54442d18 || m.CPU.FCSR != 0x41 {
		t.Errorf("after rt_sigreturn: a0 %d s1 %#x sp %#x pc %#x f3 %#x fcsr %#x", r, x[9], x[2], m.CPU.PC, m.CPU.F[3], m.CPU.FCSR)
	}
	call(t, m, sysRtSigprocmask, 0, 0, mask, 8)
	if word(mask) != 0 {
		t.Errorf("mask after rt_sigreturn %#x, want empty", word(mask))
	}
	// A frame at an address the guest cannot read.
	lo, _ := m.Mem.Guard()
	x[2] = lo
	call(t, m, sysRtSigreturn)
	if !m.Exited() || m.ExitCode() != 139 {
		t.Errorf("rt_sigreturn of an unreadable frame: exited %v with %d, want 139", m.Exited(), m.ExitCode())
	}
}

// TestItimer: setitimer and getitimer of ITIMER_REAL, their argument
// errors, and the SIGALRM it posts: it wakes rt_sigsuspend (-EINTR) to
// run the handler, and with the default action ends the guest (142).
func TestItimer(t *testing.T) {
	const sysGetitimer, sysSetitimer, sysRtSigsuspend = 102, 103, 133
	m := ecallMachine(t, interp.Config{})
	cur := putWords(m, 0, 0, 0, 0)
	val := cur + 32
	binary.LittleEndian.PutUint64(m.Mem.Bytes(val, 8), 0)
	for _, w := range [][2]uint64{{val, 0}, {val + 8, 0}, {val + 16, 100}, {val + 24, 0}} { // 100 s, once
		binary.LittleEndian.PutUint64(m.Mem.Bytes(w[0], 8), w[1])
	}
	if r := call(t, m, sysSetitimer, 1, val, 0); r != ^uint64(21) {
		t.Errorf("setitimer(ITIMER_VIRTUAL): %d, want -EINVAL", int64(r))
	}
	if r := call(t, m, sysSetitimer, 0, val, rvtest.MakeELFText); r != ^uint64(13) {
		t.Errorf("setitimer with old in the text: %d, want -EFAULT", int64(r))
	}
	if r := call(t, m, sysSetitimer, 0, val, 0); r != 0 {
		t.Fatalf("setitimer: %d", int64(r))
	}
	call(t, m, sysGetitimer, 0, cur)
	if s, _ := m.Mem.Read64(cur + 16); s < 99 || s > 100 {
		t.Errorf("getitimer: %d s left, want 99-100", s)
	}
	// Re-armed for 1 ms: the old setting comes back, and the signal
	// wakes rt_sigsuspend, whose handler runs as the call returns.
	binary.LittleEndian.PutUint64(m.Mem.Bytes(val+16, 8), 0)
	binary.LittleEndian.PutUint64(m.Mem.Bytes(val+24, 8), 1000)
	act := putWords(m, rvtest.MakeELFText, 0, 0)
	call(t, m, sysRtSigaction, 14, act, 0, 8)
	old := val + 32
	if r := call(t, m, sysSetitimer, 0, val, old); r != 0 {
		t.Fatalf("setitimer: %d", int64(r))
	}
	if s, _ := m.Mem.Read64(old + 16); s < 99 {
		t.Errorf("old value: %d s, want 99-100", s)
	}
	r := call(t, m, sysRtSigsuspend, putWords(m, 0), 8)
	saved, _ := m.Mem.Read64(m.CPU.X[12] + 176 + 8*10) // the result, in the frame's a0
	if r != 14 || m.SignalsHandled() != 1 || saved != ^uint64(3) {
		t.Errorf("rt_sigsuspend: a0 %d, %d handled, saved a0 %d; want SIGALRM's handler (14) and -EINTR saved", int64(r), m.SignalsHandled(), int64(saved))
	}
	// The default action ends the guest.
	m = ecallMachine(t, interp.Config{})
	val = putWords(m, 0, 0, 0, 1000)
	call(t, m, sysSetitimer, 0, val, 0)
	call(t, m, 101, putWords(m, 5, 0), 0) // nanosleep(5 s)
	if !m.Exited() || m.ExitCode() != 142 {
		t.Errorf("SIGALRM's default action: exited %v with %d, want 142", m.Exited(), m.ExitCode())
	}
}

// TestCatchFault: a fault's signal enters the guest's handler with the
// kernel's siginfo (si_code SEGV_MAPERR for an unmapped page, si_addr the
// address) and the faulting pc saved; with the signal blocked, or no
// handler, the fault is not caught.
func TestCatchFault(t *testing.T) {
	const sigSegv = 11
	m := ecallMachine(t, interp.Config{})
	lo, _ := m.Mem.Guard()
	f := &interp.Fault{Kind: interp.FaultStore, PC: rvtest.MakeELFText, Addr: lo + 8}
	if m.CatchFault(f) {
		t.Fatal("caught without a handler")
	}
	call(t, m, sysRtSigaction, sigSegv, putWords(m, rvtest.MakeELFText+0x40, 4, 0), 0, 8) // SA_SIGINFO
	call(t, m, sysRtSigprocmask, 0, putWords(m, 1<<(sigSegv-1)), 0, 8)
	if m.CatchFault(f) {
		t.Fatal("caught while blocked")
	}
	call(t, m, sysRtSigprocmask, 2, putWords(m, 0), 0, 8)
	if !m.CatchFault(f) || m.CPU.PC != rvtest.MakeELFText+0x40 || m.CPU.X[10] != sigSegv {
		t.Fatalf("not caught: pc %#x a0 %d", m.CPU.PC, m.CPU.X[10])
	}
	info := m.CPU.X[11]
	code, _ := m.Mem.Read64(info + 8)
	addr, _ := m.Mem.Read64(info + 16)
	pc, _ := m.Mem.Read64(m.CPU.X[12] + 176)
	if uint32(code) != 1 || addr != lo+8 || pc != rvtest.MakeELFText {
		t.Errorf("si_code %d si_addr %#x saved pc %#x; want 1 (SEGV_MAPERR), %#x, %#x", uint32(code), addr, pc, lo+8, rvtest.MakeELFText)
	}
}
