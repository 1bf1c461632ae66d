package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"

	"golang.org/x/sys/unix"
)

// writeELFData writes a program with data at rvtest.MakeELFData.
func writeELFData(t *testing.T, words []uint32, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog.elf")
	if err := os.WriteFile(p, rvtest.MakeELF(words, data, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Guests that never end by themselves, each doing something else.
var (
	// sleeper: nanosleep({3600, 0}, NULL), then exit 0.
	sleeper = []uint32{
		enc(I{Op: interp.OpLUI, Rd: 10, Imm: 0x20000}), // a0 = data: the timespec
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: 101}),    // nanosleep
		enc(I{Op: interp.OpECALL}),
		enc(I{Op: interp.OpADDI, Rd: 10}),
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysExit}),
		enc(I{Op: interp.OpECALL}),
	}
	// reader: loop: read(0, data, 16).
	reader = []uint32{
		enc(I{Op: interp.OpADDI, Rd: 10}),              // loop: a0 = 0
		enc(I{Op: interp.OpLUI, Rd: 11, Imm: 0x20000}), //       a1 = data
		enc(I{Op: interp.OpADDI, Rd: 12, Imm: 16}),     //       a2 = 16
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysRead}),
		enc(I{Op: interp.OpECALL}),
		enc(I{Op: interp.OpJAL, Imm: -20}), //       j loop
	}
	// syscaller: loop: getpid().
	syscaller = []uint32{
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: 172}), // a7 = getpid
		enc(I{Op: interp.OpECALL}),                  // loop: ecall
		enc(I{Op: interp.OpJAL, Imm: -4}),           //       j loop
	}
	// counter: loop: t0++ (compiled into a fragment in dynamo mode).
	counter = []uint32{
		enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: 1}), // loop: t0++
		enc(I{Op: interp.OpJAL, Imm: -4}),                //       j loop
	}
)

// TestTimeoutIsWallClock: --timeout=1s ends a guest that sleeps, one
// blocked reading an empty pipe, a loop of system calls and a loop of
// computation (native code in dynamo mode) with status 124 within 1.2 s
// of wall time, in both modes (the bound issue 23 asks for; the run
// itself overshoots the deadline by milliseconds), statistics and trace
// metrics included.
func TestTimeoutIsWallClock(t *testing.T) {
	if testing.Short() {
		t.Skip("eight runs of a second each")
	}
	ts := make([]byte, 16)
	binary.LittleEndian.PutUint64(ts, 3600)
	guests := []struct {
		name string
		prog string
	}{
		{"sleep", writeELFData(t, sleeper, ts)},
		{"read of an empty pipe", writeELF(t, reader)},
		{"system call loop", writeELF(t, syscaller)},
		{"compiled loop", writeELF(t, counter)},
	}
	for _, mode := range []string{"interp", "dynamo"} {
		for _, g := range guests {
			t.Run(mode+"/"+g.name, func(t *testing.T) {
				stdin, w, err := os.Pipe() // nothing is ever written
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				defer w.Close()
				var out, errb strings.Builder
				start := time.Now()
				// --trace-metrics: a timed-out run is not scored, as
				// the scoring replays it.
				code := realMain([]string{"run", "--mode=" + mode, "--timeout=1s", "--stats", "--trace-metrics", g.prog}, stdin, &out, &errb)
				wall := time.Since(start)
				t.Logf("%s: exit %d after %v", t.Name(), code, wall)
				if code != 124 || !strings.Contains(errb.String(), "time limit reached (--timeout 1s)") {
					t.Errorf("exit %d, stderr %q; want 124 and the time limit", code, errb.String())
				}
				if wall < time.Second || wall > 1200*time.Millisecond {
					t.Errorf("ended after %v, want within 1.2 s (and not before the deadline)", wall)
				}
			})
		}
	}
}

// TestTimeoutBackstop: a guest blocked in a host call that no signal can
// cut short (open(2) of a FIFO that has no writer) still ends rvdyn with
// status 124, backstopGrace after the deadline.
func TestTimeoutBackstop(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// openat(AT_FDCWD, "fifo", O_RDONLY), then exit 0.
	prog := writeELFData(t, []uint32{
		enc(I{Op: interp.OpADDI, Rd: 10, Imm: -100}),   // a0 = AT_FDCWD
		enc(I{Op: interp.OpLUI, Rd: 11, Imm: 0x20000}), // a1 = "fifo"
		enc(I{Op: interp.OpADDI, Rd: 12}),              // a2 = O_RDONLY
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: 56}),
		enc(I{Op: interp.OpECALL}),
		enc(I{Op: interp.OpADDI, Rd: 10}),
		enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysExit}),
		enc(I{Op: interp.OpECALL}),
	}, []byte("fifo\x00"))
	exited := make(chan int, 1)
	exitProcess = func(code int) { exited <- code }
	defer func() { exitProcess = os.Exit }()
	var errb syncBuilder
	done := make(chan int, 1)
	go func() {
		done <- realMain([]string{"run", "--mode=interp", "--timeout=100ms", "--root=" + root, prog}, strings.NewReader(""), io.Discard, &errb)
	}()
	select {
	case code := <-exited:
		if code != 124 || !strings.Contains(errb.String(), "did not stop; exiting") {
			t.Errorf("backstop: exit %d, stderr %q", code, errb.String())
		}
	case code := <-done:
		t.Fatalf("the run returned %d before the backstop: %s", code, errb.String())
	case <-time.After(time.Minute): // only a hang gets here
		t.Fatal("no backstop")
	}
	// Release the guest: the open returns, and the SIGKILL of the
	// timeout ends it.
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code := <-done; code != 124 {
		t.Errorf("after the backstop, the run ended with %d", code)
	}
}

// TestSignalsForwarded: SIGUSR1, SIGUSR2, SIGINT or SIGTERM sent to rvdyn
// ends a guest whose action for it is the default one, as killed by it
// (status 128+signal, and one line saying so), in both modes, even while
// it is blocked in a read.
func TestSignalsForwarded(t *testing.T) {
	// SIGINT and SIGTERM sent while rvdyn does not forward them would end
	// the test: caught here instead. A second one the guest has not acted
	// on yet would end rvdyn at once: recorded instead.
	stray := make(chan os.Signal, 16)
	signal.Notify(stray, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(stray)
	exitProcess = func(int) {}
	defer func() { exitProcess = os.Exit }()
	for _, mode := range []string{"interp", "dynamo"} {
		for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM} {
			for _, g := range []struct {
				name string
				prog []uint32
			}{{"read", reader}, {"loop", counter}} {
				t.Run(fmt.Sprintf("%s/%s/%s", mode, unix.SignalName(sig), g.name), func(t *testing.T) {
					stdin, w, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer stdin.Close()
					defer w.Close()
					var errb syncBuilder
					done := make(chan int, 1)
					go func() {
						done <- realMain([]string{"run", "--mode=" + mode, writeELF(t, g.prog)}, stdin, io.Discard, &errb)
					}()
					// Signals sent before rvdyn forwards them are
					// ignored: send until the guest is gone.
					tick := time.NewTicker(10 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case code := <-done:
							// (An insistent signal sent again before the
							// guest acted says so first, in a line.)
							want := fmt.Sprintf("rvdyn: the guest was killed by %s\n", unix.SignalName(sig))
							if code != 128+int(sig) || !strings.HasSuffix(errb.String(), want) {
								t.Errorf("exit %d, stderr %q; want %d, %q", code, errb.String(), 128+int(sig), want)
							}
							return
						case <-tick.C:
							syscall.Kill(os.Getpid(), sig)
						case <-time.After(time.Minute): // only a hang gets here
							t.Fatal("the guest was not ended")
						}
					}
				})
			}
		}
	}
}

// syncBuilder is a strings.Builder safe for a writer and a reader on two
// goroutines.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestInsistentSignal: a second SIGINT that finds the first still
// pending (the guest has not acted on it) ends rvdyn at once with 130,
// saying so; a first one, or a SIGUSR1 twice, does not.
func TestInsistentSignal(t *testing.T) {
	img, err := os.ReadFile(writeELF(t, counter))
	if err != nil {
		t.Fatal(err)
	}
	vm, err := rvdyn.New(img, rvdyn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	exited := make(chan int, 4)
	exitProcess = func(code int) { exited <- code }
	defer func() { exitProcess = os.Exit }()
	var errb syncBuilder
	stop := forwardSignals(vm, &errb) // the guest never runs: what is posted stays pending
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR1, syscall.SIGINT} {
		syscall.Kill(os.Getpid(), sig)
		for !vm.SignalPending(int(sig)) {
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case code := <-exited:
		t.Fatalf("exited with %d before a second SIGINT", code)
	case <-time.After(50 * time.Millisecond):
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if want := "rvdyn: SIGINT again before the guest acted on the first; exiting\n"; code != 130 || errb.String() != want {
			t.Errorf("exit %d, stderr %q; want 130, %q", code, errb.String(), want)
		}
	case <-time.After(time.Minute): // only a hang gets here
		t.Error("a second SIGINT did not end rvdyn")
	}
	stop()
}
