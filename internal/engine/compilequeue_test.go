// Tests of the service-thread compiler's protocol: hooks at its fixed points -> flushes and full queues while compiles are in flight -> the same answer, and every queued trace accounted for.

package engine

import (
	"bytes"
	"sync"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
)

// asyncRun is one guest run: its outcome and the VM's statistics.
type asyncRun struct {
	out   string
	code  int
	err   error
	insts uint64
	cpu   interp.CPU
	st    Stats
}

// runHooked runs guest name (small size) with opts, after prepare has
// set up the VM (its hooks).
func runHooked(t *testing.T, name string, opts Options, prepare func(*VM)) asyncRun {
	t.Helper()
	image, err := corpus.ELF(name)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opts.Args, opts.Stdout = corpus.Args(name, corpus.Small), &out
	opts.MaxInstructions = asyncLimit
	vm, err := New(image, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if prepare != nil {
		prepare(vm)
	}
	code, err := vm.Run()
	return asyncRun{out.String(), code, err, vm.m.Retired(), *vm.m.CPU, vm.Stats()}
}

// checkSame requires got to give ref's answer: output, status, retired
// instructions and final registers.
func checkSame(t *testing.T, got, ref asyncRun) {
	t.Helper()
	if got.err != ref.err || got.code != ref.code || got.out != ref.out || got.insts != ref.insts || got.cpu != ref.cpu {
		t.Errorf("exit %d (%v), %d instructions, output equal %v, registers equal %v; interp: exit %d, %d instructions",
			got.code, got.err, got.insts, got.out == ref.out, got.cpu == ref.cpu, ref.code, ref.insts)
	}
}

// checkAccounted requires every queued trace to be counted exactly once.
func checkAccounted(t *testing.T, c CompilerStats) {
	t.Helper()
	if c.Queued != c.Installed+c.Stale+c.Duplicate+c.Unfinished {
		t.Errorf("queued %d != installed %d + stale %d + duplicate %d + unfinished %d", c.Queued, c.Installed, c.Stale, c.Duplicate, c.Unfinished)
	}
}

// asyncGuests are the guests of the protocol tests, which stop each run
// after asyncLimit instructions (an interp.ErrLimit in every mode): a
// flush after every queued trace leaves the guest interpreted.
var (
	asyncGuests = []string{"scheme", "qsort", "phases", "strings"}
	asyncLimit  = uint64(20_000_000)
)

// TestAsyncFlushDiscards flushes the code cache right after every trace
// is queued, so that every compile in flight is overtaken by a flush:
// none may be installed, all must be counted stale, and the answer is
// unchanged.
func TestAsyncFlushDiscards(t *testing.T) {
	for _, name := range asyncGuests {
		t.Run(name, func(t *testing.T) {
			ref := runHooked(t, name, Options{Mode: ModeInterp}, nil)
			got := runHooked(t, name, Options{NET: net.Options{Delay: 10}, Compiler: CompilerOptions{Mode: CompileAsync}}, func(vm *VM) {
				vm.async.hooks.queued = vm.flush
			})
			checkSame(t, got, ref)
			c := got.st.Compiler
			checkAccounted(t, c)
			if c.Queued == 0 || c.Installed != 0 || c.Stale != c.Queued || got.st.Fragments != c.QueueFull-got.st.TooLarge {
				t.Errorf("queued %d, installed %d, stale %d, queue full %d, fragments %d: want every queued trace stale, only queue-full ones inserted",
					c.Queued, c.Installed, c.Stale, c.QueueFull, got.st.Fragments)
			}
		})
	}
}

// TestAsyncQueueFull holds the service thread on its first job until the
// queue (one trace) has been found full, so that the main thread compiles
// beside it; the queue-full compile is counted and the answer unchanged.
func TestAsyncQueueFull(t *testing.T) {
	for _, name := range asyncGuests {
		t.Run(name, func(t *testing.T) {
			ref := runHooked(t, name, Options{Mode: ModeInterp}, nil)
			release := make(chan struct{})
			var once sync.Once
			got := runHooked(t, name, Options{NET: net.Options{Delay: 10}, Compiler: CompilerOptions{Mode: CompileAsync, Queue: 1}}, func(vm *VM) {
				vm.async.hooks.service = func() { <-release }
				vm.async.hooks.full = func() { once.Do(func() { close(release) }) }
			})
			checkSame(t, got, ref)
			c := got.st.Compiler
			checkAccounted(t, c)
			if c.QueueFull == 0 || c.Queued == 0 {
				t.Errorf("queued %d, queue full %d: want both", c.Queued, c.QueueFull)
			}
		})
	}
}

// TestAsyncTinyCache runs with a code cache so small that installing a
// finished fragment flushes it, overtaking the other compiles in flight.
func TestAsyncTinyCache(t *testing.T) {
	for _, name := range asyncGuests {
		t.Run(name, func(t *testing.T) {
			ref := runHooked(t, name, Options{Mode: ModeInterp}, nil)
			opts := Options{NET: net.Options{Delay: 10}, Compiler: CompilerOptions{Mode: CompileAsync, Queue: 4}}
			opts.Cache.Size = 16 << 10
			got := runHooked(t, name, opts, nil)
			checkSame(t, got, ref)
			checkAccounted(t, got.st.Compiler)
			if c := got.st.Compiler; c.Queued == 0 {
				t.Errorf("no trace queued: %+v", c)
			}
		})
	}
}

// TestSyncHasNoServiceThread: the default compiles on the main thread.
func TestSyncHasNoServiceThread(t *testing.T) {
	got := runHooked(t, "qsort", Options{}, nil)
	if c := got.st.Compiler; c.Mode != CompileSync || c.Queued != 0 || c.QueueFull != 0 || got.st.Fragments == 0 {
		t.Errorf("sync run: %+v, %d fragments", c, got.st.Fragments)
	}
}

func TestParseCompileMode(t *testing.T) {
	for _, m := range []CompileMode{CompileSync, CompileAsync} {
		if got, err := ParseCompileMode(m.String()); err != nil || got != m {
			t.Errorf("ParseCompileMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseCompileMode("later"); err == nil {
		t.Error("ParseCompileMode(\"later\"): no error")
	}
}
