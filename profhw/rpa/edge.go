// Edge profiling (Figure 2a, sec. 6.2): a guest and a sampling rate in, the sampled edge profile from a service thread, the exact one, and the sampled profile's error out.

package rpa

import (
	"errors"
	"fmt"

	"rvdyn/interp"
	"rvdyn/profhw"
)

// EdgeQuery returns the edge profiling query of Figure 2a at sampling
// period n: "for opBRANCH * every n collect pc misc; send 1 stop;" (n = 1:
// always). Misc carries the outcome (MiscTaken).
func EdgeQuery(n uint32) string {
	if n <= 1 {
		return "for opBRANCH * always collect pc misc;\nsend 1 stop;\n"
	}
	return fmt.Sprintf("for opBRANCH * every %d collect pc misc;\nsend 1 stop;\n", n)
}

// EdgeCounter is an interp.Hook that counts every conditional branch's
// outcomes exactly: the perfect edge profile the sampled one is measured
// against. Its Rows have Messages = executions.
type EdgeCounter struct {
	Rows map[uint64]PCRow
}

// NewEdgeCounter returns an empty counter.
func NewEdgeCounter() *EdgeCounter { return &EdgeCounter{Rows: map[uint64]PCRow{}} }

// Event counts one retired branch (interp.Hook; other classes are ignored).
func (c *EdgeCounter) Event(e *interp.Event) {
	if e.Class != interp.ClassBranch {
		return
	}
	r := c.Rows[e.PC]
	r.Messages++
	if e.Taken {
		r.Taken++
	} else {
		r.NotTaken++
	}
	c.Rows[e.PC] = r
}

// edgeProfile turns per-pc outcome counts into a profhw profile of edge
// tuples <pc, outcome> (1 taken, 0 not taken), so that profhw's metric
// applies.
func edgeProfile(rows map[uint64]PCRow) *profhw.Profile {
	p := profhw.NewProfile()
	for _, pc := range SortedPCs(rows) {
		r := rows[pc]
		if r.Taken > 0 {
			p.Message(profhw.MakeTuple(profhw.KindEdge, pc, 1), r.Taken)
		}
		if r.NotTaken > 0 {
			p.Message(profhw.MakeTuple(profhw.KindEdge, pc, 0), r.NotTaken)
		}
	}
	return p
}

// EdgeError is the error of a sampled edge profile against the exact one,
// by the invariance-weighted metric of profhw (stratified paper sec.
// 5.3.1, applied to edges as profhw.InvarianceErrors does): the
// execution-weighted mean, over the outcomes of branches executed at
// least f.MinExec times, of |exact share - sampled share| of each outcome
// in its branch's executions (a branch never sampled has share 0).
func EdgeError(exact, sampled map[uint64]PCRow, f profhw.InvarianceFilter) profhw.InvarianceError {
	return profhw.InvarianceErrors(edgeProfile(exact), []*profhw.Profile{edgeProfile(sampled)}, f)[0][profhw.KindEdge]
}

// EdgeResult is one run of the edge profiling application.
type EdgeResult struct {
	Rate         uint32                 // sampling period N (1/N of the branches)
	Instructions uint64                 // guest instructions retired
	Branches     uint64                 // conditional branches executed
	ExitCode     int                    // the guest's exit status
	Exact        map[uint64]PCRow       // every branch, counted by the hook
	Sampled      map[uint64]PCRow       // tabulated by the service thread
	Error        profhw.InvarianceError // Sampled against Exact, profhw.PaperFilter
	Report       Report                 // engine and queue statistics
}

// RunEdgeProfile runs a guest under the interpreter with the Figure 2a
// query at period rate, its service thread tabulating taken/not-taken per
// branch pc from queue 1, and an EdgeCounter on the same run for the exact
// profile. maxInsts bounds the run (0: none; reaching it is not an
// error). It fails if a record was lost or duplicated on its way to the
// service thread's table.
func RunEdgeProfile(image []byte, cfg interp.Config, rate uint32, seed, maxInsts uint64) (*EdgeResult, error) {
	p, err := Assemble(EdgeQuery(rate))
	if err != nil {
		return nil, err
	}
	s, err := Start(p, Options{Seed: seed}, 0)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	m, err := interp.Load(image, cfg)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	exact := NewEdgeCounter()
	s.Engine.m = m
	g := s.Engine
	m.SetHook(g.ClassMask()|interp.MaskOf(interp.ClassBranch), interp.HookFunc(func(e *interp.Event) {
		exact.Event(e)
		g.Event(e)
	}))
	runErr := m.Run(maxInsts)
	m.SetHook(0, nil)
	if runErr != nil && !errors.Is(runErr, interp.ErrLimit) {
		return nil, runErr
	}
	s.Close()
	r := &EdgeResult{Rate: rate, Instructions: m.Retired(), ExitCode: m.ExitCode(), Exact: exact.Rows,
		Sampled: s.Tables[1].Rows(), Report: s.Report()}
	for _, row := range r.Exact {
		r.Branches += row.Messages
	}
	var tabulated uint64
	for _, row := range r.Sampled {
		tabulated += row.Messages
	}
	if q := r.Report.Queues[0]; q.Sent != r.Report.Records || q.Received != q.Sent || tabulated != q.Sent {
		return nil, fmt.Errorf("rpa: edge profile lost or duplicated messages: %d records, %d sent, %d received, %d tabulated", r.Report.Records, q.Sent, q.Received, tabulated)
	}
	r.Error = EdgeError(r.Exact, r.Sampled, profhw.PaperFilter)
	return r, nil
}
