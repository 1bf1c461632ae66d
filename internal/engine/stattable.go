// The statistics table: one row per counter (JSON key, --stats label, meaning) -> the JSON object, the --stats table and the docs' reference, all from it.

package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"rvdyn/fragment/exit"
	"rvdyn/internal/selection"
	"rvdyn/net"
)

// A stat is one counter of a run as the user sees it: its key in the
// JSON object (Stats.MarshalJSON), its row in the --stats table
// (Stats.WriteTable) and its meaning in docs/internals.md's statistics
// reference, which TestStatsReference generates from statTable. Adding a
// counter is adding a row here.
type stat struct {
	key string // the JSON key
	// label is the --stats table's row label, indented as printed; for a
	// stat that writes several rows (rows), what the reference shows for
	// them ("ended by ..."); "" for a stat in the JSON object only.
	label string
	doc   string // what it counts: the reference's "meaning" column

	value  func(s *Stats) any  // the JSON value (and the table's, unless text is set)
	inJSON func(s *Stats) bool // whether the key is written; nil: always

	text    func(s *Stats) any  // the table's value when it differs from the JSON's
	inTable func(s *Stats) bool // whether the row is written; nil: always
	rows    func(s *Stats, row func(label string, v any))
}

// Conditions of the table and the JSON object.
var (
	dynamo     = func(s *Stats) bool { return s.Mode == ModeDynamo }
	pathPred   = func(s *Stats) bool { return s.Predict == net.PredictPath }
	metricsOn  = func(s *Stats) bool { return s.Mode == ModeDynamo && s.TraceMetrics != nil }
	dynamoPath = func(s *Stats) bool { return dynamo(s) && pathPred(s) }
)

// statTable is every counter of a run, in the order the JSON object and
// the table list them.
var statTable = func() []stat {
	t := []stat{
		{key: "mode", label: "mode", doc: "`dynamo` or `interp`",
			value: func(s *Stats) any { return s.Mode }},
		{key: "delay", label: "prediction delay", doc: "NET's prediction delay of the run",
			value: func(s *Stats) any { return s.Delay }, inTable: dynamo},
		{key: "exit_code", label: "exit code", doc: "the guest's status (128+signal after a fault)",
			value: func(s *Stats) any { return s.ExitCode }},
		{key: "guest_instructions", label: "guest instructions", doc: "instructions the guest retired: equal in every mode",
			value: func(s *Stats) any { return s.GuestInstructions }},
		{key: "cache_instructions", label: "  from code cache", doc: "of which retired in fragments",
			value: func(s *Stats) any { return s.CacheInstructions }, inTable: dynamo,
			text: func(s *Stats) any { return fmt.Sprintf("%d (%.2f%%)", s.CacheInstructions, s.CachePercent()) }},
		{key: "interpreted_instructions", label: "  interpreted", doc: "of which interpreted (recording included)",
			value: func(s *Stats) any { return s.InterpretedInstructions }, inTable: dynamo},
		{key: "trace_heads", label: "trace heads counted", doc: "NET's counter space: heads with a counter",
			value: func(s *Stats) any { return s.TraceHeads }, inTable: dynamo},
		{key: "predict", label: "prediction", doc: "`path` under path profile based prediction (only then present)",
			value: func(s *Stats) any { return s.Predict.String() }, inJSON: pathPred,
			text: func(*Stats) any { return "path profile" }, inTable: dynamoPath},
		{key: "path_counters", label: "path counters", doc: "paths with a counter (path prediction)",
			value: func(s *Stats) any { return s.PathCounters }, inJSON: pathPred, inTable: dynamoPath},
		{key: "paths_profiled", label: "paths profiled", doc: "paths recorded to be counted (path prediction)",
			value: func(s *Stats) any { return s.PathsProfiled }, inJSON: pathPred, inTable: dynamoPath},
		{key: "select", label: "selection scheme", doc: "the selection scheme (dynamo mode; in the table when not NET)",
			value: func(s *Stats) any { return s.Select }, inJSON: dynamo,
			inTable: func(s *Stats) bool { return dynamo(s) && s.Select != selection.NET }},
		{key: "select_counters", label: "selection counters", doc: "the scheme's counter space: heads, paths, table entries",
			value: func(s *Stats) any { return s.SelectCounters }, inJSON: dynamo, inTable: dynamo},
		{key: "traces", label: "traces recorded", doc: "traces recorded and compiled",
			value: func(s *Stats) any { return s.Traces }, inTable: dynamo},
		{key: "trace_instructions", doc: "guest instructions in them",
			value: func(s *Stats) any { return s.TraceInstructions }},
		{key: "trace_end_reasons", label: "  ended by ...", doc: "traces by why they ended (`net.EndReason`)",
			value: endReasons, inTable: dynamo, rows: endReasonRows},
		{key: "fragments", label: "fragments", doc: "fragments placed in the code cache",
			value: func(s *Stats) any { return s.Fragments }, inTable: dynamo},
		{key: "fragments_too_large", label: "  too large for the cache", doc: "traces whose code did not fit the cache",
			value:   func(s *Stats) any { return s.TooLarge },
			inTable: func(s *Stats) bool { return dynamo(s) && s.TooLarge > 0 }},
		{key: "heads_interpreted", label: "heads left to the interpreter", doc: "heads whose trace ends too soon to pay (at a system call)",
			value:   func(s *Stats) any { return s.Quieted },
			inTable: func(s *Stats) bool { return dynamo(s) && s.Quieted > 0 }},
		{key: "code_bytes", label: "code bytes", doc: "machine code placed",
			value: func(s *Stats) any { return s.CodeBytes }, inTable: dynamo},
		{key: "links", label: "links", doc: "exit stubs patched to jump to a fragment",
			value: func(s *Stats) any { return s.Links }, inTable: dynamo},
		{key: "cache_exits", label: "cache exits", doc: "returns from native code to the dispatcher",
			value: func(s *Stats) any { return s.CacheExits }, inTable: dynamo},
	}
	for k := range exit.NumKinds {
		t = append(t, stat{key: "exits_" + k.String(), label: "  " + k.Text(), doc: k.Doc(),
			value: func(s *Stats) any { return s.Exits[k] }, inTable: dynamo})
	}
	removed := func(s *Stats) bool { return dynamo(s) && s.PhaseRemoved > 0 }
	t = append(t, []stat{
		{key: "flushes", label: "flushes", doc: "every flush, whole or partial",
			value: func(s *Stats) any { return s.Flushes }, inTable: dynamo},
		{key: "phase_flushes", label: "  phase change", doc: "phase-change flushes",
			value: func(s *Stats) any { return s.PhaseFlushes }, inTable: dynamo},
		{key: "phase_removed", label: "    fragments removed", doc: "fragments those flushes removed",
			value: func(s *Stats) any { return s.PhaseRemoved }, inTable: removed},
		{key: "phase_backoffs", label: "    found premature (back-offs)", doc: "phase flushes whose fragments came back",
			value: func(s *Stats) any { return uint64(s.PhaseBackoffs) }, inTable: removed},
		{key: "capacity_flushes", label: "  cache full", doc: "flushes of a full cache",
			value: func(s *Stats) any { return s.CapacityFlushes }, inTable: dynamo},
		{key: "cut_flushes", label: "  interval cut (munmap, mprotect)", doc: "answers to a `munmap` or `mprotect` that cut a fast interval short or took pages from the mappings' interval (fragments compiled again, or a flush with `--disable=cut-retranslate`)",
			value: func(s *Stats) any { return s.CutFlushes }, inTable: dynamo},
		{key: "cut_retranslated", label: "    fragments compiled again", doc: "fragments compiled again from their traces after a cut, with nothing recorded: those whose code the new layout changes",
			value: func(s *Stats) any { return s.CutRetranslated }, inTable: func(s *Stats) bool { return dynamo(s) && s.CutFlushes > 0 }},
		{key: "table_walks", label: "checks held by no fast interval", doc: "native accesses and loop checks whose addresses no fast interval held, so that the access table was walked",
			value: func(s *Stats) any { return s.TableWalks }, inTable: dynamo},
		{key: "stale_removed", label: "fragments removed as stale (code changed)", doc: "fragments removed because their code changed",
			value: func(s *Stats) any { return s.StaleRemoved }, inTable: dynamo},
		{key: "entry_test_fails", label: "entry tests failed (loop heads)", doc: "entries that found a register a fragment leaves stale at its loop head holding no sign extension, or a loop check bounded by the trip of a loop with other exits failing, and left to the interpreter",
			value: func(s *Stats) any { return s.EntryTestFails }, inTable: dynamo},
		{key: "entry_test_removed", label: "  fragments compiled again without", doc: "fragments removed because their entry tests kept failing; their heads are compiled without leaving such registers stale and without such loop checks",
			value: func(s *Stats) any { return s.EntryTestRemoved }, inTable: func(s *Stats) bool { return dynamo(s) && s.EntryTestFails > 0 }},
		{key: "bailed_out_at", label: "bailed out at instruction", doc: "where optimization gave up (0: it did not)",
			value:   func(s *Stats) any { return s.BailedOutAt },
			inTable: func(s *Stats) bool { return dynamo(s) && s.BailedOutAt > 0 }},
		{key: "record_seconds", label: "record time", doc: "time spent recording traces",
			value: func(s *Stats) any { return s.RecordTime.Seconds() }, inTable: dynamo,
			text: func(s *Stats) any { return s.RecordTime.Round(time.Microsecond) }},
		{key: "compile_seconds", label: "compile time", doc: "time spent compiling and placing fragments",
			value: func(s *Stats) any { return s.CompileTime.Seconds() }, inTable: dynamo,
			text: func(s *Stats) any { return s.CompileTime.Round(time.Microsecond) }},
		{key: "last_insert_seconds", label: "last fragment inserted at", doc: "when the cache stopped growing",
			value: func(s *Stats) any { return s.LastInsert.Seconds() }, inJSON: dynamo, inTable: dynamo,
			text: func(s *Stats) any { return s.LastInsert.Round(time.Microsecond) }},
		{key: "compiler", label: "service thread: ...", doc: "the service-thread compiler's counts (`--compile=async`)",
			value: func(s *Stats) any { return s.Compiler }, inJSON: dynamo,
			inTable: func(s *Stats) bool { return dynamo(s) && s.Compiler.Mode == CompileAsync }, rows: compilerRows},
		{key: "select_seconds", label: "selection time (main thread)", doc: "the scheme's main-thread time (with `--trace-metrics`)",
			value: func(s *Stats) any { return s.SelectTime.Seconds() }, inJSON: metricsOn, inTable: metricsOn,
			text: func(s *Stats) any { return s.SelectTime.Round(time.Microsecond) }},
		{key: "trace_metrics", label: "trace metrics", doc: "hit rate, noise, missed-opportunity cost of the traces compiled (with `--trace-metrics`)",
			value: func(s *Stats) any { return s.TraceMetrics }, inJSON: metricsOn, inTable: metricsOn, rows: traceMetricsRows},
		{key: "syscalls", label: "system calls", doc: "system calls made",
			value: func(s *Stats) any { return s.Syscalls }},
		{key: "unknown_syscalls", label: "  unknown syscall N", doc: "calls answered `-ENOSYS`, by number",
			value: unknownSyscalls, rows: unknownSyscallRows},
		{key: "signals_handled", label: "signal handlers run", doc: "signal handlers entered: signal frames set up (docs/syscalls.md, \"Signal handlers\")",
			value: func(s *Stats) any { return s.SignalsHandled }},
		{key: "gc", label: "gc ...", doc: "the host collector's counts (with `--gc`)",
			value: func(s *Stats) any { return s.GC }, inJSON: func(s *Stats) bool { return s.GC != nil },
			rows: func(s *Stats, row func(string, any)) { s.writeGCRows(row) }},
		{key: "rpa", label: "rpa: ...", doc: "the relational profiler's report (with `--query` or `--select=rpa`)",
			value: func(s *Stats) any { return s.Profiler }, inJSON: func(s *Stats) bool { return s.Profiler != nil }, rows: profileRows},
		{key: "specialize", label: "specialize: ...", doc: "value specialization's counts (with `--specialize`)",
			value: func(s *Stats) any { return s.Specialize }, inJSON: func(s *Stats) bool { return s.Specialize != nil }, rows: specializeRows},
		{key: "wall_seconds", label: "wall time", doc: "the run's wall time (the table adds the guest's MIPS)",
			value: func(s *Stats) any { return s.Wall.Seconds() }, rows: wallRows},
		{key: "top_fragments", label: "top fragments", doc: "the ten heads whose fragments retired the most instructions (a table of their own after the rest)",
			value: topFragments, inTable: func(*Stats) bool { return false }},
	}...)
	return t
}()

// MarshalJSON writes the statistics as one JSON object, a key per row of
// statTable in its order: trace end reasons as an object by reason,
// exits as "exits_branch", "exits_budget", ... (keys from the exit kind
// table), durations in seconds ("wall_seconds", ...).
func (s Stats) MarshalJSON() ([]byte, error) {
	var o jsonObject
	for _, st := range statTable {
		if st.inJSON == nil || st.inJSON(&s) {
			o.add(st.key, st.value(&s))
		}
	}
	return o.bytes()
}

// WriteTable writes the statistics as a readable two-column table, a row
// per row of statTable that applies to the run (most only in dynamo
// mode), then the top fragments.
func (s *Stats) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\t\n", k, v) }
	for _, st := range statTable {
		switch {
		case st.label == "" || st.inTable != nil && !st.inTable(s):
		case st.rows != nil:
			st.rows(s, row)
		case st.text != nil:
			row(st.label, st.text(s))
		default:
			row(st.label, st.value(s))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return s.writeTopFragments(w)
}

// endReasons is the JSON value of the trace end reasons: an object by
// reason, the reasons that ended no trace left out.
func endReasons(s *Stats) any {
	ends := map[string]uint64{}
	for r, n := range s.EndReasons {
		if n > 0 {
			ends[net.EndReason(r).String()] = n
		}
	}
	return ends
}

// endReasonRows writes a row per reason that ended a trace, by name.
func endReasonRows(s *Stats, row func(string, any)) {
	reasons := make([]net.EndReason, 0, net.NumEndReasons)
	for r, n := range s.EndReasons {
		if n > 0 {
			reasons = append(reasons, net.EndReason(r))
		}
	}
	slices.SortFunc(reasons, func(a, b net.EndReason) int { return strings.Compare(a.String(), b.String()) })
	for _, r := range reasons {
		row("  ended by "+r.String(), s.EndReasons[r])
	}
}

// compilerRows writes the service-thread compiler's rows.
func compilerRows(s *Stats, row func(string, any)) {
	c := s.Compiler
	row("service thread: traces queued", c.Queued)
	row("  installed", c.Installed)
	row("  discarded as stale (flush)", c.Stale)
	row("  discarded, head present", c.Duplicate)
	row("  unfinished at the end", c.Unfinished)
	row("  queue full: compiled on main thread", c.QueueFull)
	row("  compile time on service thread", c.ServiceTime.Round(time.Microsecond))
	row("  main thread waited", c.WaitTime.Round(time.Microsecond))
}

// unknownSyscalls is the JSON value of the unknown system calls: an
// object by number, {} rather than null when there were none.
func unknownSyscalls(s *Stats) any {
	if s.UnknownSyscalls == nil {
		return map[uint64]uint64{}
	}
	return s.UnknownSyscalls
}

// unknownSyscallRows writes a row per unknown system call, by number.
func unknownSyscallRows(s *Stats, row func(string, any)) {
	nums := make([]uint64, 0, len(s.UnknownSyscalls))
	for n := range s.UnknownSyscalls {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	for _, n := range nums {
		row(fmt.Sprintf("  unknown syscall %d", n), s.UnknownSyscalls[n])
	}
}

// profileRows writes the relational profiler's rows.
func profileRows(s *Stats, row func(string, any)) {
	r := s.Profiler
	if r == nil {
		return
	}
	row("rpa: events (class and tag selected)", r.Events)
	row("rpa: records selected (queries run)", r.Records)
	row("rpa: query instructions executed", r.Insts)
	row("rpa: count actions", r.Counts)
	row("rpa: interrupts", r.Interrupts)
	if r.GapsThread+r.GapsGuest > 0 {
		row("rpa: gaps drawn ahead by service threads / the guest", fmt.Sprintf("%d / %d", r.GapsThread, r.GapsGuest))
	}
	for _, q := range r.Queues {
		row(fmt.Sprintf("rpa: queue %d sent / received", q.Queue), fmt.Sprintf("%d / %d", q.Sent, q.Received))
		row(fmt.Sprintf("rpa: queue %d full stalls (stall time)", q.Queue), fmt.Sprintf("%d (%v)", q.Stalls, time.Duration(q.StallNs)))
		row(fmt.Sprintf("rpa: queue %d max occupancy", q.Queue), q.MaxOccupancy)
	}
}

// specializeRows writes value specialization's rows.
func specializeRows(s *Stats, row func(string, any)) {
	v := s.Specialize
	if v == nil {
		return
	}
	row("specialize: value profile", v.Profile)
	row("specialize: loads profiled (messages)", fmt.Sprintf("%d (%d)", v.LoadsProfiled, v.Messages))
	row("specialize: load pcs in the profile", v.PCs)
	row("specialize: loads specialized / asked", fmt.Sprintf("%d / %d", v.Specialized, v.OracleRequests))
	row("specialize: guard exits (pcs given up, fragments removed)", fmt.Sprintf("%d (%d, %d)", v.GuardExits, v.Despecialized, v.Removed))
}

// wallRows writes the wall time and the guest's speed in millions of
// instructions per second.
func wallRows(s *Stats, row func(string, any)) {
	row("wall time", s.Wall.Round(time.Microsecond))
	if s.Wall > 0 {
		row("guest MIPS", fmt.Sprintf("%.1f", float64(s.GuestInstructions)/s.Wall.Seconds()/1e6))
	}
}

// topFragments is the JSON value of the top fragments: [] rather than
// null when there are none.
func topFragments(s *Stats) any {
	if s.TopFragments == nil {
		return []FragmentStat{}
	}
	return s.TopFragments
}
