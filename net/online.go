// Online prediction metrics: the dispatcher's log of compiled traces and flushes plus the run's own path profile -> hit rate, noise and missed-opportunity cost of what was actually built (sections 3 and 6).

package net

import (
	"errors"
	"fmt"

	"rvdyn/interp"
)

// A SelectionEvent is one entry of a dispatcher's selection log, in the
// order the dispatcher acted: a trace compiled and inserted into the code
// cache, or a flush of the whole cache.
type SelectionEvent struct {
	// At is the guest instructions retired before the event: for a
	// trace, before its head's instruction executed at the moment the
	// head was predicted (before recording); for a flush, when it
	// happened.
	At uint64
	// Head is the trace's head pc (0 for a flush).
	Head uint64
	// Flush marks a flush: every trace compiled before it is gone.
	Flush bool
	// Remove marks the removal of the trace at Head alone (a phase
	// flush that keeps the new phase's traces, a failed value
	// specialization).
	Remove bool
}

// An OnlineResult scores the traces a dispatcher compiled against the
// run's path profile.
type OnlineResult struct {
	Result
	// Compiled is the traces in the log; ExactHeads is those whose head
	// began a path execution (the target of a taken backward transfer);
	// the others began inside a path, at a code cache exit's target,
	// Dynamo's addition to the head rule that the path model lacks.
	Compiled, ExactHeads int
	// Flow is the path executions of the profiling run, Instructions its
	// retired instructions (equal to the dispatcher run's for a
	// deterministic guest).
	Flow, Instructions uint64
}

// An onlineScorer is a PathSink that replays a selection log against the
// path executions of a run in program order. A trace compiled at time At
// predicts the path execution in progress at At (the one starting at At
// when the head is a path head); from then until the next flush, every
// execution of that path is captured. As in NETPredictor, the predicting
// execution is captured too.
type onlineScorer struct {
	log      []SelectionEvent
	next     int
	retired  func() uint64
	start    uint64  // retired count when the open path execution began
	live     []int32 // by PathID: how many compiled traces predict the path
	liveList []PathID
	byHead   map[uint64][]PathID // the paths each live trace predicts, by head
	captured []uint64
	exact    int
}

// PathExecuted consumes one path execution (PathSink). The machine's
// retired count when the profiler reports a path is where the next one
// begins: the interpreter calls its hook after retiring the transfer.
func (o *onlineScorer) PathExecuted(p PathID, _ HeadID) {
	end := o.retired()
	for int(p) >= len(o.live) {
		o.live = append(o.live, 0)
		o.captured = append(o.captured, 0)
	}
	if o.byHead == nil {
		o.byHead = map[uint64][]PathID{}
	}
	for o.next < len(o.log) && o.log[o.next].At < end {
		ev := o.log[o.next]
		o.next++
		switch {
		case ev.Flush:
			for _, q := range o.liveList {
				o.live[q] = 0
			}
			o.liveList = o.liveList[:0]
			clear(o.byHead)
			continue
		case ev.Remove:
			for _, q := range o.byHead[ev.Head] {
				o.live[q]--
			}
			delete(o.byHead, ev.Head)
			continue
		}
		if ev.At == o.start {
			o.exact++
		}
		if o.live[p] == 0 {
			o.liveList = append(o.liveList, p)
		}
		o.live[p]++
		o.byHead[ev.Head] = append(o.byHead[ev.Head], p)
	}
	if o.live[p] > 0 {
		o.captured[p]++
	}
	o.start = end
}

// ScoreSelection measures a dispatcher's selection: it interprets the
// guest g with a path Profiler attached (the profiling cost is paid by
// this second run, not by the dispatcher's) and replays log, the
// dispatcher's trace and flush events in the order it acted, against the
// path executions, scored with Score at delay tau and hot threshold hot
// as the NET scheme. The result's CounterSpace is left to the caller,
// which knows the scheme's counters.
//
// The two runs line up by retired instruction count, which is exact for a
// deterministic guest (same input, no dependence on the clock or on a
// host collector): g.Config should carry the same argv, environment and
// standard input as the dispatcher's run.
func ScoreSelection(g Guest, log []SelectionEvent, tau int, hot float64) (*OnlineResult, error) {
	m, err := interp.Load(g.Image, g.Config)
	if err != nil {
		return nil, fmt.Errorf("net: loading guest: %w", err)
	}
	defer m.Close()
	o := &onlineScorer{log: log, retired: m.Retired}
	pr := NewProfiler(m.CPU.PC, o)
	pr.Attach(m)
	runErr := m.Run(g.MaxInstructions)
	m.SetHook(0, nil)
	prof := pr.Finish()
	if runErr != nil && !errors.Is(runErr, interp.ErrLimit) {
		if _, fault := runErr.(*interp.Fault); !fault {
			return nil, fmt.Errorf("net: profiling run: %w", runErr)
		}
	}
	r := &OnlineResult{Result: Score(prof, SchemeNET, tau, o.captured, hot), ExactHeads: o.exact,
		Flow: prof.Flow, Instructions: m.Retired()}
	for _, ev := range log {
		if !ev.Flush && !ev.Remove {
			r.Compiled++
		}
	}
	return r, nil
}
