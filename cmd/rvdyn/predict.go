// The predict command: guests, prediction delays and a hot threshold in; NET vs path profile prediction tables, JSON and a Figure 2 style plot out.

package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/internal/experiments/prediction"
	"rvdyn/internal/figure"
	"rvdyn/net"
)

const predictUsage = `usage: rvdyn predict [flags] [prog.elf [args...]]
       rvdyn predict [flags] --guest NAME[,NAME...]|all [--small]

Runs each guest under the interpreter, cuts its execution into the
interprocedural forward paths of the NET paper (section 3), and evaluates
path profile based prediction and NET prediction at each prediction delay:
hit rate, noise rate and missed-opportunity cost (percent of the hot
flow), profiled flow (percent of all path executions) and counter space.
With no program, runs the embedded %q guest. See docs/prediction.md.

flags:
`

// A predictRow is one guest's result in the --json output.
type predictRow struct {
	Guest        string       `json:"guest"`
	Args         []string     `json:"args"`
	Instructions uint64       `json:"instructions"`
	ExitCode     int          `json:"exit_code"`
	Summary      net.Summary  `json:"summary"`
	Results      []net.Result `json:"results"`
	Online       []onlineRow  `json:"online,omitempty"` // --online
}

func predictCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	delayList := fs.String("delays", joinInts(prediction.DefaultDelays), "prediction delays tau to evaluate, comma-separated")
	hotFlag := fs.String("hot", "0.1%", "hot threshold h: a path is hot if its frequency exceeds this share of all path executions")
	guest := fs.String("guest", "", "run these embedded guests (comma-separated; 'all' for every one) instead of a file")
	small := fs.Bool("small", false, "run embedded guests at their small size (bench/corpus/sizes.txt) instead of the default")
	jsonOut := fs.String("json", "", "write the results as a JSON list (one object per guest) to this file")
	plotOut := fs.String("plot", "", "draw hit rate vs profiled flow (Figure 2) to this .svg or .png file")
	noiseOut := fs.String("plot-noise", "", "draw noise rate vs profiled flow (Figure 3) to this .svg or .png file")
	countersOut := fs.String("plot-counters", "", "draw NET's counter space as % of path profiling's, per guest (Figure 4), to this .svg or .png file")
	maxInsts := fs.Uint64("max-instructions", 0, "stop each guest after this many instructions (0 = run to exit)")
	online := fs.Bool("online", false, "also run the dispatcher (NET) at each delay, score the traces it compiled against the path profile, and print them beside offline NET and NET with one trace per head (docs/selection.md)")
	// A bad flag gets the flag package's one-line error only; -h the usage.
	if code, ok := parseFlags(fs, args, fmt.Sprintf(predictUsage, corpus.Default), stderr); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: predict: "+format+"\n", a...)
		return exitUsage
	}
	delays, err := parseInts(*delayList, 0)
	if err == nil && len(delays) == 0 {
		err = fmt.Errorf("no delays in %q", *delayList)
	}
	if err != nil {
		return fail("--delays: %v", err)
	}
	hot, err := parseShare(*hotFlag)
	if err != nil {
		return fail("--hot: %v", err)
	}
	plots := []struct {
		flag, path string
		draw       func([]string, []*net.Analysis, string) error
	}{
		{"--plot", *plotOut, prediction.PlotPrediction},
		{"--plot-noise", *noiseOut, prediction.PlotNoise},
		{"--plot-counters", *countersOut, prediction.PlotCounterSpace},
	}
	for _, p := range plots {
		if p.path != "" {
			if err := figure.CheckPath(p.path); err != nil {
				return fail("%s %v", p.flag, err)
			}
		}
	}

	jobs, err := selectGuests(fs.Args(), *guest, *small, 0)
	if err != nil {
		return fail("%v", err)
	}

	var names []string
	var as []*net.Analysis
	var rows []predictRow
	status := 0
	for _, j := range jobs {
		run, err := net.RunGuest(net.Guest{Image: j.image, Config: rvdyn.Config{Args: j.args}, MaxInstructions: *maxInsts}, delays, hot)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: predict: %s: %v\n", j.name, err)
			status = 1
			if run == nil || run.Profile.Flow == 0 {
				continue
			}
		}
		a := run.Analysis
		fmt.Fprintf(stdout, "== %s: %d instructions, exit %d\n", strings.Join(j.args, " "), run.Instructions, run.ExitCode)
		prediction.WriteSummary(stdout, []string{j.name}, []*net.Analysis{a})
		prediction.WriteAnalysis(stdout, a)
		row := predictRow{j.name, j.args, run.Instructions, run.ExitCode, a.Summary, a.Results, nil}
		if *online {
			if row.Online, err = onlineRows(j.image, j.args, delays, hot, *maxInsts, a); err != nil {
				fmt.Fprintf(stderr, "rvdyn: predict: %s: online: %v\n", j.name, err)
				status = 1
			} else {
				fmt.Fprintln(stdout, "offline vs the dispatcher's compiled traces:")
				writeOnline(stdout, row.Online)
			}
		}
		fmt.Fprintln(stdout)
		names, as = append(names, j.name), append(as, a)
		rows = append(rows, row)
	}
	if len(as) > 1 {
		fmt.Fprintf(stdout, "== all %d guests (hot threshold %g%% of the flow)\n", len(as), hot*100)
		prediction.WriteSummary(stdout, names, as)
		fmt.Fprintln(stdout, "\naverages over the guests:")
		prediction.WriteAverages(stdout, as)
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			return fail("--json: %v", err)
		}
	}
	for _, p := range plots {
		if p.path != "" && len(as) > 0 {
			if err := p.draw(names, as, p.path); err != nil {
				return fail("%s: %v", p.flag, err)
			}
		}
	}
	return status
}

// parseShare parses "0.1%" (a percentage) or "0.001" (a fraction) into a
// fraction in [0, 1).
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSuffix(t, "%"), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || v*scale >= 1 {
		return 0, fmt.Errorf("bad threshold %q (want e.g. 0.1%% or 0.001)", s)
	}
	return v * scale, nil
}
