// Online trace metrics in a run: the selection log (package selection) attached to the run; its score goes into Stats.TraceMetrics.

package engine

import (
	"errors"
	"time"

	"rvdyn/internal/selection"
	"rvdyn/net"
)

// metricsRun is the attachment of SelectOptions.Metrics: it logs the
// traces compiled, the fragments removed and the flushes, and scores the
// run when it ends.
type metricsRun struct {
	noEvents
	t *selection.Metrics
}

func (r metricsRun) traced(at, pc uint64)  { r.t.Traced(at, pc) }
func (r metricsRun) removed(at, pc uint64) { r.t.Removed(at, pc) }
func (r metricsRun) flushed(at uint64)     { r.t.Flushed(at) }
func (r metricsRun) fill(s *Stats)         { s.TraceMetrics = r.t.Result() }

// finished scores the run. A timed-out run is not scored: the profiling
// run would take as long again (and replay any sleep).
func (r metricsRun) finished(vm *VM, err error) {
	if errors.Is(err, ErrTimeout) {
		r.t.NotScored(vm.sel.Delay(), "the run timed out")
		return
	}
	r.t.Score(vm.m.Retired(), vm.sel.Delay())
}

// notProfiled accounts a recording that compiled nothing: under path
// profile prediction that is the profiling of a path, main-thread
// selection work (Stats.SelectTime, when measured).
func (vm *VM) notProfiled(d time.Duration) {
	if vm.opts.Select.Metrics && vm.sel.Predict() == net.PredictPath {
		vm.ctr.selectTime += d
	}
}
