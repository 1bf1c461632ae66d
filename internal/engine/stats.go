// Run statistics: the dispatcher's counters, the machine's, the selector's and the cache's -> one Stats snapshot (its JSON and table forms: stattable.go).

package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"rvdyn/fragment/exit"
	"rvdyn/gcassist"
	"rvdyn/internal/selection"
	"rvdyn/net"
	"rvdyn/profhw/rpa"
)

// counters are the dispatcher's own tallies of a run; Stats adds those of
// the machine, the selector and the code cache.
type counters struct {
	exitCode          int
	cacheInstructions uint64
	traces            uint64
	traceInstructions uint64
	endReasons        [net.NumEndReasons]uint64
	tooLarge          uint64
	exits             [exit.NumKinds]uint64
	phaseFlushes      uint64
	partialFlushes    uint64 // phase flushes that kept the new phase's fragments
	phaseBackoffs     int    // ... found premature (codecache.Policy.Regret)
	phaseRemoved      uint64 // the fragments those removed
	capacityFlushes   uint64
	staleRemoved      uint64
	entryFails        uint64 // failed entry tests (exit.Record.EntryTest)
	entryRemoved      uint64 // fragments removed for them
	cutFlushes        uint64
	cutRetranslated   uint64
	bailedOutAt       uint64
	wall              time.Duration
	recordTime        time.Duration
	compileTime       time.Duration
	lastInsert        time.Duration // since Run started, when the last fragment was inserted
	selectTime        time.Duration // main-thread selection work, measured with SelectOptions.Metrics
}

// Stats describe one run: a snapshot taken by VM.Stats. Instruction
// counts are exact: GuestInstructions is the same in every mode for the
// same program and input. In JSON (MarshalJSON) field names are
// snake_case and durations are seconds.
type Stats struct {
	Mode     Mode
	Delay    int            // the prediction delay tau the run used
	Predict  net.Predict    // the online prediction scheme (NET or path profiling)
	Select   selection.Kind // the trace selection scheme (SelectPath when Predict is path)
	ExitCode int            // the guest's status (128+signal after a fault)

	GuestInstructions       uint64 // retired guest instructions
	CacheInstructions       uint64 // of which retired in native code
	InterpretedInstructions uint64 // of which interpreted (including recording)

	Traces            uint64                    // traces recorded and compiled
	TraceInstructions uint64                    // guest instructions in them
	EndReasons        [net.NumEndReasons]uint64 // traces by the reason they ended
	TraceHeads        uint64                    // distinct candidates counted (NET counter space)
	PathCounters      uint64                    // --predict=path: distinct paths counted (its counter space)
	PathsProfiled     uint64                    // --predict=path: path executions recorded and counted
	SelectCounters    uint64                    // the selection scheme's counter space: heads (net), paths (path), counter table entries (compressor), service-thread table entries (rpa)
	Quieted           uint64                    // trace heads given up: the trace ends at a system instruction too soon to pay
	Fragments         uint64                    // fragments inserted into the code cache
	TooLarge          uint64                    // traces whose code did not fit in the empty cache (left interpreted)
	CodeBytes         uint64                    // bytes of native code generated
	Links             uint64                    // exit stubs linked to fragments
	CacheExits        uint64                    // returns from native code to the dispatcher
	Exits             [exit.NumKinds]uint64     // the same by reason
	Flushes           uint64                    // code cache flushes
	PhaseFlushes      uint64                    // ... because the prediction rate jumped (a new phase)
	PhaseRemoved      uint64                    // fragments those removed while keeping the new phase's (the default; 0 with codecache.PolicyOptions.FullPhaseFlush)
	PhaseBackoffs     int                       // phase flushes found premature, each doubling the burst the next needs (codecache.Policy.Regret)
	CapacityFlushes   uint64                    // ... because the cache was full
	StaleRemoved      uint64                    // fragments removed because the code they were built from changed (rewritten and fence.i, unmapped, re-protected): per page, no flush
	EntryTestFails    uint64                    // exits of failed entry tests (exit.Record.EntryTest): a register a fragment leaves stale at its loop head held no sign extension on entry, or a loop check bounded by the trip of a loop with early exits failed
	EntryTestRemoved  uint64                    // fragments removed because their entry tests kept failing (their heads compiled again without those mechanisms)
	CutFlushes        uint64                    // flushes after a munmap or mprotect cut a fast interval of guest memory short (codecache.Policy.Cut)
	CutRetranslated   uint64                    // fragments those flushes compiled again from their traces (0 with codecache.PolicyOptions.CutRecord)
	TableWalks        uint64                    // native accesses and loop checks that no fast interval held, so that the access table was walked (interp.Memory.TableWalks)
	BailedOutAt       uint64                    // guest instructions retired when rvdyn gave up optimizing (0: never)
	Syscalls          uint64                    // system calls made
	SignalsHandled    uint64                    // signal handlers entered (signal frames set up)
	UnknownSyscalls   map[uint64]uint64         // calls answered -ENOSYS, by number

	Wall        time.Duration // wall time of Run
	RecordTime  time.Duration // of which spent recording traces
	CompileTime time.Duration // of which spent compiling and inserting fragments (under CompileAsync: inserting, and compiling when the queue was full)
	// LastInsert is the wall time from the start of Run to the last
	// fragment insertion: when the code cache stopped growing, a measure
	// of the time to steady state.
	LastInsert time.Duration
	// Compiler describes the service-thread compiler (Options.Compiler).
	Compiler CompilerStats
	// SelectTime is the main-thread time of the selection scheme's
	// decisions at trace-head candidates (and, for path, recording paths
	// it did not compile); measured only with SelectOptions.Metrics (0
	// otherwise), since timing every candidate has a cost of its own.
	SelectTime time.Duration
	// TraceMetrics scores the traces compiled against the run's path
	// profile (SelectOptions.Metrics), or is nil.
	TraceMetrics *selection.TraceMetrics

	// TopFragments are the TopFragments trace heads whose native runs
	// retired the most guest instructions (dynamo mode), named by guest
	// function.
	TopFragments []FragmentStat
	GC           *gcassist.Stats // the host collector's, nil when the guest collects its own heap
	// Profiler is the relational profiler's report (records selected,
	// query instructions executed, messages, stalls, stall time and
	// maximum occupancy per queue) when Options.Profiler was set, else nil.
	Profiler *rpa.Report
	// Specialize reports value specialization when
	// Options.Specialize was on (dynamo mode), else nil.
	Specialize *selection.ValueStats
}

// Stats returns the statistics of the run so far.
func (vm *VM) Stats() Stats {
	c := &vm.ctr
	s := Stats{
		Mode: vm.opts.Mode, Delay: vm.opts.NET.Tau(), Predict: vm.opts.NET.Predict, ExitCode: c.exitCode,
		GuestInstructions: vm.m.Retired(), CacheInstructions: c.cacheInstructions,
		Traces: c.traces, TraceInstructions: c.traceInstructions, EndReasons: c.endReasons,
		TooLarge: c.tooLarge, Exits: c.exits,
		PhaseFlushes: c.phaseFlushes, PhaseRemoved: c.phaseRemoved, PhaseBackoffs: c.phaseBackoffs, CapacityFlushes: c.capacityFlushes, StaleRemoved: c.staleRemoved, EntryTestFails: c.entryFails, EntryTestRemoved: c.entryRemoved, CutFlushes: c.cutFlushes, CutRetranslated: c.cutRetranslated,
		BailedOutAt: c.bailedOutAt,
		Wall:        c.wall, RecordTime: c.recordTime, CompileTime: c.compileTime, SelectTime: c.selectTime,
		LastInsert: c.lastInsert, Compiler: vm.async.stats,
		Select: vm.opts.Select.Kind(vm.opts.NET),
	}
	s.Compiler.Mode = vm.opts.Compiler.Mode
	s.TableWalks = vm.m.Mem.TableWalks()
	s.InterpretedInstructions = s.GuestInstructions - s.CacheInstructions
	sc := vm.m.Syscalls()
	s.Syscalls = sc.Calls
	s.SignalsHandled = vm.m.SignalsHandled()
	s.UnknownSyscalls = make(map[uint64]uint64, len(sc.Unknown))
	for n, k := range sc.Unknown {
		s.UnknownSyscalls[n] = k
	}
	for _, a := range vm.attached {
		a.fill(&s)
	}
	if vm.cache != nil {
		cs := vm.cache.Stats()
		s.Fragments, s.CodeBytes, s.Links, s.Flushes, s.CacheExits = cs.Fragments, cs.CodeBytes, cs.Links, cs.Flushes+c.partialFlushes, cs.ExitsTaken
		ss := vm.sel.Stats()
		s.TraceHeads, s.Quieted = ss.Heads, ss.Quieted
		s.TopFragments = vm.topFragments(TopFragments)
		s.PathCounters, s.PathsProfiled = ss.Paths, ss.Profiled
		if vm.scheme != nil {
			s.SelectCounters = vm.scheme.Entries()
		}
	}
	return s
}

// CachePercent returns the share of guest instructions retired in native
// code, in percent.
func (s *Stats) CachePercent() float64 {
	if s.GuestInstructions == 0 {
		return 0
	}
	return 100 * float64(s.CacheInstructions) / float64(s.GuestInstructions)
}

// jsonObject writes a JSON object whose keys keep the order they were
// added in (a Go map would sort them).
type jsonObject struct {
	b   bytes.Buffer
	err error
}

func (o *jsonObject) add(key string, v any) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	o.b.Write(k)
	o.b.WriteByte(':')
	val, err := json.Marshal(v)
	if err != nil && o.err == nil {
		o.err = fmt.Errorf("stats field %s: %w", key, err)
	}
	o.b.Write(val)
}

func (o *jsonObject) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.b.Len() == 0 {
		return []byte("{}"), nil
	}
	o.b.WriteByte('}')
	return o.b.Bytes(), nil
}

// traceMetricsRows writes the rows of SelectOptions.Metrics.
func traceMetricsRows(s *Stats, row func(string, any)) {
	t := s.TraceMetrics
	if t == nil {
		return
	}
	if t.Error != "" {
		row("trace metrics", "failed: "+t.Error)
		return
	}
	row(fmt.Sprintf("trace metrics (hot > %g%% of flow)", 100*t.Hot), fmt.Sprintf("%d path executions", t.Flow))
	row("  traces scored (at path heads)", fmt.Sprintf("%d (%d)", t.Compiled, t.ExactHeads))
	row("  paths predicted (hot)", fmt.Sprintf("%d (%d)", t.Predicted, t.PredictedHot))
	row("  hit rate", fmt.Sprintf("%.2f%%", t.HitRate))
	row("  noise", fmt.Sprintf("%.2f%%", t.NoiseRate))
	row("  missed-opportunity cost", fmt.Sprintf("%.2f%%", t.MOCRate))
	row("  profiled flow", fmt.Sprintf("%.2f%%", t.ProfiledFlow))
	if !t.Match {
		row("  profiling run", "diverged (instruction counts differ)")
	}
}

// writeTopFragments lists the top fragments: head, share of the guest
// instructions retired from runs entered there, entries, exits.
func (s *Stats) writeTopFragments(w io.Writer) error {
	if len(s.TopFragments) == 0 {
		return nil
	}
	fmt.Fprintf(w, "top fragments (by guest instructions retired from their entry):\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "head\tfunction\tinstructions\tshare\tentries\texits\tbytes\t\n")
	for _, f := range s.TopFragments {
		name := f.Symbol
		if name == "" {
			name = "?"
		}
		share := 0.0
		if s.GuestInstructions > 0 {
			share = 100 * float64(f.Instructions) / float64(s.GuestInstructions)
		}
		fmt.Fprintf(tw, "0x%x\t%s\t%d\t%.1f%%\t%d\t%d\t%d\t\n", f.Head, name, f.Instructions, share, f.Entries, f.Exits, f.CodeBytes)
	}
	return tw.Flush()
}
