// rpa overhead: guests and sampling rates in; main-thread time with the edge query (and query d) installed vs without, in dynamo mode, as ratios of medians out.

package main

import (
	"errors"
	"flag"
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

// queryD is the paper's query d) (Figure 2d): every instruction class,
// every 1024.
const queryD = "for opJMP * opBRANCH * opLOAD * opSTORE * opALU * opMULT * opFLOAT * opSYS * every 1024 collect pc rrate; send 4 stop;"

// overheadRow is one line of the overhead table (and of its JSON).
type overheadRow struct {
	Guest        string    `json:"guest"`
	Query        string    `json:"query"` // "edge 1/N" or "d) 1/1024"
	Instructions uint64    `json:"instructions"`
	Messages     uint64    `json:"messages"`
	SampleExits  uint64    `json:"sample_exits"`
	Stalls       uint64    `json:"stalls"`
	StallSeconds float64   `json:"stall_seconds"`
	BaseSeconds  []float64 `json:"base_seconds"`  // every run without the query, in order
	QuerySeconds []float64 `json:"query_seconds"` // every run with it, interleaved with those
	Ratio        float64   `json:"ratio"`         // median(with) / median(without)
}

func rpaOverheadCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rpa overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	guest := fs.String("guest", "all", "embedded guests to run (comma-separated, or all), at their small sizes")
	full := fs.Bool("full", false, "run the guests at their benchmark sizes (runs of about a second: less noise)")
	rates := fs.String("rates", "32,64,128,256", "edge query sampling periods N, comma-separated")
	withD := fs.Bool("query-d", true, "also measure the paper's query d) (every class, every 1024)")
	runs := fs.Int("runs", 5, "runs of each configuration, interleaved")
	seed := fs.Uint64("seed", 1, "seed for the random sampling")
	jsonOut := fs.String("json", "", "write the rows as JSON to this file")
	maxSleep := fs.Duration("max-sleep", 0, "longest sleep of an idle service thread (0 = mq.DefaultBackoff's 200µs)")
	interpOnly := fs.Bool("interpreted", false, "keep the selected instructions interpreted (rvdyn.Options.ProfileInterpreted) instead of emitting the sampling decision")
	noNative := fs.Bool("no-native", false, "run sampled queries in Go after a sample exit (rvdyn.Options.ProfileNoNative) instead of in the fragments")
	both := fs.Bool("compare-native", false, "measure every query twice, in the fragments and in Go after a sample exit (rows \"... go\"), interleaved")
	fs.Usage = func() { fmt.Fprint(stderr, rpaUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	periods, err := parseInts(*rates, 1)
	if err != nil || *runs < 1 {
		fmt.Fprintf(stderr, "rvdyn: --rates %q / --runs %d: want periods >= 1 and at least one run\n", *rates, *runs)
		return exitUsage
	}
	type variant struct {
		name, text string
		noNative   bool
	}
	var vs []variant
	for _, n := range periods {
		if n > rpa.MaxRate {
			fmt.Fprintf(stderr, "rvdyn: --rates: %d is not a period in 1..%d\n", n, rpa.MaxRate)
			return exitUsage
		}
		vs = append(vs, variant{fmt.Sprintf("edge 1/%d", n), fmt.Sprintf("for opBRANCH * every %d collect pc res1 misc; send 1 stop;", n), *noNative})
	}
	if *withD {
		vs = append(vs, variant{"d) 1/1024", queryD, *noNative})
	}
	if *both {
		for _, v := range slices.Clone(vs) {
			vs = append(vs, variant{v.name + " go", v.text, true})
		}
	}
	gs, err := selectGuests(fs.Args(), *guest, !*full, 0)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return exitUsage
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tquery\tinstructions\tmessages\tsample exits\tstalls\tmedian off\tmedian on\toverhead\t")
	var rows []overheadRow
	for _, g := range gs {
		rs := make([]overheadRow, len(vs))
		for r := 0; r < *runs; r++ {
			for i, v := range vs {
				// Interleaved: a run without the query right before each
				// run with it, so both see the same machine load.
				base, _, err := timedRun(g, "", rpa.Options{}, false, false)
				if err != nil {
					fmt.Fprintf(stderr, "rvdyn: %s: %v\n", g.name, err)
					return 1
				}
				on, st, err := timedRun(g, v.text, rpa.Options{Seed: *seed, Backoff: mq.Backoff{MaxSleep: *maxSleep}}, *interpOnly, v.noNative)
				if err != nil {
					fmt.Fprintf(stderr, "rvdyn: %s: %v\n", g.name, err)
					return 1
				}
				row := &rs[i]
				row.Guest, row.Query, row.Instructions = g.name, v.name, st.GuestInstructions
				row.SampleExits = st.Exits[rvdyn.ExitSample]
				row.Messages, row.Stalls, row.StallSeconds = 0, 0, 0
				for _, q := range st.Profile.Queues {
					row.Messages += q.Sent
					row.Stalls += q.Stalls
					row.StallSeconds += time.Duration(q.StallNs).Seconds()
				}
				row.BaseSeconds = append(row.BaseSeconds, base.Seconds())
				row.QuerySeconds = append(row.QuerySeconds, on.Seconds())
			}
		}
		for i := range rs {
			row := &rs[i]
			mb, mq := bench.Median(row.BaseSeconds), bench.Median(row.QuerySeconds)
			row.Ratio = mq / mb
			rows = append(rows, *row)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.4fs\t%.4fs\t%+.2f%%\t\n", row.Guest, row.Query, row.Instructions, row.Messages, row.SampleExits, row.Stalls, mb, mq, 100*(row.Ratio-1))
		}
	}
	tw.Flush()
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return 1
		}
	}
	return 0
}

// timedRun runs g once in dynamo mode, with the query text installed if
// it is not empty, and returns the wall time of vm.Run and the stats.
func timedRun(g guestRun, text string, o rpa.Options, interpreted, noNative bool) (time.Duration, rvdyn.Stats, error) {
	opts := rvdyn.Options{Config: interp.Config{Args: g.args}, ProfileInterpreted: interpreted, ProfileNoNative: noNative}
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
		opts.Profile = s
	}
	vm, err := rvdyn.New(g.image, opts)
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
		st.Profile = &r
	}
	return st.Wall, st, nil
}
