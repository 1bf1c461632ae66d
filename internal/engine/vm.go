// Package engine is rvdyn's engine room: the VM that holds one loaded
// guest program and the optimizer state around it, the dispatcher that
// runs it (interpreter, trace selection, code cache), the compile service
// thread, and what else attaches to a run (samplers, perf map, debugger,
// the host collector, value specialization). The selection schemes, the
// trace-metrics log and the value profile are package
// rvdyn/internal/selection. Only the root package rvdyn imports it: rvdyn is the
// public API, and re-exports the types here (Options, Stats, VM) under
// their public names.
//
// A guest program starts out interpreted. The dispatcher counts executions
// of trace-head candidates (targets of taken backward branches and of code
// cache exits); when a count exceeds the prediction delay, the next
// executing tail is recorded (NET, package net), compiled into a native
// fragment (package fragment) and placed in the code cache (package
// codecache), from where the program runs from then on. The answer is the
// same in every mode: output, exit status and retired instruction count
// match plain interpretation.
package engine

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/gcassist"
	"rvdyn/internal/selection"
	"rvdyn/interp"
	"rvdyn/layout"
	"rvdyn/net"
	"rvdyn/profhw/rpa"
)

// A Mode selects how guest code runs. The zero value is ModeDynamo.
type Mode uint8

const (
	// ModeDynamo interprets, predicts hot paths with NET and runs them as
	// native fragments from the code cache.
	ModeDynamo Mode = iota
	// ModeInterp only interprets.
	ModeInterp
)

// String returns the mode's command-line name.
func (m Mode) String() string {
	switch m {
	case ModeDynamo:
		return "dynamo"
	case ModeInterp:
		return "interp"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// MarshalText makes a Mode appear by name in JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a Mode by name (see ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// ParseMode parses "dynamo" or "interp".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "dynamo":
		return ModeDynamo, nil
	case "interp":
		return ModeInterp, nil
	}
	return 0, fmt.Errorf("unknown mode %q (want dynamo or interp)", s)
}

// Options configure a run. They compose the options of each mechanism,
// and the zero value of every field, theirs included, means its default:
// Options{} runs dynamo mode with every default below.
//
//	field                  default                          documented at
//	Mode                   ModeDynamo                       Mode
//	NET.Delay              50 (net.NoDelay for 0)           net.Options
//	NET.MaxTraceLen        512 guest instructions           net.Options
//	Select.*               NET, no metrics                  SelectOptions
//	Cache.Size             32 MiB                           codecache.Options
//	Cache.NoLink, NoIBL    false: exits linked, IBL on      codecache.Options
//	Policy.*               flush on phase change, bail out  codecache.PolicyOptions
//	Optimize.No*           false: every pass on             fragment.Options
//	Compiler.Mode, Queue   sync: compile on the main thread CompilerOptions
//	MemSize                1 GiB                            interp.Config
//	StackSize              8 MiB                            interp.Config
//	Args, Env, Std*        {"prog"}, none, discarded        interp.Config
//	MaxInstructions        0: no limit
//	Timeout                0: no limit
//	Listing                nil: none
//	GC.Mode                guest: the guest collects its own heap  gcassist.Options
//	Collector              nil: made from GC
//	Profiler               nil: no relational profiling     rpa.Session
//	Sample                 Period 0: no PC sampling         layout.SampleOptions
//	Specialize             Profile "": no specialization    selection.ValueOptions
type Options struct {
	// Mode selects interpretation alone or the optimizer.
	Mode Mode
	// NET configures trace selection: the prediction delay tau and the
	// trace length limit.
	NET net.Options
	// Select chooses the trace selection scheme (NET, path profiling, the
	// stratified-sampling compressor or a relational-profiler service
	// thread) and whether the run scores the traces it compiled.
	Select selection.Options
	// Cache configures the code cache: its size, and linking and the
	// indirect branch lookup, which can be switched off for experiments
	// (fragments are then compiled with fragment.Options.NoIBL).
	Cache codecache.Options
	// Policy tunes the phase-change flush and the bail-out.
	Policy codecache.PolicyOptions
	// Optimize switches the fragment compiler's optimizations off, one
	// at a time, for ablation experiments (Disable sets it by name);
	// Compiler, below, is where fragments are compiled.
	Optimize fragment.Options
	// Compiler selects where fragments are compiled: on the main thread
	// as soon as a trace is recorded (the default, deterministic), or on
	// a service thread while the guest runs on (compilequeue.go).
	Compiler CompilerOptions
	// Config is the guest process: argv, environment, standard files,
	// address space and stack size.
	interp.Config

	// MaxInstructions stops the guest with interp.ErrLimit after this many
	// retired instructions (0: no limit).
	MaxInstructions uint64
	// Timeout stops the guest with ErrTimeout once it has run this long
	// in wall-clock time (0: no limit), whatever it is doing: native code
	// and the interpreter stop at their next return to the dispatcher
	// (within one quantum of instructions, milliseconds), and a system call
	// waiting on the host (a read of an empty pipe, a sleep) returns at
	// once: at the deadline the guest is sent SIGKILL (see
	// interp.Machine.Signal).
	Timeout time.Duration
	// Listing, if set, receives every fragment compiled: its trace and
	// its machine code (fragment.WriteListing).
	Listing io.Writer
	// PerfMap, if set, receives a line per run of fragment code in the
	// perf map format (see perfMap.placed): the content of
	// /tmp/perf-PID.map, through which perf report names guest
	// functions in code cache samples.
	PerfMap io.Writer
	// GC selects who collects a guest heap announced through the heap
	// contract's host call (docs/heap-contract.md): the guest itself (the
	// default), or rvdyn's collector, stop-the-world or concurrent with
	// one of its store barriers (package gcassist, docs/gc.md).
	GC gcassist.Options
	// Collector, if set, is the collector to use instead of one made from
	// GC: a caller that runs more queries beside the store barrier makes
	// the collector (gcassist.New), starts Profile with its
	// StartSession, and sets both. The VM closes the collector, the
	// caller the session.
	Collector *gcassist.Collector
	// Profiler, if set, is a running relational profiler session
	// (rpa.Start): New attaches its query engine to the guest, so every
	// retired instruction whose class and profile tag its PCT selects is
	// sampled and queried, in both modes, with the same records (RPA sec.
	// 3.4.2). In dynamo mode, fragments carry the sampling decision for
	// each selected instruction of an "every N" entry (N > 1): a
	// countdown in fragment.State shared with the engine, decremented
	// inline; the sampled execution leaves through an exit.Sample exit and
	// is run by the interpreter under the engine, which builds its record,
	// runs the query and sends. Unless ProfilerNoNative is set, a
	// conditional branch or store whose record and query native code can
	// run (rpa.Engine.Native) runs them in the fragment instead, sending
	// straight into the queues, and leaves through exit.Sample only when a
	// queue is full or no gap is drawn ahead. Other instructions of
	// "always" entries, which would leave native code every time, stay out
	// of fragments (traces end before them) and are interpreted. Fragments
	// without a selected
	// instruction are compiled exactly as without a profiler. The caller
	// owns the session: it closes it (draining the service threads) after
	// Run, and reads its tables and Report; Stats carries the report too.
	// A session serves one VM.
	Profiler *rpa.Session
	// Sample takes a PC sample every Sample.Period retired instructions
	// at a seeded random offset (the frequency-based sampler of the
	// statistical-profiles paper); VM.Samples returns the sample set. It
	// gives the same set in both modes.
	Sample layout.SampleOptions
	// ProfilerInterpreted keeps every instruction Profile selects out of
	// fragments, "every N" ones too (the sampling decision is then made by
	// the interpreter): the comparison point for the cost of the emitted
	// sampling decision.
	ProfilerInterpreted bool
	// ProfilerNoNative makes every sampled execution in a fragment leave
	// through exit.Sample for the engine in Go, as before native queries
	// (RPA sec. 3.4.2): the comparison point for their cost.
	ProfilerNoNative bool
	// ProfilerCountdownInMemory keeps every sampling countdown in
	// fragment.State, decremented there by each decision, instead of
	// keeping the sampled entry's in a host register across fragments
	// (fragment.Options.CountdownHome): the comparison point for the
	// register.
	ProfilerCountdownInMemory bool
	// Specialize, in dynamo mode, specializes fragments on the values a
	// value profile shows loads (nearly) always returning, behind guards
	// (see selection.ValueOptions). It needs the interpreter's hook, so it
	// cannot be combined with Profile.
	Specialize selection.ValueOptions
}

// DefaultOptions returns the default options, the zero Options: dynamo
// mode with the default prediction delay.
func DefaultOptions() Options { return Options{} }

// A VM is one loaded guest program and the optimizer state around it.
type VM struct {
	opts   Options
	m      *interp.Machine
	st     *fragment.State
	cache  *codecache.Cache
	sel    *net.Selector
	scheme selection.Scheme // decides which candidates are hot (select.go)
	env    fragment.Env
	sample fragment.Sampler        // the profiler's emitted sampling decisions, or nil
	vals   *selection.ValueProfile // Options.Specialize's value profile, or nil
	// entryFails counts, per head, the failed entry tests of its
	// fragment (exit.Record.EntryTest); plainHeads are the heads
	// compiled without what they test (entryTestFailed).
	entryFails map[uint64]int
	plainHeads map[uint64]bool
	// rpaNative is the query engine whose queries run natively, which
	// draws sampling gaps ahead after each native run; nil if none.
	rpaNative   *rpa.Engine
	ctr         counters
	ran         bool
	bailed      bool // optimization given up: interpreting to the end
	profileNext bool // path profiling: the pc is a head whose path is profiled next
	// codePages holds the guest text pages the fragments in the cache
	// (and the traces queued for compilation) were built from, and
	// frags each fragment's pages and trace: code changed on one of the
	// pages removes the fragments built from it (dropStale), and a cut
	// compiles the traces again (retranslate).
	codePages map[uint64]bool
	frags     map[*codecache.Fragment]fragInfo
	envEpoch  uint64                 // the interp.Machine.EnvEpoch vm.env was made for
	syms      func() *interp.Symbols // the guest's function names, read once on first use
	live      []*codecache.Fragment  // fragments in the cache, for their tallies
	// The heads the last phase flush removed that have not been
	// compiled again, and how many it removed (phaseFlush, Regret).
	phaseGone    map[uint64]bool
	phaseRemoved int
	fragTotal    map[uint64]*FragmentStat // tallies of flushed fragments, by head

	samp sampler // Options.Sample
	// attached are the things attached to the run (attach.go): the
	// trace-metrics log, the perf map, the host collector, the
	// relational profiler session, the value profile, a time-based
	// sampler's epoch.
	attached []attachment

	interrupt atomic.Bool // a debugger asks the run to stop (see expired)
	timedOut  atomic.Bool // Options.Timeout has passed (see armTimeout)
	timer     *time.Timer // the timeout's, nil if none
	gc        *gcRun      // the host collector, nil if the guest collects (gc.go)

	async   asyncCompiler // the service-thread compiler's dispatcher side (compilequeue.go)
	started time.Time     // when Run started (for Stats.LastInsert)
}

// ErrTimeout is returned by Run when Options.Timeout expires before the
// guest exits.
var ErrTimeout = errors.New("time limit reached")

// expired is the dispatcher's look, between slices, at what other
// goroutines ask of the run: it reports whether the timeout has passed or
// a debugger asked the run to stop (Debugger.Interrupt), and acts on the
// signals posted to the guest (Signal), which may end it.
func (vm *VM) expired() bool {
	if vm.interrupt.Load() || vm.timedOut.Load() {
		return true
	}
	vm.m.DeliverSignals()
	return false
}

// armTimeout starts the wall clock of Options.Timeout: when it runs out,
// the run is marked timed out (expired then ends it between slices) and
// the guest is sent SIGKILL, which ends a system call waiting on the
// host, or the guest at its next system call.
func (vm *VM) armTimeout() {
	if vm.opts.Timeout <= 0 {
		return
	}
	m := vm.m
	vm.timer = time.AfterFunc(vm.opts.Timeout, func() {
		vm.timedOut.Store(true)
		m.Signal(interp.SigKill)
	})
}

// timeoutErr is the error of a run that ended with err: ErrTimeout if the
// timeout ended it, whether the dispatcher saw it between slices or the
// guest was killed by the timeout's SIGKILL in a system call.
func (vm *VM) timeoutErr(err error) error {
	if err == nil && vm.timedOut.Load() && vm.m.Killed() == interp.SigKill {
		return ErrTimeout
	}
	return err
}

// Signal posts signal sig to the guest, from any goroutine, until Close:
// the guest acts on it as Linux would with the guest's own signal actions
// (interp.Machine.Signal): at its next system call, at once in a system
// call waiting on the host, or at the dispatcher's next look between
// slices. With the default action of terminating (SIGUSR1, SIGTERM, ...)
// the guest ends as killed by it, and Run returns 128+sig with a nil
// error; an ignored or blocked signal does not end it, and one with a
// handler runs the handler.
func (vm *VM) Signal(sig int) { vm.m.Signal(sig) }

// SignalPending reports whether signal sig was posted to the guest and
// not yet acted on (interp.Machine.SignalPending); safe from any
// goroutine.
func (vm *VM) SignalPending(sig int) bool { return vm.m.SignalPending(sig) }

// interpret runs the guest in the interpreter alone until it exits or a
// limit is reached.
func (vm *VM) interpret() error {
	m := vm.m
	for !m.Exited() {
		vm.takeSample()
		n := min(uint64(quantum), vm.untilSample())
		if lim := vm.opts.MaxInstructions; lim > 0 {
			if m.Retired() >= lim {
				return interp.ErrLimit
			}
			n = min(n, lim-m.Retired())
		}
		if _, err := m.RunUntil(n, 0); err != nil && !vm.caught(err) {
			return err
		}
		if vm.expired() && !m.Exited() {
			return ErrTimeout
		}
	}
	return nil
}

// New loads an ELF image (a static RV64IM executable) and prepares it to
// run. A bad image gives a *interp.LoadError.
func New(image []byte, opts Options) (*VM, error) {
	if opts.Select.Kind(opts.NET) == selection.Path {
		opts.NET.Predict = net.PredictPath // --select=path and --predict=path are one scheme
	}
	var tm *selection.Metrics
	if opts.Select.Metrics && opts.Mode == ModeDynamo {
		tm = selection.NewMetrics(image, &opts.Config, opts.Select.Hot) // buffers standard input for the profiling run
	}
	m, err := interp.Load(image, opts.Config)
	if err != nil {
		return nil, err
	}
	vm := &VM{opts: opts, m: m, codePages: make(map[uint64]bool), frags: make(map[*codecache.Fragment]fragInfo)}
	// The symbol table is wanted only for names (listings, perf maps,
	// statistics): read at the first use, not at start-up, where it
	// took a millisecond of a glibc program's (docs/performance.md).
	vm.syms = sync.OnceValue(func() *interp.Symbols { return interp.LoadSymbols(image) })
	if tm != nil {
		vm.attach(metricsRun{t: tm})
	}
	if opts.PerfMap != nil {
		vm.attach(&perfMap{w: opts.PerfMap, syms: vm.syms()})
	}
	if cd := layout.NewCountdown(opts.Sample); cd != nil {
		vm.samp = sampler{cd: cd, set: make(layout.SampleSet)}
	}
	if opts.Mode == ModeDynamo {
		if !codecache.Supported {
			m.Close()
			return nil, fmt.Errorf("dynamo mode needs an amd64 host; use interp mode")
		}
		c, err := codecache.New(opts.Cache)
		if err != nil {
			m.Close()
			return nil, err
		}
		vm.cache = c
		// Without linking there is no indirect linking either: fragments
		// must not read the lookup table the cache leaves empty.
		vm.opts.Optimize.NoIBL = opts.Optimize.NoIBL || opts.Cache.NoIBL || opts.Cache.NoLink
		vm.st = new(fragment.State)
		m.UseCPU(&vm.st.CPU)
		vm.sel = net.NewSelector(opts.NET)
		vm.sel.Refuse(vm.opts.Optimize.Refuses)
		vm.env = fragment.EnvOf(m)
		if vm.scheme, err = vm.newScheme(opts.Select); err != nil {
			vm.Close()
			return nil, err
		}
	}
	if err := vm.startGC(); err != nil {
		vm.Close()
		return nil, err
	}
	if err := vm.startSpecialize(); err != nil {
		vm.Close()
		return nil, err
	}
	if p := vm.opts.Profiler; p != nil {
		if p.Engine == nil {
			vm.Close()
			return nil, fmt.Errorf("rvdyn: Options.Profiler is not a started session (use rpa.Start)")
		}
		p.Attach(m)
		vm.attach(profileRun{s: p})
		if vm.sel != nil {
			g, all := p.Engine, vm.opts.ProfilerInterpreted
			native := !all && !vm.opts.ProfilerNoNative
			g.UseCountdowns(&vm.st.Countdown)
			if native {
				g.UseNative(&vm.st.Native, !vm.opts.Optimize.NoGapThread)
				vm.rpaNative = g
			}
			vm.sel.KeepInterpreted(func(pc uint64, in interp.Inst) bool {
				_, n, ok := g.Selection(pc, in)
				if ok && n == 1 && native {
					_, ok := g.Native(pc, in)
					return !ok
				}
				return ok && (all || n == 1)
			})
			if !all {
				if e, ok := g.SampledEntry(); ok && !vm.opts.ProfilerCountdownInMemory {
					vm.opts.Optimize.CountdownHome, vm.opts.Optimize.CountdownIndex = true, e
				}
				vm.sample = func(pc uint64, in interp.Inst) (int, *rpa.Native, bool) {
					e, n, ok := g.Selection(pc, in)
					if ok && native {
						if nv, ok := g.Native(pc, in); ok {
							return e, nv, true
						}
					}
					return e, nil, ok && n > 1
				}
			}
		}
	}
	return vm, nil
}

// profileRun is the attachment of Options.Profiler: its report goes into
// the stats. The caller owns the session and closes it.
type profileRun struct {
	noEvents
	s *rpa.Session
}

// fill puts the profiler's report in a stats snapshot.
func (p profileRun) fill(s *Stats) {
	r := p.s.Report()
	s.Profiler = &r
}

// Symbols returns the guest program's function symbols.
func (vm *VM) Symbols() *interp.Symbols { return vm.syms() }

// Machine returns the guest machine (registers, memory, syscall counts).
func (vm *VM) Machine() *interp.Machine { return vm.m }

// Close releases guest memory and the code cache.
func (vm *VM) Close() error {
	if vm.timer != nil {
		vm.timer.Stop()
	}
	if vm.rpaNative != nil {
		vm.rpaNative.StopNative() // the service threads draw gaps into vm.st
	}
	err := vm.stopAttached()
	if vm.scheme != nil {
		vm.scheme.Close()
	}
	if vm.cache != nil {
		if e := vm.cache.Close(); err == nil {
			err = e
		}
	}
	if e := vm.m.Close(); err == nil {
		err = e
	}
	return err
}

// Run runs the guest to its end and returns its exit status. The error is
// nil when the guest exited (or was killed by a signal: see Signal), a
// *interp.Fault when it faulted (the status is then 128+signal, as a
// shell reports a killed process), interp.ErrLimit when MaxInstructions
// ran out, or ErrTimeout. Run may be called once.
func (vm *VM) Run() (int, error) {
	if vm.ran {
		return 0, fmt.Errorf("rvdyn: VM already ran")
	}
	vm.ran = true
	start := time.Now()
	vm.started = start
	vm.armTimeout()
	var err error
	if vm.opts.Mode == ModeInterp {
		err = vm.interpret()
	} else {
		err = vm.dispatch()
	}
	if vm.timer != nil {
		vm.timer.Stop()
	}
	err = vm.timeoutErr(err)
	vm.ctr.wall = time.Since(start)
	for _, a := range vm.attached {
		a.finished(vm, err)
	}
	if e := vm.m.HostError(); e != nil && err == nil {
		err = e
	}
	code := vm.m.ExitCode()
	if f, ok := err.(*interp.Fault); ok {
		code = 128 + f.Kind.Signal()
	}
	vm.ctr.exitCode = code
	return code, err
}
