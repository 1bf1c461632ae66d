// Online trace metrics: the dispatcher's compiled traces and flushes in, a log; after the run, a profiling run of the same guest scores it (hit rate, noise, missed-opportunity cost) into Stats.TraceMetrics.

package engine

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"rvdyn/net"
)

// TraceMetrics are the NET paper's prediction metrics (sections 3 and 5)
// of the traces a dispatcher run actually compiled, scored against the
// run's own path profile (SelectOptions.Metrics, net.ScoreSelection). Rates
// are percentages of the hot flow; ProfiledFlow is a percentage of the
// flow.
type TraceMetrics struct {
	Delay        int     `json:"delay"`           // tau of the run
	Hot          float64 `json:"hot"`             // hot threshold, fraction of the flow
	Compiled     int     `json:"compiled"`        // traces compiled (predictions)
	ExactHeads   int     `json:"exact_heads"`     // of which at a path head (the others at a code cache exit's target)
	Predicted    int     `json:"predicted"`       // distinct paths predicted
	PredictedHot int     `json:"predicted_hot"`   // of which hot
	HitRate      float64 `json:"hit_rate"`        // captured hot flow, % of the hot flow
	NoiseRate    float64 `json:"noise_rate"`      // captured cold flow, % of the hot flow
	MOCRate      float64 `json:"moc_rate"`        // missed-opportunity cost, % of the hot flow
	ProfiledFlow float64 `json:"profiled_flow"`   // flow not captured, % of the flow
	Flow         uint64  `json:"flow"`            // path executions of the profiling run
	Instructions uint64  `json:"instructions"`    // guest instructions the profiling run retired
	Match        bool    `json:"match"`           // ... as many as the dispatcher's run
	ScoreTime    float64 `json:"score_seconds"`   // wall time of the profiling run (not part of the run's Wall)
	Error        string  `json:"error,omitempty"` // why scoring failed, if it did
}

// traceMetrics is a run's selection log and, after the run, its score.
type traceMetrics struct {
	noEvents
	guest  net.Guest
	stdin  *bytes.Buffer // what the guest read from standard input, replayed
	hot    float64
	log    []net.SelectionEvent
	result *TraceMetrics
}

// newTraceMetrics prepares scoring for a run of image with o, and makes o's
// standard input a tee into a buffer so that the profiling run reads the
// same bytes.
func newTraceMetrics(image []byte, o *Options) *traceMetrics {
	t := &traceMetrics{hot: o.Select.Hot}
	if t.hot <= 0 {
		t.hot = net.DefaultHot
	}
	cfg := o.Config
	// The profiling run's output goes nowhere, but where the guest had a
	// file it still has one (a write to a missing one fails, which the
	// guest may notice).
	if cfg.Stdout != nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr != nil {
		cfg.Stderr = io.Discard
	}
	cfg.Strace = nil
	if o.Stdin != nil {
		t.stdin = new(bytes.Buffer)
		in := o.Stdin
		o.Config.Stdin = io.TeeReader(in, t.stdin)
		if f, ok := in.(*os.File); ok {
			// A read of it can still wait in poll, where the timeout
			// or a signal can end it.
			o.Config.Stdin = teeFile{o.Config.Stdin, f}
		}
	}
	t.guest = net.Guest{Image: image, Config: cfg}
	return t
}

// teeFile is a tee of standard input that says which host file it reads
// (interp.StreamFile).
type teeFile struct {
	io.Reader
	f *os.File
}

func (t teeFile) File() *os.File { return t.f }

// traced logs a compiled trace whose head pc was predicted when at
// instructions had retired.
func (t *traceMetrics) traced(at, pc uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Head: pc})
}

// flushed logs a code cache flush.
func (t *traceMetrics) flushed(at uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Flush: true})
}

// removed logs that the fragment at head pc was removed, when at
// instructions had retired.
func (t *traceMetrics) removed(at, pc uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Head: pc, Remove: true})
}

// fill puts the score in a stats snapshot (nil before the run ends).
func (t *traceMetrics) fill(s *Stats) { s.TraceMetrics = t.result }

// finished scores the run. A timed-out run is not scored: the profiling
// run would take as long again (and replay any sleep).
func (t *traceMetrics) finished(vm *VM, err error) {
	if errors.Is(err, ErrTimeout) {
		t.result = &TraceMetrics{Delay: vm.sel.Delay(), Hot: t.hot, Error: "not scored: the run timed out"}
		return
	}
	t.score(vm)
}

// score runs the profiling run for as many instructions as vm retired and
// stores the result.
func (t *traceMetrics) score(vm *VM) {
	start := time.Now()
	g := t.guest
	g.MaxInstructions = vm.m.Retired()
	if t.stdin != nil {
		g.Config.Stdin = bytes.NewReader(t.stdin.Bytes())
	}
	tau := vm.sel.Delay()
	tm := &TraceMetrics{Delay: tau, Hot: t.hot}
	r, err := net.ScoreSelection(g, t.log, tau, t.hot)
	if err != nil {
		tm.Error = err.Error()
	} else {
		tm.Compiled, tm.ExactHeads, tm.Flow = r.Compiled, r.ExactHeads, r.Flow
		tm.Predicted, tm.PredictedHot = r.Predicted, r.PredictedHot
		tm.HitRate, tm.NoiseRate, tm.MOCRate, tm.ProfiledFlow = r.HitRate, r.NoiseRate, r.MOCRate, r.ProfiledFlow
		tm.Instructions = r.Instructions
		tm.Match = r.Instructions == vm.m.Retired()
	}
	tm.ScoreTime = time.Since(start).Seconds()
	t.result = tm
}

// notProfiled accounts a recording that compiled nothing: under path
// profile prediction that is the profiling of a path, main-thread
// selection work (Stats.SelectTime, when measured).
func (vm *VM) notProfiled(d time.Duration) {
	if vm.opts.Select.Metrics && vm.sel.Predict() == net.PredictPath {
		vm.ctr.selectTime += d
	}
}
