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
		dropped uint64
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
			if m.Killed() != tc.killed || m.Exited() != (tc.killed != 0) || m.SignalsDropped() != tc.dropped {
				t.Errorf("killed by %d (exited %v), %d dropped; want %d, %d", m.Killed(), m.Exited(), m.SignalsDropped(), tc.killed, tc.dropped)
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
