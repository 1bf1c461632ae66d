// Online trace metrics: the dispatcher's compiled traces and flushes in, a log; after the run, a profiling run of the same guest scores it (hit rate, noise, missed-opportunity cost).

package selection

import (
	"bytes"
	"io"
	"os"
	"time"

	"rvdyn/interp"
	"rvdyn/net"
)

// TraceMetrics are the NET paper's prediction metrics (sections 3 and 5)
// of the traces a dispatcher run actually compiled, scored against the
// run's own path profile (Options.Metrics, net.ScoreSelection). Rates
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

// Metrics is a run's selection log and, after the run, its score: the
// engine tells it of every trace compiled, fragment removed and cache
// flushed, and has it score the run when the run ends.
type Metrics struct {
	guest  net.Guest
	stdin  *bytes.Buffer // what the guest read from standard input, replayed
	hot    float64
	log    []net.SelectionEvent
	result *TraceMetrics
}

// NewMetrics prepares scoring for a run of image with the guest process
// cfg and hot threshold hot (a fraction of the flow; 0 means
// net.DefaultHot), and makes cfg's standard input a tee into a buffer so
// that the profiling run reads the same bytes.
func NewMetrics(image []byte, cfg *interp.Config, hot float64) *Metrics {
	o := cfg
	t := &Metrics{hot: hot}
	if t.hot <= 0 {
		t.hot = net.DefaultHot
	}
	pcfg := *o
	// The profiling run's output goes nowhere, but where the guest had a
	// file it still has one (a write to a missing one fails, which the
	// guest may notice).
	if pcfg.Stdout != nil {
		pcfg.Stdout = io.Discard
	}
	if pcfg.Stderr != nil {
		pcfg.Stderr = io.Discard
	}
	pcfg.Strace = nil
	if o.Stdin != nil {
		t.stdin = new(bytes.Buffer)
		in := o.Stdin
		o.Stdin = io.TeeReader(in, t.stdin)
		if f, ok := in.(*os.File); ok {
			// A read of it can still wait in poll, where the timeout
			// or a signal can end it.
			o.Stdin = teeFile{o.Stdin, f}
		}
	}
	t.guest = net.Guest{Image: image, Config: pcfg}
	return t
}

// teeFile is a tee of standard input that says which host file it reads
// (interp.StreamFile).
type teeFile struct {
	io.Reader
	f *os.File
}

// File returns the host file the tee reads.
func (t teeFile) File() *os.File { return t.f }

// Traced logs a compiled trace whose head pc was predicted when at
// instructions had retired.
func (t *Metrics) Traced(at, pc uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Head: pc})
}

// Flushed logs a code cache flush.
func (t *Metrics) Flushed(at uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Flush: true})
}

// Removed logs that the fragment at head pc was removed, when at
// instructions had retired.
func (t *Metrics) Removed(at, pc uint64) {
	t.log = append(t.log, net.SelectionEvent{At: at, Head: pc, Remove: true})
}

// Result is the score, nil before Score or NotScored.
func (t *Metrics) Result() *TraceMetrics { return t.result }

// NotScored records that the run at delay tau is not scored, and why.
func (t *Metrics) NotScored(tau int, why string) {
	t.result = &TraceMetrics{Delay: tau, Hot: t.hot, Error: "not scored: " + why}
}

// Score runs the profiling run for as many instructions as the run
// retired (retired), at the run's delay tau, and stores the result.
func (t *Metrics) Score(retired uint64, tau int) {
	start := time.Now()
	g := t.guest
	g.MaxInstructions = retired
	if t.stdin != nil {
		g.Config.Stdin = bytes.NewReader(t.stdin.Bytes())
	}
	tm := &TraceMetrics{Delay: tau, Hot: t.hot}
	r, err := net.ScoreSelection(g, t.log, tau, t.hot)
	if err != nil {
		tm.Error = err.Error()
	} else {
		tm.Compiled, tm.ExactHeads, tm.Flow = r.Compiled, r.ExactHeads, r.Flow
		tm.Predicted, tm.PredictedHot = r.Predicted, r.PredictedHot
		tm.HitRate, tm.NoiseRate, tm.MOCRate, tm.ProfiledFlow = r.HitRate, r.NoiseRate, r.MOCRate, r.ProfiledFlow
		tm.Instructions = r.Instructions
		tm.Match = r.Instructions == retired
	}
	tm.ScoreTime = time.Since(start).Seconds()
	t.result = tm
}
