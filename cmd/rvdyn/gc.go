// The gc command: experiment flags in, the collector experiment's table (and JSON) out.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"rvdyn"
	"rvdyn/internal/experiments/relational"
	"rvdyn/internal/figure"
)

func gcCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	programs := fs.String("programs", "", "Scheme programs, comma-separated (default: all eleven)")
	size := fs.String("size", "small", "the programs' size argument: small, train, test or a number")
	execs := fs.String("exec", "interp,dynamo", "execution modes, comma-separated")
	modes := fs.String("modes", "nogc,guest,stw,soft,nogc-rpa,rpa", "collector configurations, comma-separated: nogc (hosted, never collected: the baseline), guest, stw, soft, nogc-rpa (never collected, the store-barrier query running: rpa's baseline), rpa, none")
	runs := fs.Int("runs", 5, "runs per cell (interleaved); medians are reported")
	interval := fs.Uint64("interval-kb", 64, "KiB allocated between collections, for the guest's and the host's collector alike")
	heap := fs.Int("heap-mb", 256, "guest heap in MiB (the no-GC run must fit)")
	noNative := fs.Bool("rpa-no-native", false, "run the rpa modes' queries in Go after a sample exit, not in the fragments (rvdyn.Options.ProfilerNoNative)")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	plotPath := fs.String("plot", "", "also draw the run-time (wall) overhead against no GC per program and mode, rpa whole and in parts, to this .svg or .png file")
	fromJSON := fs.String("from-json", "", "measure nothing: read a report written by --json and print (and plot) it")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rvdyn gc [flags]\n\nMeasures the Scheme guest's collectors (docs/gc.md): per program, execution mode and collector,\nwall, guest-thread CPU and total CPU time against a run that never collects, collections,\npauses, store-barrier traffic, queue 3 high-water and stalls, peak heap.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	cfg := relational.GCConfig{Size: *size, Runs: *runs, IntervalKB: *interval, HeapMB: *heap, ProfilerNoNative: *noNative}
	if *programs != "" {
		cfg.Programs = strings.Split(*programs, ",")
	}
	cfg.GC = strings.Split(*modes, ",")
	for _, e := range strings.Split(*execs, ",") {
		m, err := rvdyn.ParseMode(e)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: --exec: %v\n", err)
			return exitUsage
		}
		cfg.Exec = append(cfg.Exec, m)
	}
	if *plotPath != "" {
		if err := figure.CheckPath(*plotPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --plot: %v\n", err)
			return exitUsage
		}
	}
	var r *relational.GCReport
	var err error
	if *fromJSON != "" {
		r, err = relational.ReadGCJSON(*fromJSON)
	} else {
		r, err = relational.RunGC(cfg, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return 1
	}
	if err := r.WriteTable(stdout); err != nil {
		fmt.Fprintf(stderr, "rvdyn: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "\nGC overhead: geometric mean over programs of time / baseline time, in %:")
	fmt.Fprintf(stdout, "  %-7s %-28s %8s %12s %10s\n", "exec", "gc (baseline)", "wall", "guest thread", "total CPU")
	for _, s := range r.GCSummary() {
		fmt.Fprintf(stdout, "  %-7s %-28s %+8.1f %+12.1f %+10.1f\n", s.Exec, s.GC+" ("+s.Baseline+")", s.Wall, s.ThreadCPU, s.TotalCPU)
	}
	relational.WriteGCPaperComparison(stdout, r.GCPaperComparison())
	if *plotPath != "" {
		if err := relational.PlotGC(r, *plotPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --plot: %v\n", err)
			return 1
		}
	}
	if *jsonPath != "" {
		if err := r.WriteJSON(*jsonPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn: --json: %v\n", err)
			return 1
		}
	}
	return 0
}
