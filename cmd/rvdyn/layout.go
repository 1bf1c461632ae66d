// The layout command: guests in; sample sets, complete profiles, Pettis-Hansen and C3 orders, relinked ELFs, the paper's Tables 5-7 and Figure 4 out.

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/internal/experiments/placement"
	"rvdyn/internal/figure"
	"rvdyn/layout"
)

const layoutUsage = `usage: rvdyn layout [flags]
       rvdyn layout clock [flags]   (the time-based sampler: rvdyn layout clock -h)
       rvdyn layout native --from FILE [flags]   (Table 7 alone, from an earlier run's orders)

Procedure placement from statistical PC samples (docs/layout.md): for each
guest, --sets sampled runs of its training input (one PC sample every
--period retired instructions, seeded, in dynamo mode) and the complete
profile of one interpreted training run; Table 5 (chi-square) and
Figure 4 (key matching); Pettis-Hansen and C3 orders from single sets,
from all sets and from the complete profile, each relinked with the cross
linker (bench/guests: make NAME.layout.elf); every layout's test run
interpreted with instruction caches simulated (Table 6), its output
checked under the interpreter, rvdyn and qemu-riscv64; with
--native-runs, the host builds relinked with the same orders and timed
(Table 7). Needs riscv64-unknown-elf-gcc and make; run from the
repository root (or give --guests-dir).

flags:
`

type layoutReport struct {
	Results []*placement.Result               `json:"results"`
	Native  map[string][]placement.NativeTime `json:"native,omitempty"`
}

func layoutCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "clock" {
		return layoutClockCmd(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "native" {
		return layoutNativeCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("layout", flag.ContinueOnError)
	guest := fs.String("guest", "", "comma-separated guests (default: the layout package's DefaultGuests; each needs training and test inputs in placement.Inputs)")
	sets := fs.Int("sets", 32, "sample sets per guest")
	singles := fs.Int("singles", 0, "single-set layouts to relink and simulate for Table 6 (0: all --sets)")
	period := fs.Uint64("period", 10000, "retired guest instructions between PC samples (mean)")
	seed := fs.Uint64("seed", 1, "seed of the first sample set (set k uses seed+k)")
	workers := fs.Int("workers", 2, "concurrent cache simulations")
	clock := fs.Bool("clock", true, "also take --sets time-based sample sets of each training input, under rvdyn and of the native build (perf_event cpu-clock + eBPF; skipped with a note where unavailable)")
	clockHz := fs.Int("clock-hz", 10*layout.DefaultHz, "time-based samples per second of CPU time (the paper's 1000 Hz gives our short training runs only 40-700 samples per set)")
	nativeRuns := fs.Int("native-runs", 0, "time the native builds: runs per layout, interleaved (0: skip Table 7)")
	guestsDir := fs.String("guests-dir", "bench/guests", "the guest sources and Makefile")
	workDir := fs.String("work", "", "directory for linker scripts and relinked programs (default: a temporary one, removed)")
	noQemu := fs.Bool("no-qemu", false, "do not check relinked programs under qemu-riscv64")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	plotOut := fs.String("plot", "", "draw Figure 4 (key matching) to this .svg or .png file")
	if code, ok := parseFlags(fs, args, layoutUsage, stderr); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: layout: "+format+"\n", a...)
		return 1
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if *plotOut != "" {
		if err := figure.CheckPath(*plotOut); err != nil {
			return fail("--plot %v", err)
		}
	}
	if !layout.CrossToolchain() {
		return fail("riscv64-unknown-elf-gcc is not installed: relinking needs the cross toolchain (.ci/run installs it)")
	}
	if _, err := os.Stat(filepath.Join(*guestsDir, "Makefile")); err != nil {
		return fail("--guests-dir %s: %v", *guestsDir, err)
	}
	gdir, _ := filepath.Abs(*guestsDir)
	names := placement.DefaultGuests
	if *guest != "" {
		names = splitList(*guest, ",")
	}
	wd := *workDir
	if wd == "" {
		d, err := os.MkdirTemp("", "rvdyn-layout-")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(d)
		wd = d
	} else if err := os.MkdirAll(wd, 0o755); err != nil {
		return fail("--work: %v", err)
	}
	runs := map[string]placement.RunFunc{"rvdyn": runRvdyn}
	if q, err := exec.LookPath("qemu-riscv64"); err == nil && !*noQemu {
		runs["qemu"] = func(path string, _ []byte, argv []string) ([]byte, int, error) { return runQemu(q, path, argv) }
	}
	opts := placement.Options{Sets: *sets, Singles: *singles, Period: *period, Seed: *seed, Workers: *workers,
		GuestsDir: gdir, WorkDir: wd, Sample: sampleRvdyn, Runs: runs,
		Log: func(f string, a ...any) { fmt.Fprintf(stderr, "layout: "+f+"\n", a...) }}
	if *clock {
		s, err := layout.NewClockSampler(*clockHz)
		if err != nil {
			fmt.Fprintf(stderr, "layout: no time-based sample sets: %v\n", err)
		} else {
			defer s.Close()
			opts.Clock = func(image []byte, argv []string) (layout.SampleSet, float64, error) {
				return clockRvdyn(s, image, argv)
			}
			opts.NativeClock = func(guest string, argv []string) (map[string]uint64, error) { return clockNative(s, gdir, guest, argv) }
		}
	}
	var rep layoutReport
	rep.Native = map[string][]placement.NativeTime{}
	var nativeGuests []string
	var nativeTimes [][]placement.NativeTime
	for _, name := range names {
		in, ok := placement.Inputs[name]
		if !ok {
			return fail("no training and test inputs for guest %q (placement.Inputs)", name)
		}
		image, path, err := layoutGuestFile(name, wd)
		if err != nil {
			return fail("%v", err)
		}
		g := placement.Guest{Name: name, Image: image, Path: path,
			Train: append([]string{name}, in[0]...), Test: append([]string{name}, in[1]...)}
		r, err := placement.Experiment(g, opts)
		if err != nil {
			return fail("%v", err)
		}
		rep.Results = append(rep.Results, r)
		if *nativeRuns > 0 {
			ls := nativeLayouts(r)
			fmt.Fprintf(stderr, "layout: %s: timing %d native builds, %d runs each\n", name, len(ls), *nativeRuns)
			ts, err := placement.NativeTimes(gdir, wd, name, ls, corpus.Args(name, corpus.Full), *nativeRuns)
			if err != nil {
				return fail("%v", err)
			}
			rep.Native[name] = ts
			nativeGuests, nativeTimes = append(nativeGuests, name), append(nativeTimes, ts)
		}
	}
	writeLayoutTables(stdout, rep, nativeGuests, nativeTimes, *nativeRuns)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			return fail("--json: %v", err)
		}
	}
	if *plotOut != "" {
		if err := placement.PlotKeyMatch(rep.Results, 0, *plotOut); err != nil {
			return fail("--plot: %v", err)
		}
	}
	return 0
}

// layoutGuestFile returns the corpus guest name's image and a file
// holding it: the corpus's own, or, outside a source tree where the corpus
// has no files, the embedded image written to dir (qemu-riscv64 checks
// relinked programs against it).
func layoutGuestFile(name, dir string) (image []byte, path string, err error) {
	if image, err = corpus.ELF(name); err != nil {
		return nil, "", err
	}
	if path, err = corpus.ELFFile(name); err != nil {
		path = filepath.Join(dir, name+".elf")
		if err := os.WriteFile(path, image, 0o755); err != nil {
			return nil, "", err
		}
	}
	return image, path, nil
}

// writeLayoutTables prints the layout experiment's results: each guest's
// program and sampling summary, the paper's Tables 5 and 6, and Table 7
// for the guests whose native builds were timed (runs each).
func writeLayoutTables(w io.Writer, rep layoutReport, nativeGuests []string, nativeTimes [][]placement.NativeTime, runs int) {
	for _, r := range rep.Results {
		fmt.Fprintf(w, "%s: %d procedures, %d blocks, %d bytes of text; %.0f samples per set; %.1f%% of executed calls indirect (no edge)\n",
			r.Guest, r.Procs, r.Blocks, r.TextBytes, r.SamplesPerSet, 100*r.IndirectShare)
	}
	fmt.Fprintln(w, "\nTable 5: chi-square of summed sample sets against the complete profile (training input)")
	placement.WriteTable5(w, rep.Results)
	fmt.Fprintln(w, "\nTable 6: simulated instruction-cache miss rates (test input)")
	placement.WriteTable6(w, rep.Results)
	if len(nativeGuests) > 0 {
		fmt.Fprintf(w, "Table 7: native execution time (host gcc -O2, relinked), medians of %d interleaved runs\n", runs)
		placement.WriteTable7(w, nativeGuests, nativeTimes)
	}
}

// sampleRvdyn runs a guest in dynamo mode with the frequency sampler.
func sampleRvdyn(image []byte, argv []string, o layout.SampleOptions) (layout.SampleSet, error) {
	opts := rvdyn.Options{Sample: o}
	opts.Args = argv
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return nil, err
	}
	defer vm.Close()
	if _, err := vm.Run(); err != nil {
		return nil, err
	}
	return vm.Samples(), nil
}

// clockRvdyn runs a guest in dynamo mode under the time-based sampler s
// and returns the samples mapped to guest pcs and the others' count.
func clockRvdyn(s *layout.ClockSampler, image []byte, argv []string) (layout.SampleSet, float64, error) {
	if err := s.Reset(); err != nil {
		return nil, 0, err
	}
	opts := rvdyn.Options{}
	opts.Args, opts.Stdout = argv, io.Discard
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return nil, 0, err
	}
	defer vm.Close()
	_, cs, err := vm.RunClockSampled(s)
	return cs.Guest, float64(cs.Host), err
}

// clockNative builds the guest's native program (make NAME.native in
// guestsDir) and runs it with argv[1:] under the time-based sampler s.
func clockNative(s *layout.ClockSampler, guestsDir, guest string, argv []string) (map[string]uint64, error) {
	if out, err := exec.Command("make", "-s", "-C", guestsDir, guest+".native").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make %s.native: %v\n%s", guest, err, out)
	}
	r, err := placement.RunNative(filepath.Join(guestsDir, guest+".native"), argv[1:], s)
	return r.Funcs, err
}

// runRvdyn runs a guest in dynamo mode and returns its output and status.
func runRvdyn(_ string, image []byte, argv []string) ([]byte, int, error) {
	var out bytes.Buffer
	opts := rvdyn.Options{}
	opts.Args, opts.Stdout = argv, &out
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return nil, 0, err
	}
	defer vm.Close()
	code, err := vm.Run()
	return out.Bytes(), code, err
}

// runQemu runs an ELF file under qemu-riscv64.
func runQemu(qemu, path string, argv []string) ([]byte, int, error) {
	var out bytes.Buffer
	cmd := exec.Command(qemu, append([]string{path}, argv[1:]...)...)
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), ee.ExitCode(), nil
	}
	return out.Bytes(), 0, err
}
