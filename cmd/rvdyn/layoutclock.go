// The layout clock command: guests in; the time-based sampler's overhead on native builds and on rvdyn runs (the paper's Table 4) and where the samples fell, out.

package main

import (
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"text/tabwriter"
	"time"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/internal/experiments/placement"
	"rvdyn/layout"
)

const layoutClockUsage = `usage: rvdyn layout clock [flags]

The time-based sampler (a perf_event cpu-clock at --hz, samples counted in
the kernel by an eBPF program) against each guest's native build (host gcc,
bench/guests: make NAME.native) and against rvdyn running the guest:
execution time without and with monitoring, medians of --runs runs each,
interleaved (the paper's Table 4), and where the samples fell. Guests run
at their full size. Needs root (or CAP_BPF and CAP_PERFMON).

flags:
`

// clockRow is one guest's line of Table 4.
type clockRow struct {
	Guest         string        `json:"guest"`
	NativeOff     time.Duration `json:"native_without_ns"`
	NativeOn      time.Duration `json:"native_with_ns"`
	RvdynOff      time.Duration `json:"rvdyn_without_ns"`
	RvdynOn       time.Duration `json:"rvdyn_with_ns"`
	NativeSamples uint64        `json:"native_samples"`
	NativeTop     string        `json:"native_top_function"`
	CacheSamples  float64       `json:"rvdyn_samples_in_code_cache"`
	// FlushedSamples is the part of CacheSamples in fragments flushed
	// before the run ended (mapped through the code cache's placement
	// history; lost without it).
	FlushedSamples float64 `json:"rvdyn_samples_in_flushed_fragments"`
	HostSamples    uint64  `json:"rvdyn_samples_elsewhere"`
	// Every run's wall time, in run order, for the spread.
	NativeOffRuns []time.Duration `json:"native_without_runs_ns"`
	NativeOnRuns  []time.Duration `json:"native_with_runs_ns"`
	RvdynOffRuns  []time.Duration `json:"rvdyn_without_runs_ns"`
	RvdynOnRuns   []time.Duration `json:"rvdyn_with_runs_ns"`
}

func layoutClockCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("layout clock", flag.ContinueOnError)
	guest := fs.String("guest", "", "comma-separated guests (default: the layout experiment's guests)")
	runs := fs.Int("runs", 5, "runs per configuration, interleaved")
	hz := fs.Int("hz", layout.DefaultHz, "samples per second of CPU time")
	guestsDir := fs.String("guests-dir", "bench/guests", "the guest sources and Makefile (for the native builds)")
	jsonOut := fs.String("json", "", "write the rows as JSON to this file")
	if code, ok := parseFlags(fs, args, layoutClockUsage, stderr); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: layout clock: "+format+"\n", a...)
		return 1
	}
	if *runs < 1 {
		return fail("--runs must be at least 1")
	}
	s, err := layout.NewClockSampler(*hz)
	if err != nil {
		return fail("%v; the frequency-based sampler (rvdyn layout --period N) needs no privileges", err)
	}
	defer s.Close()
	names := placement.DefaultGuests
	if *guest != "" {
		names = splitList(*guest, ",")
	}
	var rows []clockRow
	for _, name := range names {
		image, err := corpus.ELF(name)
		if err != nil {
			return fail("%v", err)
		}
		argv := corpus.Args(name, corpus.Full)
		bin := filepath.Join(*guestsDir, name+".native")
		if out, err := exec.Command("make", "-s", "-C", *guestsDir, name+".native").CombinedOutput(); err != nil {
			return fail("make %s.native: %v\n%s", name, err, out)
		}
		row := clockRow{Guest: name}
		var nOff, nOn, rOff, rOn []time.Duration
		fmt.Fprintf(stderr, "layout clock: %s: %d runs of each configuration\n", name, *runs)
		for range *runs {
			r, err := placement.RunNative(bin, argv[1:], nil)
			if err != nil {
				return fail("%s: %v", bin, err)
			}
			nOff = append(nOff, r.Elapsed)
			r, err = placement.RunNative(bin, argv[1:], s)
			if err != nil {
				return fail("%s: %v", bin, err)
			}
			nOn = append(nOn, r.Elapsed)
			row.NativeSamples = 0
			for f, n := range r.Funcs {
				row.NativeSamples += n
				if row.NativeTop == "" || n > r.Funcs[row.NativeTop] {
					row.NativeTop = f
				}
			}
			d, _, err := rvdynRun(image, argv, nil)
			if err != nil {
				return fail("%s: %v", name, err)
			}
			rOff = append(rOff, d)
			if err := s.Reset(); err != nil {
				return fail("%v", err)
			}
			d, cs, err := rvdynRun(image, argv, s)
			if err != nil {
				return fail("%s: %v", name, err)
			}
			rOn = append(rOn, d)
			row.CacheSamples, row.FlushedSamples, row.HostSamples = cs.Guest.Total(), cs.Flushed, cs.Host
		}
		row.NativeOffRuns, row.NativeOnRuns, row.RvdynOffRuns, row.RvdynOnRuns = nOff, nOn, rOff, rOn
		row.NativeOff, row.NativeOn, row.RvdynOff, row.RvdynOn = placement.MedianDuration(nOff), placement.MedianDuration(nOn), placement.MedianDuration(rOff), placement.MedianDuration(rOn)
		rows = append(rows, row)
	}
	writeTable4(stdout, rows, *hz, *runs)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			return fail("--json: %v", err)
		}
	}
	return 0
}

// writeTable4 prints the overhead rows: each median with the spread of
// its runs (min-max, and the interquartile range), so that a reader sees
// whether a with/without difference exceeds the run-to-run noise; the
// samples of the last monitored rvdyn run by where they fell.
func writeTable4(w io.Writer, rows []clockRow, hz, runs int) {
	fmt.Fprintf(w, "Table 4: time-based sampling at %d Hz, medians of %d interleaved runs, [min-max] and IQR of the runs\n", hz, runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tnative without\twith\toverhead\tsamples\ttop function\trvdyn without\twith\toverhead\t")
	ov := func(off, on time.Duration) string { return fmt.Sprintf("%+.1f%%", 100*(float64(on)/float64(off)-1)) }
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", r.Guest,
			placement.Spread(r.NativeOffRuns), placement.Spread(r.NativeOnRuns), ov(r.NativeOff, r.NativeOn), r.NativeSamples, r.NativeTop,
			placement.Spread(r.RvdynOffRuns), placement.Spread(r.RvdynOnRuns), ov(r.RvdynOff, r.RvdynOn))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWhere the samples of the last monitored rvdyn run fell (mapped: in the code cache, resolved to guest pcs; of them, in fragments flushed before the run's end):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tmapped\tof them flushed\telsewhere\tmapped share\twithout the history\t")
	for _, r := range rows {
		all := r.CacheSamples + float64(r.HostSamples)
		share := func(x float64) string {
			if all == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f%%", 100*x/all)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%d\t%s\t%s\t\n", r.Guest, r.CacheSamples, r.FlushedSamples, r.HostSamples,
			share(r.CacheSamples), share(r.CacheSamples-r.FlushedSamples))
	}
	tw.Flush()
}

// rvdynRun runs a guest in dynamo mode, sampled by s if it is not nil,
// and returns the run's wall time.
func rvdynRun(image []byte, argv []string, s *layout.ClockSampler) (time.Duration, rvdyn.ClockSamples, error) {
	opts := rvdyn.Options{}
	opts.Args = argv
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return 0, rvdyn.ClockSamples{}, err
	}
	defer vm.Close()
	t0 := time.Now()
	var cs rvdyn.ClockSamples
	if s != nil {
		_, cs, err = vm.RunClockSampled(s)
	} else {
		_, err = vm.Run()
	}
	return time.Since(t0), cs, err
}
