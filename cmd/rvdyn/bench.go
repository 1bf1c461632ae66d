// The bench command: flags -> a benchmark run of the guest corpus -> tables, JSON, plot.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"rvdyn"
	"rvdyn/bench"
	"rvdyn/bench/corpus"
)

// isTerminal reports whether w is a terminal (for the progress line).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 3, "runs per guest and mode; the table shows medians")
	guestList := fs.String("guests", "", "comma-separated guests to run (default: all; see -list)")
	modes := fs.String("modes", "", "comma-separated modes: interp,dynamo,qemu,native (default: interp, dynamo, and qemu and native where available)")
	delays := fs.String("delays", "", "comma-separated prediction delays for dynamo mode; more than one runs the delay sweep (default 50)")
	small := fs.Bool("small", false, "run each guest at its small size (quick check, not a measurement)")
	flavor := fs.String("flavor", "im", "corpus build to run: im (RV64IM, picolibc, our runtime) or gc (RV64GC, glibc: riscv64-linux-gnu-gcc -O2 -static)")
	jsonPath := fs.String("json", "", "write the results as JSON to this file")
	plotPath := fs.String("plot", "", "with a delay sweep: draw speedup vs delay to this .svg or .png file; with --select at one delay: speedup per guest and scheme")
	list := fs.Bool("list", false, "list the embedded guests and exit")
	predict := fs.String("predict", "net", "net, or net,path: also run dynamo with path profile based prediction at every delay and print the NET paper's Figure 5 comparison (speedups over interp and native)")
	selects := fs.String("select", "net", "trace selection schemes to compare, comma-separated: net,path,compressor,rpa; more than net prints the selection table (docs/selection.md) and --plot draws it")
	metrics := fs.Bool("trace-metrics", false, "with --select or --predict net,path: one more untimed run per scheme, guest and delay scoring the compiled traces (hit rate, noise, missed-opportunity cost) and timing the selection work; each profiles the guest in the interpreter, several interpreted runs' time at benchmark sizes")
	specialize := fs.String("specialize", "", "also run dynamo with value specialization, its value profile kept by this compressor (e.g. default, perfect, H[P4]256; see run --specialize), and compare")
	ablation := fs.Bool("ablation", false, "also run dynamo with each optimization switched off in turn ("+strings.Join(rvdyn.Mechanisms(), ", ")+") and print what each buys")
	compile := fs.String("compile", "sync", "sync, async, or sync,async: compile fragments on the main thread, on a service thread, or run dynamo both ways side by side and print the comparison (total time, time to steady state)")
	quiet := fs.Bool("q", false, "no progress lines")
	from := fs.String("from", "", "do not run anything: print the tables (and --plot) of a report saved with --json")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rvdyn bench [flags]\n\nRuns every guest in bench/corpus under each mode, several interleaved runs, and\nprints medians and ratios: speedup = interp time / dynamo time; dyn/qemu and\ndyn/native are time ratios (below 1: dynamo is faster).\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	fl, err := corpus.ParseFlavor(*flavor)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn bench: --flavor: %v\n", err)
		return exitUsage
	}
	if *list {
		for _, g := range corpus.NamesOf(fl) {
			fmt.Fprintln(stdout, g)
		}
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rvdyn bench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg := bench.Config{Runs: *runs, Small: *small, Guests: splitList(*guestList, ","), Modes: splitList(*modes, ","), Ablation: *ablation, Specialize: *specialize, Flavor: fl}
	if err := setBenchSchemes(&cfg, *predict, *compile, *selects); err != nil {
		fmt.Fprintf(stderr, "rvdyn bench: %v\n", err)
		return exitUsage
	}
	cfg.Metrics = *metrics && (cfg.PathPrediction || len(cfg.Selects) > 1 || len(cfg.Selects) == 1 && cfg.Selects[0] != "net")
	if cfg.Delays, err = parseInts(*delays, 0); err != nil {
		fmt.Fprintf(stderr, "rvdyn bench: --delays: %v\n", err)
		return exitUsage
	}
	if len(cfg.Delays) > 1 && len(cfg.Modes) == 0 && !cfg.PathPrediction { // Figure 5 also wants native
		cfg.Modes = []string{bench.ModeInterp, bench.ModeDynamo}
	}
	log := stderr
	if *quiet {
		log = nil
	} else if isTerminal(stderr) {
		cfg.Status = stderr
	}
	var rep *bench.Report
	if *from != "" {
		rep, err = bench.ReadJSON(*from)
	} else {
		rep, err = bench.Run(cfg, log)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn bench: %v\n", err)
		return 1
	}
	writeBenchReport(rep, stdout)
	if *jsonPath != "" {
		if err := rep.WriteJSON(*jsonPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn bench: %v\n", err)
			return 1
		}
	}
	if *plotPath != "" {
		plotFn := bench.PlotSweep
		if len(rep.Delays) == 1 && len(rep.Selects) > 0 {
			plotFn = bench.PlotSelection
		}
		if err := plotFn(rep, *plotPath); err != nil {
			fmt.Fprintf(stderr, "rvdyn bench: %v\n", err)
			return 1
		}
	}
	return 0
}

// setBenchSchemes sets what cfg runs beside plain NET from bench's
// --predict (net, or net,path), --compile (sync, async, or both) and
// --select (a list of schemes) flags.
func setBenchSchemes(cfg *bench.Config, predict, compile, selects string) error {
	switch p := strings.ReplaceAll(strings.ToLower(predict), " ", ""); p {
	case "net":
	case "net,path", "path,net":
		cfg.PathPrediction = true
	default:
		return fmt.Errorf("--predict: want net or net,path (path is measured beside NET), not %q", predict)
	}
	switch c := strings.ReplaceAll(strings.ToLower(compile), " ", ""); c {
	case "sync":
	case "async":
		cfg.Options = &rvdyn.Options{Compiler: rvdyn.CompilerOptions{Mode: rvdyn.CompileAsync}}
	case "sync,async", "async,sync":
		cfg.AsyncCompile = true
	default:
		return fmt.Errorf("--compile: want sync, async or sync,async, not %q", compile)
	}
	cfg.Selects = splitList(strings.ToLower(selects), ",")
	for _, s := range cfg.Selects {
		if _, err := rvdyn.ParseScheme(s); err != nil {
			return fmt.Errorf("--select: %v", err)
		}
	}
	return nil
}

// writeBenchReport prints rep's tables: the speedups (or the delay
// sweep), then whichever comparisons it measured (path prediction,
// selection schemes, specialization, the service-thread compiler, the
// ablation).
func writeBenchReport(rep *bench.Report, w io.Writer) {
	if len(rep.Delays) > 1 {
		rep.WriteSweep(w)
	} else {
		rep.WriteTable(w)
	}
	if rep.Paths {
		fmt.Fprintln(w)
		rep.WritePrediction(w)
	}
	if len(rep.Selects) > 0 && !(len(rep.Selects) == 1 && rep.Selects[0] == "path" && rep.Paths) {
		fmt.Fprintln(w)
		rep.WriteSelection(w)
	}
	if rep.Specialize != "" {
		fmt.Fprintf(w, "\nvalue specialization (%s):\n", rep.Specialize)
		rep.WriteSpecialize(w)
	}
	if rep.Async {
		fmt.Fprintln(w)
		rep.WriteCompile(w)
	}
	if rep.Ablation {
		fmt.Fprintln(w)
		rep.WriteAblation(w)
	}
}
