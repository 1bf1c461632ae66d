// Value profiles for specialization: the interpreter's loads -> a value profile kept by a stream compressor -> the fragment compiler's ir.ValueOracle.

package selection

import (
	"fmt"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
	"rvdyn/profhw"
)

// ValueOptions switch on value-profile-driven specialization in
// dynamo mode (issue: profiles drive the optimizer). While the guest is
// interpreted, every load's <pc, value> tuple goes into a stream
// compressor of the stratified sampling paper (Sastry, Bodik and Smith,
// sec. 3: the hardware that makes value profiles cheap enough to gather
// online); its messages build a value profile. When a trace is compiled,
// each load whose profile is dominated by one value is specialized on it
// (ir.Specialize): a guard compares the loaded value and leaves the
// fragment after the load if it differs, and constant folding propagates
// the value on the main path. That is the use the paper collects value
// profiles for (sec. 1: program specialization), done by a dynamic
// optimizer.
//
// Where we differ from the paper: it profiles whole runs offline for a
// static compiler; here the profile is what the compressor has seen
// before the trace became hot (at least the prediction delay's worth of
// executions), and guard failures feed back: a load whose guard failed
// MaxFailures times is no longer specialized by later compiles (the
// fragments already built keep their guard until the next flush; its
// exit is an ordinary branch exit, linked like any other once the code
// after the load has its own fragment).
//
// The zero value (Profile "") is off.
type ValueOptions struct {
	// Profile is the compressor in the stratified paper's notation
	// (profhw.ParseConfig: "H[P4]256", "P2", "R8", "tag2-4-256", ...), or
	// "perfect" to count every load (P1). "" switches specialization off.
	Profile string
	// MinCount is how many loads (the profile's implied count for the
	// pc) must have been seen before a pc is specialized. 0 means 32.
	MinCount uint64
	// MinInvariance is the share of those loads the top value must have
	// (the paper's invariance, sec. 5.3), 0 < x <= 1. 0 means 0.99.
	MinInvariance float64
	// MaxFailures is how many guard failures, seen by the dispatcher, stop
	// a pc from being specialized again. 0 means 16.
	MaxFailures uint64
	// Seed seeds the compressor's hash and random samplers.
	Seed uint64
}

// DefaultValueProfile is the compressor Specialize uses when asked for
// "default": the stratified periodic sampler H[P_r]_n (the paper's
// recommended design, sec. 3.2) at rate 4 with 256 substreams. The paper's
// rate 256 suits whole-run profiles of billions of events; a trace is
// compiled after about 50 executions of its head, so the rate here must
// be small for the profile to hold anything by then.
const DefaultValueProfile = "H[P4]256"

// ValueStats report value specialization (dynamo mode).
// In JSON the keys are snake_case.
type ValueStats struct {
	Profile        string `json:"profile"`           // the compressor, in the paper's notation
	LoadsProfiled  uint64 `json:"loads_profiled"`    // load tuples fed to the compressor
	Messages       uint64 `json:"messages"`          // messages the compressor sent (profile updates)
	PCs            int    `json:"pcs"`               // distinct load pcs in the value profile
	Specialized    uint64 `json:"specialized"`       // loads specialized in the fragments compiled
	GuardExits     uint64 `json:"guard_exits"`       // returns to the dispatcher through a failed guard (linked ones are not seen)
	Despecialized  int    `json:"despecialized"`     // pcs no longer specialized after MaxFailures guard failures
	Removed        uint64 `json:"fragments_removed"` // fragments taken out of the cache for it (and compiled again)
	OracleRequests uint64 `json:"oracle_requests"`   // loads the compiler asked about
}

// ValueProfile is the hook that feeds loads to the compressor, the sink
// that builds the profile from its messages, and the oracle the compiler
// asks. It belongs to the dispatcher's goroutine: the hook runs there,
// and so does every question, since the service-thread compiler
// (--compile=async) takes the answers for a trace's loads when the trace
// is queued (frozenValues, compilequeue.go), not while it compiles.
type ValueProfile struct {
	opts ValueOptions
	comp profhw.Compressor
	prof *profhw.Profile
	top  map[uint64]topValue // by tagged pc: the value with the highest count so far
	fail map[uint64]uint64   // by guest pc: guard failures seen
	buf  []profhw.Tuple
	st   ValueStats
}

type topValue struct{ value, count uint64 }

// newValueProfile builds the profile o describes; an unknown compressor
// is an error that names the notation.
func NewValueProfile(o ValueOptions) (*ValueProfile, error) {
	name := o.Profile
	switch name {
	case "perfect":
		name = "P1"
	case "default":
		name = DefaultValueProfile
	}
	c, err := profhw.ParseConfig(name)
	if err != nil {
		return nil, fmt.Errorf("rvdyn: value profile: %w", err)
	}
	if o.MinCount == 0 {
		o.MinCount = 32
	}
	if o.MinInvariance == 0 {
		o.MinInvariance = 0.99
	}
	if o.MinInvariance < 0 || o.MinInvariance > 1 {
		return nil, fmt.Errorf("rvdyn: value profile: invariance %g is not in (0, 1]", o.MinInvariance)
	}
	if o.MaxFailures == 0 {
		o.MaxFailures = 16
	}
	v := &ValueProfile{opts: o, prof: profhw.NewProfile(), top: map[uint64]topValue{}, fail: map[uint64]uint64{},
		buf: make([]profhw.Tuple, 0, profhw.BatchSize)}
	v.st.Profile = c.String()
	if v.comp, err = c.NewCompressor(o.Seed, profhw.SinkFunc(v.message)); err != nil {
		return nil, fmt.Errorf("rvdyn: value profile: %w", err)
	}
	return v, nil
}

// Event feeds one retired load (the hook's mask selects loads only).
func (v *ValueProfile) Event(e *interp.Event) {
	v.buf = append(v.buf, profhw.MakeTuple(profhw.KindValue, e.PC, e.Value))
	if len(v.buf) == cap(v.buf) {
		v.flush()
	}
}

// flush feeds the pending tuples.
func (v *ValueProfile) flush() {
	if len(v.buf) == 0 {
		return
	}
	v.st.LoadsProfiled += uint64(len(v.buf))
	v.comp.Feed(v.buf)
	v.buf = v.buf[:0]
}

// message is the compressor's sink: it folds (t, count) into the profile
// and keeps the pc's top value.
func (v *ValueProfile) message(t profhw.Tuple, count uint64) {
	v.prof.Message(t, count)
	if n := v.prof.Count(t); n > v.top[t.PC].count {
		v.top[t.PC] = topValue{t.Val, n}
	}
}

// Invariant implements ir.ValueOracle.
func (v *ValueProfile) Invariant(pc uint64) (uint64, bool) {
	v.flush()
	v.st.OracleRequests++
	if v.fail[pc] >= v.opts.MaxFailures {
		return 0, false
	}
	key := profhw.MakeTuple(profhw.KindValue, pc, 0).PC
	total := v.prof.PCCount(key)
	t := v.top[key]
	if total < v.opts.MinCount || float64(t.count) < v.opts.MinInvariance*float64(total) {
		return 0, false
	}
	return t.value, true
}

// Failed records a guard failure of the load at pc and reports whether
// the pc has now failed MaxFailures times: the fragment whose guard
// failed should go (the dispatcher removes it, and its head is compiled
// again, without this specialization).
func (v *ValueProfile) Failed(pc uint64) bool {
	v.st.GuardExits++
	v.fail[pc]++
	if v.fail[pc] == v.opts.MaxFailures {
		v.st.Despecialized++
	}
	return v.fail[pc] >= v.opts.MaxFailures
}

// Stats returns the counters so far.
func (v *ValueProfile) Stats() *ValueStats {
	st := v.st
	st.Messages, st.PCs = v.prof.Messages(), len(v.top)
	return &st
}

// Removed counts a fragment the dispatcher took out of the cache because
// Failed said so.
func (v *ValueProfile) Removed() { v.st.Removed++ }

// Compiled counts the loads a compile specialized.
func (v *ValueProfile) Compiled(n int) { v.st.Specialized += uint64(n) }

var _ ir.ValueOracle = (*ValueProfile)(nil)
