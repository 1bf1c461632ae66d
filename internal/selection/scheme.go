// Trace selection schemes: trace-head candidate events in, "record the next executing tail from here now" out, by NET counters, path counters, the stratified-sampling compressor or a relational-profiler service thread.

// Package selection holds the trace selection schemes: what decides that
// a trace head is hot, with the trace-metrics log that scores them and
// the value profile behind value specialization. NET and path profile
// based prediction (Duesterwald and Bala, "Software Profiling for Hot
// Path Prediction: Less is More", section 3 and Figure 5) count on the
// main thread in net.Selector; the stratified-sampling compressor
// (Sastry, Bodik and Smith, "Rapid Profiling via Stratified Sampling",
// section 5) replaces the per-head counters with a compressor's few; the
// relational profiler (Heil and Smith, "Relational Profiling: Enabling
// Thread-Level Parallelism in Virtual Machines", Figure 2a's edge query)
// counts on a service thread. Every scheme sees the same trace-head
// candidates and answers through one interface (Scheme); the engine's
// dispatcher asks it at each candidate.
package selection

import (
	"fmt"
	"strings"

	"rvdyn/net"
	"rvdyn/profhw"
)

// A Kind names a trace selection scheme: what decides that a trace head
// is hot. The zero value is SelectNET. Every scheme sees the same
// trace-head candidates (targets of taken backward branches and jumps
// reached by the interpreter, and targets of code cache exits), records
// traces with the same NET end-of-trace rules and compiles them the same
// way; only which heads are predicted, and when, differs.
type Kind uint8

// The selection schemes.
const (
	// NET is NET (net.PredictNET): one software counter per head,
	// bumped on the main thread; hot when it exceeds the delay.
	NET Kind = iota
	// Path is path profile based prediction (net.PredictPath):
	// every path from a head is recorded and counted; a path is compiled
	// once its own counter exceeds the delay.
	Path
	// Compressor feeds every candidate, as the tuple <head, 0>, to
	// a stratified-sampling compressor (Options.Compressor,
	// H[P256]2048 by default: the stratified sampling paper's
	// configuration) and counts the (tuple, count) messages it sends in a
	// software counter table; a head is hot when its entry exceeds the
	// delay. The compressor's n hardware counters replace NET's one
	// counter per head; the table only holds heads that got a message.
	Compressor
	// RPA runs an edge query in the relational profiler (every
	// Options.RPAPeriod-th conditional branch and
	// RPAJumpPeriod-th jump, collecting pc, next pc and misc) whose service thread counts transfer
	// targets and hands hot heads to the dispatcher through a queue
	// (headQueue): the counting leaves the main thread, which only polls
	// the queue at trace-head candidates.
	RPA
	NumKinds
)

var kindNames = [NumKinds]string{"net", "path", "compressor", "rpa"}

// String returns the scheme's command-line name.
func (s Kind) String() string {
	if s < NumKinds {
		return kindNames[s]
	}
	return fmt.Sprintf("Scheme(%d)", uint8(s))
}

// MarshalText makes a Kind appear by name in JSON.
func (s Kind) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseKind parses "net", "path", "compressor" or "rpa" (any case).
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown selection scheme %q (want net, path, compressor or rpa)", s)
}

// DefaultCompressor is Compressor's default compressor, in profhw's
// notation: the stratified periodic sampler H[P_256]_2048 of the
// stratified sampling paper (section 5, Figure 7).
const DefaultCompressor = "H[P256]2048"

// DefaultRPAPeriod is RPA's default sampling period for conditional
// branches: 256, the period of the relational profiling paper's edge
// query (Figure 2a). Each message counts 256 executions toward its
// target's counter, so with a delay below 256 a target is hot at its
// first sample, as with the compressor's P256. A branch's query runs
// inside fragments (rpa.Engine.Native); at period 16 the guests spent
// much of their time in the exits taken when the gaps drawn ahead run
// out (sieve: 0.12 s against NET's 0.03 s; 0.08 s at 256).
const DefaultRPAPeriod = 256

// DefaultRPAJumpPeriod is RPA's default sampling period for jumps
// (jal, jalr), whose queries leave native code for the engine in Go (an
// ExitSample exit). Sampling them more rarely costs more than it saves:
// return targets then get hot late and the fragments leave through
// unlinked exits (bintree: 0.09 s at 256, 0.14 s at 1024, 0.50 s at 8192).
const DefaultRPAJumpPeriod = 256

// Options configure trace selection beyond NET's delay and trace length
// (net.Options; the engine's Options.Select). The zero value selects
// with NET and measures nothing:
//
//	field       default               meaning
//	Scheme      NET                   the scheme (Path is also asked for by net.Options.Predict = net.PredictPath)
//	Compressor  DefaultCompressor     Compressor's compressor, profhw notation (R256, H[P256]2048, tag2-256-2048, ...)
//	RPAPeriod   DefaultRPAPeriod (256)  RPA's edge query samples every RPAPeriod-th conditional branch
//	RPAJumpPeriod DefaultRPAJumpPeriod (256) ... and every RPAJumpPeriod-th jump
//	RPASync     false                 RPA: the dispatcher waits for the service thread at each poll (deterministic)
//	Metrics     false                 score the compiled traces against the run's path profile (TraceMetrics)
//	Hot         net.DefaultHot        Metrics' hot threshold, a fraction of the flow
type Options struct {
	// Scheme is the selection scheme.
	Scheme Kind
	// Compressor is the Compressor scheme's compressor in profhw notation
	// (profhw.ParseConfig; interval profilers are not accepted). Empty
	// means DefaultCompressor.
	Compressor string
	// RPAPeriod is the RPA scheme's sampling period N ("every N"; 1 samples
	// every execution). 0 means DefaultRPAPeriod.
	RPAPeriod uint32
	// RPAJumpPeriod is the same for jumps (jal, jalr). 0 means
	// DefaultRPAJumpPeriod.
	RPAJumpPeriod uint32
	// RPASync makes the dispatcher, at each poll of the RPA scheme's queue,
	// wait until the service thread has handled every message sent so
	// far: the traces compiled are then the same from run to run, for
	// tests. Without it the service thread runs freely and the set of
	// traces may vary (output, exit status and instruction counts never
	// do).
	RPASync bool
	// Metrics, after the run, interprets the guest again with the path
	// profiler and scores the traces the dispatcher compiled (hit rate,
	// noise, missed-opportunity cost: net.ScoreSelection); the run's
	// Stats carries the result in TraceMetrics. It also times the
	// scheme's main-thread work (Stats.SelectTime). The second run is not part of Stats.Wall.
	// Standard input is buffered during the run and replayed.
	Metrics bool
	// Hot is Metrics' hot threshold as a fraction of the flow (0 means
	// net.DefaultHot, the paper's 0.1%).
	Hot float64
}

// Kind returns the scheme o and the NET options ask for: Path when
// n.Predict is net.PredictPath and o asks for NET.
func (o Options) Kind(n net.Options) Kind {
	if o.Scheme == NET && n.Predict == net.PredictPath {
		return Path
	}
	return o.Scheme
}

// A Scheme decides at trace-head candidates whether to record now.
// Its methods run on the dispatcher's goroutine.
type Scheme interface {
	// Bump counts one execution of the candidate at pc (a head without a
	// fragment) and reports whether to record its next executing tail.
	Bump(pc uint64) bool
	// Reset starts prediction afresh after a code cache flush.
	Reset()
	// Entries is the counter space the scheme used: counters or table
	// entries, the most held at once or ever (see each scheme).
	Entries() uint64
	// Close releases the scheme's resources (service threads).
	Close()
}

// netScheme is NET and path prediction: net.Selector's own counters.
type netScheme struct{ sel *net.Selector }

func (s netScheme) Bump(pc uint64) bool { return s.sel.Bump(pc) }
func (s netScheme) Reset()              {} // the dispatcher's flush resets the selector
func (s netScheme) Close()              {}
func (s netScheme) Entries() uint64 {
	st := s.sel.Stats()
	if s.sel.Predict() == net.PredictPath {
		return st.Paths
	}
	return st.Heads
}

// compressorScheme is Compressor: candidates in as tuples, the
// compressor's messages accumulated in a software counter table.
type compressorScheme struct {
	sel   *net.Selector // abandoned heads
	comp  profhw.Compressor
	seed  uint64
	tau   uint64
	table map[uint64]uint64 // head -> count the messages imply
	known map[uint64]bool   // heads that ever had an entry (counter space)
	buf   [1]profhw.Tuple
}

func newCompressorScheme(sel *net.Selector, notation string) (*compressorScheme, error) {
	if notation == "" {
		notation = DefaultCompressor
	}
	cfg, err := profhw.ParseConfig(notation)
	if err != nil {
		return nil, fmt.Errorf("rvdyn: --compressor: %w", err)
	}
	s := &compressorScheme{sel: sel, seed: 1, tau: uint64(sel.Delay()), table: map[uint64]uint64{}, known: map[uint64]bool{}}
	s.comp, err = cfg.NewCompressor(s.seed, profhw.SinkFunc(s.message))
	if err != nil {
		return nil, fmt.Errorf("rvdyn: --compressor: %w", err)
	}
	return s, nil
}

// message accumulates one compressor message in the counter table.
func (s *compressorScheme) message(t profhw.Tuple, count uint64) {
	pc := t.Addr()
	s.table[pc] += count
	s.known[pc] = true
}

// Bump feeds the candidate to the compressor. A message for another head
// (the compressor sends whichever tuple made a counter reach its rate)
// counts for that head, which is predicted at its own next candidate.
func (s *compressorScheme) Bump(pc uint64) bool {
	if s.sel.Abandoned(pc) {
		return false
	}
	s.buf[0] = profhw.MakeTuple(profhw.KindEdge, pc, 0)
	s.comp.Feed(s.buf[:])
	if s.table[pc] > s.tau {
		delete(s.table, pc) // restart, as NET's counter does
		return true
	}
	return false
}

func (s *compressorScheme) Reset() {
	s.comp.Reset(s.seed)
	clear(s.table)
}

func (s *compressorScheme) Entries() uint64 { return uint64(len(s.known)) }
func (s *compressorScheme) Close()          {}

// New makes the selection scheme o and the NET options n ask for, over
// the dispatcher's selector sel (which keeps NET's and path's counters and
// the heads recording abandoned). The RPA scheme starts a relational
// profiler session (RPA.Session) the caller must attach to the guest. A
// bad compressor or query gives an error naming it.
func New(o Options, n net.Options, sel *net.Selector) (Scheme, error) {
	switch o.Kind(n) {
	case NET, Path:
		return netScheme{sel}, nil
	case Compressor:
		if s, err := newCompressorScheme(sel, o.Compressor); err == nil {
			return s, nil
		} else {
			return nil, err
		}
	case RPA:
		if s, err := newRPA(o, sel); err == nil {
			return s, nil
		} else {
			return nil, err
		}
	}
	return nil, fmt.Errorf("rvdyn: unknown selection scheme %v", o.Scheme)
}
