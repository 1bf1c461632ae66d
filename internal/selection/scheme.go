// Trace selection schemes: trace-head candidate events in, "record the next executing tail from here now" out, by NET counters, path counters, the stratified-sampling compressor or a relational-profiler service thread.

package engine

import (
	"fmt"
	"strings"
	"time"

	"rvdyn/net"
	"rvdyn/profhw"
)

// A Select names a trace selection scheme: what decides that a trace head
// is hot. The zero value is SelectNET. Every scheme sees the same
// trace-head candidates (targets of taken backward branches and jumps
// reached by the interpreter, and targets of code cache exits), records
// traces with the same NET end-of-trace rules and compiles them the same
// way; only which heads are predicted, and when, differs.
type Select uint8

// The selection schemes.
const (
	// SelectNET is NET (net.PredictNET): one software counter per head,
	// bumped on the main thread; hot when it exceeds the delay.
	SelectNET Select = iota
	// SelectPath is path profile based prediction (net.PredictPath):
	// every path from a head is recorded and counted; a path is compiled
	// once its own counter exceeds the delay.
	SelectPath
	// SelectCompressor feeds every candidate, as the tuple <head, 0>, to
	// a stratified-sampling compressor (SelectOptions.Compressor,
	// H[P256]2048 by default: the stratified sampling paper's
	// configuration) and counts the (tuple, count) messages it sends in a
	// software counter table; a head is hot when its entry exceeds the
	// delay. The compressor's n hardware counters replace NET's one
	// counter per head; the table only holds heads that got a message.
	SelectCompressor
	// SelectRPA runs an edge query in the relational profiler (every
	// SelectOptions.RPAPeriod-th conditional branch and
	// RPAJumpPeriod-th jump, collecting pc, next pc and misc) whose service thread counts transfer
	// targets and hands hot heads to the dispatcher through a queue
	// (headQueue): the counting leaves the main thread, which only polls
	// the queue at trace-head candidates.
	SelectRPA
	NumSelects
)

var selectNames = [NumSelects]string{"net", "path", "compressor", "rpa"}

// String returns the scheme's command-line name.
func (s Select) String() string {
	if s < NumSelects {
		return selectNames[s]
	}
	return fmt.Sprintf("Select(%d)", uint8(s))
}

// MarshalText makes a Select appear by name in JSON.
func (s Select) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSelect parses "net", "path", "compressor" or "rpa" (any case).
func ParseSelect(s string) (Select, error) {
	for i, n := range selectNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Select(i), nil
		}
	}
	return 0, fmt.Errorf("unknown selection scheme %q (want net, path, compressor or rpa)", s)
}

// DefaultCompressor is SelectCompressor's default compressor, in profhw's
// notation: the stratified periodic sampler H[P_256]_2048 of the
// stratified sampling paper (section 5, Figure 7).
const DefaultCompressor = "H[P256]2048"

// DefaultRPAPeriod is SelectRPA's default sampling period for conditional
// branches: 256, the period of the relational profiling paper's edge
// query (Figure 2a). Each message counts 256 executions toward its
// target's counter, so with a delay below 256 a target is hot at its
// first sample, as with the compressor's P256. A branch's query runs
// inside fragments (rpa.Engine.Native); at period 16 the guests spent
// much of their time in the exits taken when the gaps drawn ahead run
// out (sieve: 0.12 s against NET's 0.03 s; 0.08 s at 256).
const DefaultRPAPeriod = 256

// DefaultRPAJumpPeriod is SelectRPA's default sampling period for jumps
// (jal, jalr), whose queries leave native code for the engine in Go (an
// ExitSample exit). Sampling them more rarely costs more than it saves:
// return targets then get hot late and the fragments leave through
// unlinked exits (bintree: 0.09 s at 256, 0.14 s at 1024, 0.50 s at 8192).
const DefaultRPAJumpPeriod = 256

// SelectOptions configure trace selection beyond NET's delay and trace
// length (Options.NET). The zero value selects with NET and measures
// nothing:
//
//	field       default               meaning
//	Scheme      SelectNET             the scheme (SelectPath is also asked for by NET.Predict = net.PredictPath)
//	Compressor  DefaultCompressor     SelectCompressor's compressor, profhw notation (R256, H[P256]2048, tag2-256-2048, ...)
//	RPAPeriod   DefaultRPAPeriod (256)  SelectRPA's edge query samples every RPAPeriod-th conditional branch
//	RPAJumpPeriod DefaultRPAJumpPeriod (256) ... and every RPAJumpPeriod-th jump
//	RPASync     false                 SelectRPA: the dispatcher waits for the service thread at each poll (deterministic)
//	Metrics     false                 score the compiled traces against the run's path profile (TraceMetrics)
//	Hot         net.DefaultHot        Metrics' hot threshold, a fraction of the flow
type SelectOptions struct {
	// Scheme is the selection scheme.
	Scheme Select
	// Compressor is SelectCompressor's compressor in profhw notation
	// (profhw.ParseConfig; interval profilers are not accepted). Empty
	// means DefaultCompressor.
	Compressor string
	// RPAPeriod is SelectRPA's sampling period N ("every N"; 1 samples
	// every execution). 0 means DefaultRPAPeriod.
	RPAPeriod uint32
	// RPAJumpPeriod is the same for jumps (jal, jalr). 0 means
	// DefaultRPAJumpPeriod.
	RPAJumpPeriod uint32
	// RPASync makes the dispatcher, at each poll of SelectRPA's queue,
	// wait until the service thread has handled every message sent so
	// far: the traces compiled are then the same from run to run, for
	// tests. Without it the service thread runs freely and the set of
	// traces may vary (output, exit status and instruction counts never
	// do).
	RPASync bool
	// Metrics, after the run, interprets the guest again with the path
	// profiler and scores the traces the dispatcher compiled (hit rate,
	// noise, missed-opportunity cost: net.ScoreSelection); Stats carries
	// the result in TraceMetrics. It also times the scheme's main-thread
	// work (Stats.SelectTime). The second run is not part of Stats.Wall.
	// Standard input is buffered during the run and replayed.
	Metrics bool
	// Hot is Metrics' hot threshold as a fraction of the flow (0 means
	// net.DefaultHot, the paper's 0.1%).
	Hot float64
}

// scheme returns the scheme o and the NET options ask for.
func (o SelectOptions) scheme(n net.Options) Select {
	if o.Scheme == SelectNET && n.Predict == net.PredictPath {
		return SelectPath
	}
	return o.Scheme
}

// A headScheme decides at trace-head candidates whether to record now.
// Its methods run on the dispatcher's goroutine.
type headScheme interface {
	// bump counts one execution of the candidate at pc (a head without a
	// fragment) and reports whether to record its next executing tail.
	bump(pc uint64) bool
	// reset starts prediction afresh after a code cache flush.
	reset()
	// entries is the counter space the scheme used: counters or table
	// entries, the most held at once or ever (see each scheme).
	entries() uint64
	// close releases the scheme's resources (service threads).
	close()
}

// netScheme is NET and path prediction: net.Selector's own counters.
type netScheme struct{ sel *net.Selector }

func (s netScheme) bump(pc uint64) bool { return s.sel.Bump(pc) }
func (s netScheme) reset()              {} // vm.flush resets the selector
func (s netScheme) close()              {}
func (s netScheme) entries() uint64 {
	st := s.sel.Stats()
	if s.sel.Predict() == net.PredictPath {
		return st.Paths
	}
	return st.Heads
}

// compressorScheme is SelectCompressor: candidates in as tuples, the
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

// bump feeds the candidate to the compressor. A message for another head
// (the compressor sends whichever tuple made a counter reach its rate)
// counts for that head, which is predicted at its own next candidate.
func (s *compressorScheme) bump(pc uint64) bool {
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

func (s *compressorScheme) reset() {
	s.comp.Reset(s.seed)
	clear(s.table)
}

func (s *compressorScheme) entries() uint64 { return uint64(len(s.known)) }
func (s *compressorScheme) close()          {}

// newScheme makes the selection scheme o asks for.
func (vm *VM) newScheme(o SelectOptions) (headScheme, error) {
	switch o.scheme(vm.opts.NET) {
	case SelectNET, SelectPath:
		return netScheme{vm.sel}, nil
	case SelectCompressor:
		if s, err := newCompressorScheme(vm.sel, o.Compressor); err == nil {
			return s, nil
		} else {
			return nil, err
		}
	case SelectRPA:
		if s, err := vm.newRPAScheme(o); err == nil {
			return s, nil
		} else {
			return nil, err
		}
	}
	return nil, fmt.Errorf("rvdyn: unknown selection scheme %v", o.Scheme)
}

// bump asks the scheme about the candidate at pc, timing it when the
// run measures its selection.
func (vm *VM) bump(pc uint64) bool {
	if !vm.opts.Select.Metrics {
		return vm.scheme.bump(pc)
	}
	t := time.Now()
	hot := vm.scheme.bump(pc)
	vm.ctr.selectTime += time.Since(t)
	return hot
}
