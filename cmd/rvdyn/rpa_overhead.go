// rpa overhead: flags in; the relational experiment's main-thread time with the edge query (and query d) installed vs without, in dynamo mode (relational.RunOverhead), out as a table and JSON.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"rvdyn/internal/experiments/relational"
	"rvdyn/profhw/rpa"
)

func rpaOverheadCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rpa overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	guest := fs.String("guest", "all", "embedded guests to run (comma-separated, or all), at their small sizes")
	flavor := fs.String("flavor", "im", flavorUsage)
	full := fs.Bool("full", false, "run the guests at their benchmark sizes (runs of about a second: less noise)")
	rates := fs.String("rates", "32,64,128,256", "edge query sampling periods N, comma-separated")
	withD := fs.Bool("query-d", true, "also measure the paper's query d) (every class, every 1024)")
	runs := fs.Int("runs", 5, "runs of each configuration, interleaved")
	seed := fs.Uint64("seed", 1, "seed for the random sampling")
	jsonOut := fs.String("json", "", "write the rows as JSON to this file")
	maxSleep := fs.Duration("max-sleep", 0, "longest sleep of an idle service thread (0 = mq.DefaultBackoff's 200µs)")
	pollInterval := fs.Duration("poll-interval", 0, "wait of a spinning service thread between two polls (0 = mq.DefaultBackoff's 10µs, negative = back to back)")
	interpOnly := fs.Bool("interpreted", false, "keep the selected instructions interpreted (rvdyn.Options.ProfilerInterpreted) instead of emitting the sampling decision")
	noNative := fs.Bool("no-native", false, "run sampled queries in Go after a sample exit (rvdyn.Options.ProfilerNoNative) instead of in the fragments")
	inMemory := fs.Bool("countdown-in-memory", false, "keep the sampling countdowns in memory (rvdyn.Options.ProfilerCountdownInMemory) instead of the sampled entry's in a host register across fragments")
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
	for _, n := range periods {
		if n > rpa.MaxRate {
			fmt.Fprintf(stderr, "rvdyn: --rates: %d is not a period in 1..%d\n", n, rpa.MaxRate)
			return exitUsage
		}
	}
	gs, err := selectGuestsOf(fs.Args(), *guest, !*full, 0, *flavor)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return exitUsage
	}
	rows, err := relational.RunOverhead(experimentGuests(gs), relational.OverheadConfig{
		Periods: periods, QueryD: *withD, Runs: *runs, Seed: *seed, MaxSleep: *maxSleep, PollInterval: *pollInterval,
		Interpreted: *interpOnly, NoNative: *noNative, CountdownInMemory: *inMemory, CompareNative: *both})
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return 1
	}
	relational.WriteOverheadTable(stdout, rows)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			fmt.Fprintf(stderr, "rvdyn: %v\n", err)
			return 1
		}
	}
	return 0
}
