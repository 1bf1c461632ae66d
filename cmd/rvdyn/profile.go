// The profile command: flags, a guest (or a recorded stream) and profiler configurations in; error/overhead tables, JSON and plots out.

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rvdyn/bench/corpus"
	"rvdyn/internal/experiments/hwprofile"
	"rvdyn/profhw"
)

const profileUsage = `usage: rvdyn profile [flags] [prog.elf [args...]]
       rvdyn profile [flags] --guest NAME[,NAME...]
       rvdyn profile [flags] --replay FILE
       rvdyn profile --montecarlo [flags]

Runs a guest under the interpreter, turns the selected instructions into
profile tuples (value: <pc, loaded value>; edge: <pc, next pc>; call:
<pc, call target>), feeds the same stream to every profiler configuration
and to a perfect profiler, and reports each configuration's error and
overhead as the stream progresses. With no program, runs the embedded %q
guest. See docs/profilers.md.

Configurations use the papers' notation, separated by ';' (or give
--config several times):
  R256  P256  CR256                 random, periodic, counted random samplers
  H[P256]2048  H[R10]2048 ...       hash-split (stratified) samplers
  tag2-256-2048                     tagged compressor (tag bits-threshold-entries)
  ...+A16                           with a 16-entry associative second level
  multihash:tables=4,entries=2048,interval=10000,threshold=1%%,cu=1,reset=0
                                    interval profiler (also retain=, shield=, acc=)
  presets: %s

--montecarlo runs the Monte Carlo experiment of Figure 4 of the stratified
paper instead (t = 0.3N, r = 10, N = 1000..20000) and checks the paper's
ordering {R, H[R]} > {P, CR} > {H[P], H[CR]}.

flags:
`

func profileCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var configs, profiles listFlag
	fs.Var(&configs, "config", "a profiler configuration; repeatable (adds to --configs)")
	configList := fs.String("configs", "", "';'-separated profiler configurations or preset names (default \"paper\")")
	fs.Var(&profiles, "profile", "profile type(s) to collect: value, edge, call; repeatable or comma-separated (default value)")
	guest := fs.String("guest", "", "run these embedded guests (comma-separated; 'all' for every one) instead of a file")
	record := fs.String("record", "", "record the tuple stream to this file")
	replay := fs.String("replay", "", "replay a recorded tuple stream instead of running a guest")
	jsonOut := fs.String("json", "", "write the results as a JSON list of rows to this file")
	plotOut := fs.String("plot", "", "draw the results to this .svg or .png file")
	seed := fs.Uint64("seed", 1, "seed for hash tables and random samplers")
	maxInsts := fs.Uint64("max-instructions", 0, "stop each guest after this many instructions (0 = run to exit)")
	every := fs.Uint64("every", 0, "checkpoint every N tuples (0 = 1000, 2000, 5000, 10000, ...)")
	cpm := fs.Float64("cycles-per-message", profhw.CyclesPerMessage, "cost of one message to software, in cycles (stratified 5.3.2)")
	threshold := fs.String("threshold", "5%", "error threshold for the events-to-reach and events-to-stay-below table (stratified 5.4)")
	progress := fs.Bool("progress", true, "print error and overhead at every checkpoint")
	guestOut := fs.Bool("guest-output", false, "pass the guest's stdout and stderr through to stderr")
	census := fs.Bool("census", false, "instead of profiler models, run a perfect interval profiler at intervals 10K/100K/1M and thresholds 1%/0.1%: distinct tuples, candidates and their change between intervals (multi-hash Figures 4-6)")
	mc := fs.Bool("montecarlo", false, "run the Monte Carlo experiment of stratified Figure 4")
	trials := fs.Int("trials", 2500, "Monte Carlo: experiments per stream length")
	mcRate := fs.Uint64("mc-rate", 10, "Monte Carlo: sampling rate r")
	mcSub := fs.Int("mc-substreams", 2048, "Monte Carlo: substreams n of the H[X] samplers")
	mcSizes := fs.String("mc-sizes", "1000:20000:1000", "Monte Carlo: stream lengths, FROM:TO:STEP or a comma list")
	mcShare := fs.Float64("mc-share", 0.3, "Monte Carlo: share t/N of the estimated tuple")
	mcDistinct := fs.Int("mc-distinct", 0, "Monte Carlo: draw the other tuples from this many distinct ones (0 = all distinct)")
	mcEst := fs.String("mc-estimator", "ratio", "Monte Carlo: estimator for samplers with a counter: ratio or sum (see docs)")
	workers := fs.Int("workers", 0, "Monte Carlo: goroutines (0 = GOMAXPROCS)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, profileUsage, corpus.Default, presetNames())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: profile: "+format+"\n", a...)
		return exitUsage
	}

	if *mc {
		sizes, err := parseInts(*mcSizes, 1)
		if err != nil {
			return fail("--mc-sizes: %v", err)
		}
		est, err := hwprofile.ParseCountEstimator(*mcEst)
		if err != nil {
			return fail("--mc-estimator: %v", err)
		}
		if *trials < 1 {
			return fail("--trials must be at least 1")
		}
		opts := hwprofile.MonteCarloOptions{Rate: *mcRate, Substreams: *mcSub, Sizes: sizes, Trials: *trials,
			Share: *mcShare, Distinct: *mcDistinct, Estimator: est, Seed: *seed, Workers: *workers}
		if len(configs) > 0 || *configList != "" {
			opts.Samplers = append(opts.Samplers, configs...)
			opts.Samplers = append(opts.Samplers, splitList(*configList, ";")...)
		}
		return montecarlo(opts, *jsonOut, *plotOut, stdout, stderr)
	}

	th, err := hwprofile.ParseThreshold(*threshold)
	if err != nil {
		return fail("--threshold: %v", err)
	}
	list := *configList
	if list == "" && len(configs) == 0 {
		list = "paper"
	}
	list = strings.Join(append([]string{list}, configs...), ";")
	cfgs, err := profhw.ParseConfigs(list)
	if err != nil {
		return fail("%v", err)
	}
	var kinds profhw.KindSet
	for _, p := range profiles {
		ks, err := profhw.ParseKinds(p)
		if err != nil {
			return fail("--profile: %v", err)
		}
		kinds |= ks
	}
	if kinds == 0 {
		kinds = kinds.With(profhw.KindValue)
	}

	var gout io.Writer
	if *guestOut {
		gout = stderr
	}
	jobs, cleanup, err := profileJobs(fs, *replay, *guest, *record, kinds, *maxInsts, gout)
	defer cleanup()
	if err != nil {
		return fail("%v", err)
	}
	if *census {
		return censusJobs(jobs, *jsonOut, stdout, stderr)
	}
	exp := &hwprofile.Experiment{Configs: cfgs, Seed: *seed, CyclesPerMessage: *cpm, Every: *every}
	return experimentJobs(exp, jobs, th, *progress, *plotOut, *jsonOut, stdout, stderr)
}

// A profileJob is one tuple stream rvdyn profile runs: a guest's, or a
// replayed file's; done, if set, ends its recording.
type profileJob struct {
	name string
	src  profhw.Source
	done func() error
}

// finish ends the job's recording, if any, and returns err or the
// recording's error.
func (j profileJob) finish(err error) error {
	if j.done != nil {
		if cerr := j.done(); err == nil {
			err = cerr
		}
	}
	return err
}

// profileJobs returns the streams to run: the file replay names, or the
// guests fs's arguments and guest name (each cut at maxInsts, their output
// to gout), the only one recorded to the file record if that is set. The
// cleanup closes the replayed file.
func profileJobs(fs *flag.FlagSet, replay, guest, record string, kinds profhw.KindSet, maxInsts uint64, gout io.Writer) (jobs []profileJob, cleanup func(), err error) {
	cleanup = func() {}
	switch {
	case replay != "" && (fs.NArg() > 0 || guest != ""):
		return nil, cleanup, fmt.Errorf("give either --replay or a guest, not both")
	case replay != "":
		f, err := os.Open(replay)
		if err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { f.Close() }
		r, err := profhw.NewStreamReader(f)
		if err != nil {
			return nil, cleanup, fmt.Errorf("--replay %s: %v", replay, err)
		}
		jobs = append(jobs, profileJob{name: "replay of " + r.Meta(), src: r})
	default:
		runs, err := selectGuests(fs.Args(), guest, true, 0)
		if err != nil {
			return nil, cleanup, err
		}
		for _, g := range runs {
			src := &profhw.GuestSource{Image: g.image, Args: g.args, Kinds: kinds, MaxInstructions: maxInsts, Stdout: gout, Stderr: gout}
			jobs = append(jobs, profileJob{name: strings.Join(g.args, " "), src: src})
		}
	}
	if record != "" {
		if len(jobs) != 1 {
			return nil, cleanup, fmt.Errorf("--record needs exactly one guest")
		}
		f, err := os.Create(record)
		if err != nil {
			return nil, cleanup, err
		}
		meta := fmt.Sprintf("%s (%v profile)", jobs[0].name, kinds)
		jobs[0].src = profhw.Record(jobs[0].src, f, meta)
		jobs[0].done = f.Close
	}
	return jobs, cleanup, nil
}

// censusJobs runs the multi-hash paper's interval census on each job and
// prints (and with jsonOut writes) the rows; it returns the exit status.
func censusJobs(jobs []profileJob, jsonOut string, stdout, stderr io.Writer) int {
	var all []hwprofile.CensusRow
	status := 0
	for _, j := range jobs {
		rows, err := hwprofile.Census(j.src, hwprofile.DefaultCensus)
		if err = j.finish(err); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: %s: %v\n", j.name, err)
			status = 1
		}
		for i := range rows {
			rows[i].Guest = strings.Fields(j.name)[0]
		}
		all = append(all, rows...)
	}
	fmt.Fprintln(stdout, "interval census with a perfect profiler (multi-hash Figures 4, 5 and 6; change = candidates in one of two consecutive intervals' sets but not both, over those in either; read at 25/50/75% of the interval pairs)")
	hwprofile.WriteCensus(stdout, all)
	if jsonOut != "" {
		if err := writeJSON(jsonOut, all); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: --json: %v\n", err)
			return exitUsage
		}
	}
	return status
}

// experimentJobs runs exp on each job and prints its tables (the progress
// at each checkpoint with progress, the events to reach threshold th),
// draws them to plotOut (one file per guest when there are several) and
// writes every row to jsonOut; it returns the exit status.
func experimentJobs(exp *hwprofile.Experiment, jobs []profileJob, th float64, progress bool, plotOut, jsonOut string, stdout, stderr io.Writer) int {
	var all []hwprofile.Row
	status := 0
	for _, j := range jobs {
		res, err := exp.Run(j.src)
		if err = j.finish(err); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: %s: %v\n", j.name, err)
			status = 1
			if res == nil || res.Tuples == 0 {
				continue
			}
		}
		fmt.Fprintf(stdout, "== %s: %d instructions, %d tuples (%v)\n", j.name, res.Instructions, res.Tuples, res.Kinds)
		hwprofile.WriteTable(stdout, res)
		if progress {
			hwprofile.WriteProgress(stdout, res)
		}
		hwprofile.WriteConvergence(stdout, res, th)
		fmt.Fprintln(stdout)
		for i := range res.Rows {
			res.Rows[i].Guest = j.name
		}
		all = append(all, res.Rows...)
		if plotOut != "" {
			path := plotOut
			if len(jobs) > 1 {
				ext := filepath.Ext(path)
				path = strings.TrimSuffix(path, ext) + "-" + strings.Fields(j.name)[0] + ext
			}
			if err := hwprofile.PlotExperiment(res, path); err != nil {
				fmt.Fprintf(stderr, "rvdyn: profile: --plot: %v\n", err)
				return exitUsage
			}
		}
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, all); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: --json: %v\n", err)
			return exitUsage
		}
	}
	return status
}

func montecarlo(opts hwprofile.MonteCarloOptions, jsonOut, plotOut string, stdout, stderr io.Writer) int {
	rows, err := hwprofile.MonteCarlo(opts)
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: profile: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "Monte Carlo (stratified Figure 4): mean error %% of the estimate of t = %.2gN, r = %d, %d trials per N, %v estimator\n",
		opts.Share, opts.Rate, opts.Trials, opts.Estimator)
	hwprofile.WriteMonteCarlo(stdout, rows)
	if bad := hwprofile.CheckOrdering(rows); len(bad) == 0 {
		fmt.Fprintln(stdout, "ordering {R, H[R]} > {P, CR} > {H[P], H[CR]} holds at every N")
	} else {
		fmt.Fprintf(stdout, "ordering {R, H[R]} > {P, CR} > {H[P], H[CR]} fails in %d places:\n", len(bad))
		for _, b := range bad {
			fmt.Fprintln(stdout, "  "+b)
		}
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, rows); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: --json: %v\n", err)
			return exitUsage
		}
	}
	if plotOut != "" {
		if err := hwprofile.PlotMonteCarlo(rows, plotOut); err != nil {
			fmt.Fprintf(stderr, "rvdyn: profile: --plot: %v\n", err)
			return exitUsage
		}
	}
	return 0
}

func presetNames() string {
	var names []string
	for n := range profhw.Presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
