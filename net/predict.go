// Offline prediction: path executions in program order -> NET and path profile predictions at several delays, scored (sections 4 and 5).

package net

import (
	"errors"
	"fmt"
	"slices"

	"rvdyn/interp"
)

// A NETPredictor replays NET prediction (section 4.1) over path executions
// as they happen, with prediction delay tau. It counts path heads with a
// Selector, the dispatcher's own trace selection (keyed by HeadID), and
// keeps the set of predicted paths:
//
//   - an execution of a predicted path is captured (it runs as a
//     fragment) and touches no counter;
//   - any other execution from head h is a Selector.Bump of h; when that
//     predicts h hot, the path executing now, the next executing tail, is
//     predicted and this execution is its first captured one; the
//     counter restarts, so another path from h can be predicted after
//     tau more uncaptured executions from h.
//
// The rule that the predicting execution is captured makes a lone path
// through a loop capture freq(p) - tau under both schemes.
//
// With once set (NewNETPredictorOnce), a head that predicted a path is no
// longer counted, as in the dispatcher, where the head's executions enter
// its fragment and a path leaving the fragment early reaches an exit
// target (a head of its own there, which the path model lacks) instead of
// counting the head again.
type NETPredictor struct {
	once     bool
	sel      *Selector
	captured []uint64 // by PathID; > 0 once predicted
}

// NewNETPredictor returns a NET predictor with delay tau (values below 1
// mean 0: the offline sweep counts tau plainly, see DelayOf).
func NewNETPredictor(tau int) *NETPredictor {
	return &NETPredictor{sel: NewSelector(Options{Delay: DelayOf(tau)})}
}

// NewNETPredictorOnce returns a NET predictor with delay tau that predicts
// one path per head, as the dispatcher does (SchemeNETOnce).
func NewNETPredictorOnce(tau int) *NETPredictor {
	n := NewNETPredictor(tau)
	n.once = true
	return n
}

// Delay returns tau.
func (n *NETPredictor) Delay() int { return n.sel.Delay() }

// PathExecuted consumes one path execution (PathSink).
func (n *NETPredictor) PathExecuted(p PathID, h HeadID) {
	if int(p) >= len(n.captured) {
		n.captured = append(n.captured, make([]uint64, int(p)+1-len(n.captured))...)
	}
	if n.captured[p] > 0 {
		n.captured[p]++
		return
	}
	if n.sel.Bump(uint64(h)) {
		n.captured[p] = 1
		if n.once {
			n.sel.Abandon(uint64(h))
		}
	}
}

// Captured returns the flow captured per path so far (indexed by PathID;
// 0 for paths not predicted). The slice is the predictor's own.
func (n *NETPredictor) Captured() []uint64 { return n.captured }

// An Analysis is the outcome of the prediction experiment on one run:
// the profile's Table 1/2 summary and one Result per scheme and delay.
type Analysis struct {
	Summary Summary
	Results []Result // for each delay in order: path profile, NET, NET once
}

// Find returns the result of scheme s at delay tau, or nil.
func (a *Analysis) Find(s Scheme, tau int) *Result {
	for i := range a.Results {
		if r := &a.Results[i]; r.Scheme == s && r.Delay == tau {
			return r
		}
	}
	return nil
}

// Delays returns the delays evaluated, in order.
func (a *Analysis) Delays() []int {
	var d []int
	for _, r := range a.Results {
		if r.Scheme == SchemePathProfile {
			d = append(d, r.Delay)
		}
	}
	return d
}

// Analyze scores the schemes at each delay of nets (NET predictors that
// saw every execution of prof, a NETPredictor and a NewNETPredictorOnce
// one per delay, in that order) with hot threshold hot (a fraction).
func Analyze(prof *Profile, nets []*NETPredictor, hot float64) *Analysis {
	a := &Analysis{Summary: Summarize(prof, hot)}
	for i := 0; i+1 < len(nets); i += 2 {
		n, once := nets[i], nets[i+1]
		tau := n.Delay()
		a.Results = append(a.Results,
			Score(prof, SchemePathProfile, tau, PathProfileCaptured(prof, tau), hot),
			Score(prof, SchemeNET, tau, n.Captured(), hot),
			Score(prof, SchemeNETOnce, tau, once.Captured(), hot))
	}
	return a
}

// Replay runs the experiment on a recorded profile (one with Order, or a
// hand-made one): it feeds prof.Order to a NET predictor per delay and
// analyzes the result.
func Replay(prof *Profile, delays []int, hot float64) *Analysis {
	nets := newNETs(delays)
	for _, p := range prof.Order {
		for _, n := range nets {
			n.PathExecuted(p, prof.Paths[p].Head)
		}
	}
	return Analyze(prof, nets, hot)
}

// newNETs returns, per delay, a NET predictor and a one-per-head one.
func newNETs(delays []int) []*NETPredictor {
	nets := make([]*NETPredictor, 0, 2*len(delays))
	for _, d := range delays {
		nets = append(nets, NewNETPredictor(d), NewNETPredictorOnce(d))
	}
	return nets
}

// A Guest describes a guest run for the experiment.
type Guest struct {
	Image           []byte        // the guest ELF file
	Config          interp.Config // argv, environment, files (nil output discards)
	MaxInstructions uint64        // stop after this many instructions; 0 = run to exit
}

// A GuestRun is what RunGuest observed.
type GuestRun struct {
	Profile      *Profile
	Analysis     *Analysis
	Instructions uint64 // guest instructions retired
	ExitCode     int
	Limited      bool // stopped by MaxInstructions
}

// RunGuest interprets the guest with a path Profiler attached, replays
// NET at every delay online (nothing per execution is stored), and scores
// both schemes with hot threshold hot. A guest fault is returned (wrapped
// *interp.Fault) with the run so far.
func RunGuest(g Guest, delays []int, hot float64) (*GuestRun, error) {
	if len(delays) == 0 {
		return nil, errors.New("net: no prediction delays")
	}
	if !slices.IsSorted(delays) {
		delays = slices.Sorted(slices.Values(delays))
	}
	m, err := interp.Load(g.Image, g.Config)
	if err != nil {
		return nil, fmt.Errorf("net: loading guest: %w", err)
	}
	defer m.Close()
	nets := newNETs(delays)
	sinks := make([]PathSink, len(nets))
	for i, n := range nets {
		sinks[i] = n
	}
	pr := NewProfiler(m.CPU.PC, sinks...)
	pr.Attach(m)
	runErr := m.Run(g.MaxInstructions)
	m.SetHook(0, nil)
	prof := pr.Finish()
	run := &GuestRun{Profile: prof, Analysis: Analyze(prof, nets, hot), Instructions: m.Retired(),
		ExitCode: m.ExitCode(), Limited: errors.Is(runErr, interp.ErrLimit)}
	if runErr != nil && !run.Limited {
		return run, fmt.Errorf("net: guest stopped: %w", runErr)
	}
	return run, nil
}
