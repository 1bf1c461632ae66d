// The rpa-hw experiment of rvdyn reproduce: flags in; the relational-profiling paper's Figure 7, Figures 8a and 8b and Table 6 from the hardware cost model (relational.RunRPAHW) out, as tables, JSON and plots.

package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"rvdyn/internal/experiments/relational"
	"rvdyn/internal/figure"
	"rvdyn/profhw/rpa"
)

// rpaHWCmd runs the hardware cost model experiment. It is reached
// through rvdyn reproduce (commands["rpa-hw"]), not the command line.
func rpaHWCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rpa-hw", flag.ContinueOnError)
	fs.SetOutput(stderr)
	programs := fs.String("programs", "boyer,closures,deriv,destruct,gcbench,interp,nqueens,parser,strings,tak,vectors", "Scheme programs, comma-separated")
	size := fs.String("size", "small", "the programs' size argument")
	ipc := fs.Float64("ipc", rpa.PaperHW().IPC, "model: instructions dispatched per cycle when not stalled (our assumption)")
	flight := fs.Float64("flight", rpa.PaperHW().Flight, "model: cycles from dispatch to retirement (our assumption)")
	jsonPath := fs.String("json", "", "write the report as JSON to this file")
	fig7 := fs.String("plot-fig7", "", "draw Figure 7 (occupancy) to this .svg or .png file")
	fig8 := fs.String("plot-fig8", "", "draw Figures 8a and 8b (stalls and slow-down by networks) to this .svg or .png file")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	for _, p := range []string{*fig7, *fig8} {
		if p != "" {
			if err := figure.CheckPath(p); err != nil {
				fmt.Fprintf(stderr, "rvdyn rpa-hw: %v\n", err)
				return exitUsage
			}
		}
	}
	cfg := rpa.PaperHW()
	cfg.IPC, cfg.Flight = *ipc, *flight
	r, err := relational.RunRPAHW(strings.Split(*programs, ","), *size, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn rpa-hw: %v\n", err)
		return 1
	}
	r.WriteTables(stdout)
	for _, out := range []struct {
		path string
		f    func(*relational.RPAHWReport, string) error
	}{{*fig7, relational.PlotRPAHWFigure7}, {*fig8, relational.PlotRPAHWFigure8}} {
		if out.path != "" {
			if err := out.f(r, out.path); err != nil {
				fmt.Fprintf(stderr, "rvdyn rpa-hw: %v\n", err)
				return 1
			}
		}
	}
	if *jsonPath != "" {
		if err := r.WriteJSON(*jsonPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn rpa-hw: %v\n", err)
			return 1
		}
	}
	return 0
}
