// Service-thread compiler: recorded traces -> a goroutine that compiles them -> fragments the dispatcher installs at its next safe point.

package engine

import (
	"errors"
	"fmt"
	"time"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// The protocol between the dispatcher (the main thread, which runs the
// guest) and the service thread.
//
// A compileJob is owned by one goroutine at a time. The dispatcher fills
// in the inputs and sends the job on asyncCompiler.jobs; from then on only
// the service thread touches it, until it has written the outputs and
// sent the job on done; from then on only the dispatcher does. A send on
// a channel happens before the corresponding receive completes (the Go
// memory model), so every write before the send is visible after the
// receive: no field needs to be atomic, and the race detector sees the
// same edges. On x86-TSO nothing more is needed either; the channel's
// lock orders the accesses.
//
// What the service thread may read is exactly a job's inputs, each
// immutable while it is shared:
//   - the trace: a fresh interp.Trace from the recorder, which nobody
//     writes after Record returns (the dispatcher keeps a pointer only to
//     read it back at installation);
//   - env and opts: copies of VM.env and Options.Optimize, except that
//     the value profile's oracle (fragment.Options.Values, value
//     specialization) is replaced by its answers for the trace's loads,
//     taken on the main thread when the trace is queued (frozenValues):
//     the profile is fed by the interpreter's hook, which appends to a
//     buffer without its lock, so it must not be asked from another
//     goroutine while the guest runs;
//   - sample: the relational profiler's decisions for the trace's
//     instructions, taken on the main thread when the trace was queued
//     (frozenSampler). The live sampler reads and draws into the query
//     engine's state (entries switched on and off by queries, the gaps it
//     draws ahead), which the guest's instructions change as they run,
//     so it must not be called from the service thread. Calling it at
//     queue time also calls it at the very point a synchronous compile
//     would, so the engine's side effects happen in the same order in
//     both modes.
//
// The compiler itself (package fragment) keeps no mutable state between
// calls, apart from the assembler library's one-time table setup, which
// compileTrace runs once under a sync.Once before any two compiles can
// overlap (the main thread compiles beside the service thread when the
// queue is full).
//
// The code cache, the selector, the machine's marks, the listing and the
// perf map belong to the dispatcher alone: installation (Insert, linking,
// Mark, perf map, listing, codePages) happens on the main thread at the
// top of the dispatch loop, which is both where a new fragment can first
// be entered and a point where no native code runs.
//
// Staleness. Every flush (phase change, capacity, fence.i or a debugger's
// write into compiled text, bail-out) bumps epoch; a job carries the epoch
// it was queued in, and a result from an older epoch is discarded
// (Stale). The pages a queued trace was built from go into codePages at
// once, so a fence.i after the guest rewrote one of them flushes and
// discards it, as it would an installed fragment. A head being compiled
// is in pending: candidate does not count or record it again, and the
// recorder ends other traces at it as at a fragment head (its exits link
// to it once it is installed). A result whose head has a fragment by then
// is discarded (Duplicate) rather than inserted twice.
type compileJob struct {
	// Inputs, written by the dispatcher before the send on jobs.
	trace  *interp.Trace
	env    fragment.Env
	opts   fragment.Options
	sample fragment.Sampler
	epoch  uint64
	// Outputs, written by the service thread before the send on done.
	code *fragment.Code
	err  error
	took time.Duration
}

// asyncCompiler is the dispatcher's side of the service-thread compiler.
// Only the main thread touches it; the service thread sees only the two
// channels and the jobs passed through them.
type asyncCompiler struct {
	jobs     chan *compileJob // to the service thread; nil when it is not running
	done     chan *compileJob // back from it, closed when it returns
	epoch    uint64           // bumped by every flush
	inflight int              // jobs sent and not yet received back (at most the queue bound)
	pending  map[uint64]bool  // heads of the jobs in flight of the current epoch
	stats    CompilerStats
	hooks    compileHooks
}

// compileHooks let tests act at fixed points of the protocol. Each is
// nil in a normal run.
type compileHooks struct {
	queued  func() // main thread, after a trace is queued
	full    func() // main thread, after a trace is compiled because the queue was full
	service func() // service thread, before each compile
}

// compileTrace compiles a trace; it may run on any goroutine.
func compileTrace(t *interp.Trace, env fragment.Env, opts fragment.Options, sample fragment.Sampler) (*fragment.Code, error) {
	return fragment.CompileSampled(t, env, opts, sample)
}

// serve is the service thread: it compiles the jobs it receives until
// jobs is closed, then closes done.
func serve(jobs <-chan *compileJob, done chan<- *compileJob, before func()) {
	for j := range jobs {
		if before != nil {
			before()
		}
		t := time.Now()
		j.code, j.err = compileTrace(j.trace, j.env, j.opts, j.sample)
		j.took = time.Since(t)
		done <- j // never blocks: done holds as many jobs as may be in flight
	}
	close(done)
}

// build compiles a recorded trace and inserts its fragment: on the
// service thread under CompileAsync while the queue has room, at once on
// the main thread otherwise. t0 is when compilation was decided (for
// CompileTime).
func (vm *VM) build(trace *interp.Trace, t0 time.Time) error {
	if vm.opts.Compiler.Mode == CompileAsync {
		if vm.queueTrace(trace) {
			return nil
		}
		vm.async.stats.QueueFull++
		defer func() {
			if h := vm.async.hooks.full; h != nil {
				h()
			}
		}()
	}
	env := vm.compileEnv()
	code, err := compileTrace(trace, env, vm.optimizeFor(trace.Head), vm.sample)
	if err != nil {
		return fmt.Errorf("compiling trace at 0x%x: %w", trace.Head, err)
	}
	vm.compiled(code)
	err = vm.install(trace, code, env)
	vm.ctr.compileTime += time.Since(t0)
	return err
}

// compileEnv returns the Env a trace is compiled against now: vm.env,
// which changes only with interp.Machine.EnvEpoch (when the program's
// image loses access, and the cache is flushed), with the mappings'
// intervals as they are now. Those are a hint only (which interval an
// access tests first), and they move with every munmap that cuts the
// heap's interval short (codecache.Policy.Cut).
func (vm *VM) compileEnv() fragment.Env {
	env := vm.env
	env.MapReadLo, env.MapReadHi, env.MapWriteLo, env.MapWriteHi = vm.m.MapRuns()
	return env
}

// queueTrace hands trace to the service thread, starting it if needed,
// and reports false if the queue is full.
func (vm *VM) queueTrace(trace *interp.Trace) bool {
	a := &vm.async
	n := vm.opts.Compiler.queue()
	if a.inflight >= n {
		return false
	}
	if a.jobs == nil {
		a.jobs, a.done = make(chan *compileJob, n), make(chan *compileJob, n)
		if a.pending == nil {
			a.pending = make(map[uint64]bool)
		}
		go serve(a.jobs, a.done, a.hooks.service)
	}
	opts := vm.optimizeFor(trace.Head)
	if opts.Values != nil {
		opts.Values = newFrozenValues(trace, opts.Values)
	}
	a.jobs <- &compileJob{trace: trace, env: vm.compileEnv(), opts: opts, sample: frozenSampler(trace, vm.sample), epoch: a.epoch}
	a.inflight++
	a.pending[trace.Head] = true
	for _, s := range trace.Steps {
		vm.codePages[s.PC&^(pageSize-1)] = true
	}
	a.stats.Queued++
	if a.hooks.queued != nil {
		a.hooks.queued()
	}
	return true
}

// frozenSampler returns the decisions of sample for trace's instructions,
// taken now, as a Sampler that reads only them (nil for a nil sample).
func frozenSampler(trace *interp.Trace, sample fragment.Sampler) fragment.Sampler {
	if sample == nil {
		return nil
	}
	type decision struct {
		countdown int
		native    *rpa.Native
		ok        bool
	}
	d := make(map[uint64]decision, len(trace.Steps))
	for _, s := range trace.Steps { // in order, as the compiler would call it
		k, nv, ok := sample(s.PC, s.Inst)
		d[s.PC] = decision{k, nv, ok}
	}
	return func(pc uint64, _ interp.Inst) (int, *rpa.Native, bool) {
		x := d[pc]
		return x.countdown, x.native, x.ok
	}
}

// frozenValues is a value oracle's answers for the loads of one trace:
// the invariant value by pc, absent for a load it does not report.
type frozenValues map[uint64]uint64

// newFrozenValues asks vals about every load of trace that writes a
// register (a superset of the loads the compiler asks about), now.
func newFrozenValues(trace *interp.Trace, vals interface {
	Invariant(pc uint64) (uint64, bool)
}) frozenValues {
	f := frozenValues{}
	for _, s := range trace.Steps {
		if s.Inst.Op.Class() == interp.ClassLoad && s.Inst.Rd != 0 {
			if v, ok := vals.Invariant(s.PC); ok {
				f[s.PC] = v
			}
		}
	}
	return f
}

// Invariant implements ir.ValueOracle from the frozen answers.
func (f frozenValues) Invariant(pc uint64) (uint64, bool) {
	v, ok := f[pc]
	return v, ok
}

// installReady installs the fragments the service thread has finished,
// without waiting for those still being compiled: the dispatcher's safe
// point.
func (vm *VM) installReady() error {
	a := &vm.async
	for a.inflight > 0 {
		select {
		case j := <-a.done:
			a.inflight--
			if err := vm.installJob(j); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// installJob installs the result of a job received back, or discards it.
func (vm *VM) installJob(j *compileJob) error {
	a := &vm.async
	a.stats.ServiceTime += j.took
	vm.compiled(j.code)
	if j.epoch != a.epoch {
		a.stats.Stale++
		return nil
	}
	head := j.trace.Head
	delete(a.pending, head)
	if j.err != nil {
		return fmt.Errorf("compiling trace at 0x%x: %w", head, j.err)
	}
	if vm.cache.Lookup(head) != nil {
		a.stats.Duplicate++
		return nil
	}
	t0 := time.Now()
	err := vm.install(j.trace, j.code, j.env)
	vm.ctr.compileTime += time.Since(t0)
	if err == nil {
		a.stats.Installed++
	}
	return err
}

// stopCompiler ends the service thread, if it runs, when the dispatcher
// returns: jobs it has not started are taken back, the one under way is
// waited for, and every job is discarded (Unfinished, or Stale if a flush
// had overtaken it).
func (vm *VM) stopCompiler() {
	a := &vm.async
	if a.jobs == nil {
		return
	}
	t := time.Now()
	discard := func(j *compileJob) {
		a.stats.ServiceTime += j.took
		vm.compiled(j.code)
		if j.epoch != a.epoch {
			a.stats.Stale++
		} else {
			a.stats.Unfinished++
		}
	}
	for taken := false; !taken; {
		select {
		case j := <-a.jobs:
			discard(j)
		default:
			taken = true
		}
	}
	close(a.jobs)
	for j := range a.done { // until the service thread closes it
		discard(j)
	}
	a.stats.WaitTime += time.Since(t)
	a.jobs, a.done, a.inflight = nil, nil, 0
	clear(a.pending)
}

// compiled counts what a compile specialized (value specialization), once
// per compile whatever becomes of the code; code may be nil.
func (vm *VM) compiled(code *fragment.Code) {
	if vm.vals != nil && code != nil {
		vm.vals.Compiled(code.Specialized)
	}
}

// flushed discards the jobs in flight: they were predicted before a
// flush.
func (a *asyncCompiler) flushed() {
	a.epoch++
	clear(a.pending)
}

// install inserts a compiled trace into the code cache (flushing it once
// if it is full), links it, marks its head for the interpreter and
// records it in the listing, the perf map and codePages; env is the Env
// it was compiled against (retranslate).
func (vm *VM) install(trace *interp.Trace, code *fragment.Code, env fragment.Env) error {
	pc := trace.Head
	if vm.opts.Listing != nil {
		fragment.WriteListingNamed(vm.opts.Listing, trace, code, vm.syms().Name)
	}
	f, err := vm.cache.Insert(code)
	if errors.Is(err, codecache.ErrFull) {
		vm.ctr.capacityFlushes++
		vm.flush()
		f, err = vm.cache.Insert(code)
	}
	if errors.Is(err, codecache.ErrFull) {
		// Larger than the whole cache: this head stays interpreted.
		vm.sel.Abandon(pc)
		vm.ctr.tooLarge++
		return nil
	}
	if err != nil {
		return fmt.Errorf("inserting fragment at 0x%x: %w", pc, err)
	}
	f.Built = vm.m.Retired()
	if vm.phaseGone[f.Head] {
		delete(vm.phaseGone, f.Head)
	}
	vm.m.Mark(f.Head, true)
	vm.live = append(vm.live, f)
	vm.placed(f)
	var pages []uint64
	for _, s := range trace.Steps {
		p := s.PC &^ (pageSize - 1)
		vm.codePages[p] = true
		if len(pages) == 0 || pages[len(pages)-1] != p {
			pages = append(pages, p)
		}
		if e := (s.PC + 3) &^ (pageSize - 1); e != p { // a 4-byte instruction across a page boundary
			vm.codePages[e] = true
			pages = append(pages, e)
		}
	}
	vm.frags[f] = fragInfo{pages: pages, trace: trace, env: env}
	if !vm.started.IsZero() {
		vm.ctr.lastInsert = time.Since(vm.started)
	}
	return nil
}
