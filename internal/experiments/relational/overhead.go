// Main-thread cost of profiling (sec. 6.2's "under 0.5%", measured rather than simulated): guests and sampling periods in; main-thread time in dynamo mode with the edge query (and query d) installed vs without, as ratios of medians out, as rows and a table.

package relational

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"rvdyn"
	"rvdyn/bench"
	"rvdyn/interp"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// QueryD is the paper's query d) (Figure 2d): every instruction class,
// every 1024.
const QueryD = "for opJMP * opBRANCH * opLOAD * opSTORE * opALU * opMULT * opFLOAT * opSYS * every 1024 collect pc rrate; send 4 stop;"

// OverheadConfig selects what RunOverhead measures.
type OverheadConfig struct {
	// Periods are the edge query's sampling periods N (in 1..rpa.MaxRate),
	// one query "edge 1/N" each.
	Periods []int
	// QueryD adds the paper's query d) (QueryD), "d) 1/1024".
	QueryD bool
	// Runs of each configuration (at least one), interleaved.
	Runs int
	// Seed seeds the random sampling.
	Seed uint64
	// MaxSleep is the longest sleep of an idle service thread (0:
	// mq.DefaultBackoff's).
	MaxSleep time.Duration
	// PollInterval is how long a spinning service thread waits between
	// polls (mq.Backoff.Interval; 0: the default, negative: back to back).
	PollInterval time.Duration
	// Interpreted keeps the selected instructions interpreted
	// (rvdyn.Options.ProfilerInterpreted) instead of emitting the sampling
	// decision into fragments.
	Interpreted bool
	// NoNative runs sampled queries in Go after a sample exit
	// (rvdyn.Options.ProfilerNoNative) instead of in the fragments.
	NoNative bool
	// CountdownInMemory keeps the sampling countdowns in State
	// (rvdyn.Options.ProfilerCountdownInMemory) instead of the sampled
	// entry's in a host register across fragments.
	CountdownInMemory bool
	// CompareNative measures every query twice, as NoNative says and in
	// Go after a sample exit (rows named "... go"), interleaved.
	CompareNative bool
}

// An OverheadRow is one guest with one query: one line of the overhead
// table and of its JSON.
type OverheadRow struct {
	Guest        string    `json:"guest"`
	Query        string    `json:"query"` // "edge 1/N" or "d) 1/1024", " go" appended for CompareNative's second measurement
	Instructions uint64    `json:"instructions"`
	Messages     uint64    `json:"messages"`
	SampleExits  uint64    `json:"sample_exits"`
	Stalls       uint64    `json:"stalls"`
	StallSeconds float64   `json:"stall_seconds"`
	BaseSeconds  []float64 `json:"base_seconds"`  // every run without the query, in order
	QuerySeconds []float64 `json:"query_seconds"` // every run with it, interleaved with those
	Ratio        float64   `json:"ratio"`         // median(with) / median(without)
}

// overheadQuery is one query RunOverhead installs.
type overheadQuery struct {
	name, text string
	noNative   bool
}

// queries returns the queries cfg asks for, in the table's order.
func (cfg OverheadConfig) queries() []overheadQuery {
	var qs []overheadQuery
	for _, n := range cfg.Periods {
		qs = append(qs, overheadQuery{fmt.Sprintf("edge 1/%d", n), fmt.Sprintf("for opBRANCH * every %d collect pc res1 misc; send 1 stop;", n), cfg.NoNative})
	}
	if cfg.QueryD {
		qs = append(qs, overheadQuery{"d) 1/1024", QueryD, cfg.NoNative})
	}
	if cfg.CompareNative {
		for _, q := range slices.Clone(qs) {
			qs = append(qs, overheadQuery{q.name + " go", q.text, true})
		}
	}
	return qs
}

// RunOverhead runs each guest in dynamo mode cfg.Runs times per query,
// each run with the query right after one without it (so both see the
// same machine load), and returns a row per guest and query. Messages,
// stalls and instructions are the last run's. An error names the guest.
func RunOverhead(guests []Guest, cfg OverheadConfig) ([]OverheadRow, error) {
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("%d runs: want at least one", cfg.Runs)
	}
	for _, n := range cfg.Periods {
		if n < 1 || n > rpa.MaxRate {
			return nil, fmt.Errorf("%d is not a period in 1..%d", n, rpa.MaxRate)
		}
	}
	qs := cfg.queries()
	var rows []OverheadRow
	for _, g := range guests {
		rs := make([]OverheadRow, len(qs))
		for r := 0; r < cfg.Runs; r++ {
			for i, q := range qs {
				base, _, err := timedRun(g, "", rpa.Options{}, rvdyn.Options{})
				if err != nil {
					return nil, fmt.Errorf("%s: %w", g.Name, err)
				}
				on, st, err := timedRun(g, q.text, rpa.Options{Seed: cfg.Seed, Backoff: mq.Backoff{MaxSleep: cfg.MaxSleep, Interval: cfg.PollInterval}},
					rvdyn.Options{ProfilerInterpreted: cfg.Interpreted, ProfilerNoNative: q.noNative, ProfilerCountdownInMemory: cfg.CountdownInMemory})
				if err != nil {
					return nil, fmt.Errorf("%s: %w", g.Name, err)
				}
				row := &rs[i]
				row.Guest, row.Query, row.Instructions = g.Name, q.name, st.GuestInstructions
				row.SampleExits = st.Exits[rvdyn.ExitSample]
				row.Messages, row.Stalls, row.StallSeconds = 0, 0, 0
				for _, q := range st.Profiler.Queues {
					row.Messages += q.Sent
					row.Stalls += q.Stalls
					row.StallSeconds += time.Duration(q.StallNs).Seconds()
				}
				row.BaseSeconds = append(row.BaseSeconds, base.Seconds())
				row.QuerySeconds = append(row.QuerySeconds, on.Seconds())
			}
		}
		for i := range rs {
			rs[i].Ratio = bench.Median(rs[i].QuerySeconds) / bench.Median(rs[i].BaseSeconds)
		}
		rows = append(rows, rs...)
	}
	return rows, nil
}

// WriteOverheadTable writes the rows as the overhead table: medians of
// the runs without and with the query, and the overhead in percent.
func WriteOverheadTable(w io.Writer, rows []OverheadRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tquery\tinstructions\tmessages\tsample exits\tstalls\tmedian off\tmedian on\toverhead\t")
	for _, row := range rows {
		mb, mq := bench.Median(row.BaseSeconds), bench.Median(row.QuerySeconds)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.4fs\t%.4fs\t%+.2f%%\t\n", row.Guest, row.Query, row.Instructions, row.Messages, row.SampleExits, row.Stalls, mb, mq, 100*(row.Ratio-1))
	}
	return tw.Flush()
}

// timedRun runs g once in dynamo mode, with the query text installed if
// it is not empty, and returns the wall time of vm.Run and the stats.
func timedRun(g Guest, text string, o rpa.Options, opts rvdyn.Options) (time.Duration, rvdyn.Stats, error) {
	opts.Config = interp.Config{Args: g.Args}
	var s *rpa.Session
	if text != "" {
		p, err := rpa.Assemble(text)
		if err != nil {
			return 0, rvdyn.Stats{}, err
		}
		if s, err = rpa.Start(p, o, 0); err != nil {
			return 0, rvdyn.Stats{}, err
		}
		defer s.Close()
		opts.Profiler = s
	}
	vm, err := rvdyn.New(g.Image, opts)
	if err != nil {
		return 0, rvdyn.Stats{}, err
	}
	defer vm.Close()
	if _, err := vm.Run(); err != nil {
		return 0, rvdyn.Stats{}, err
	}
	st := vm.Stats()
	if s != nil {
		s.Close()
		r := s.Report()
		st.Profiler = &r
	}
	return st.Wall, st, nil
}
