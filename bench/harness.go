// Benchmark harness: guests x modes x runs -> measured runs (medians, speedups, cache statistics).

package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/net"
)

// The modes a guest can be measured in.
const (
	ModeInterp = "interp" // rvdyn's interpreter alone
	ModeDynamo = "dynamo" // rvdyn's optimizer
	ModeQEMU   = "qemu"   // qemu-riscv64 (QEMU's dynamic translator)
	ModeNative = "native" // the same C compiled for the host with gcc -O2
)

// Config selects what to measure.
type Config struct {
	// Guests to run (default: every guest of the corpus flavor).
	Guests []string
	// Flavor is the corpus build the RISC-V modes run: corpus.IM (the
	// zero value: RV64IM, picolibc) or corpus.GC (RV64GC, glibc, as
	// riscv64-linux-gnu-gcc -O2 -static builds it). The native build is
	// the same for both.
	Flavor corpus.Flavor
	// Modes to run them in (default: interp, dynamo, and qemu and native
	// where available).
	Modes []string
	// Runs per guest and mode (default 3); the harness reports medians.
	Runs int
	// Small runs every guest at its small size (corpus.Small) instead of
	// its benchmark size.
	Small bool
	// Delays are the prediction delays dynamo mode is run at (default
	// {50}); more than one makes a delay sweep.
	Delays []int
	// Options are the base options for dynamo runs (mode, delay, args and
	// I/O are filled in by the harness). The zero value means defaults.
	Options *rvdyn.Options
	// Ablation adds dynamo runs with each mechanism of rvdyn.Mechanisms()
	// switched off in turn (at the first delay).
	Ablation bool
	// PathPrediction adds dynamo runs with path profile based prediction
	// (net.PredictPath) at every delay, beside NET's: the NET paper's
	// Figure 5 comparison.
	PathPrediction bool
	// AsyncCompile adds dynamo runs with the service-thread compiler
	// (rvdyn.CompileAsync) at every delay, beside the synchronous ones
	// (WriteCompile compares them).
	AsyncCompile bool
	// Selects adds dynamo runs with each named trace selection scheme
	// besides NET ("path", "compressor", "rpa"; rvdyn.ParseScheme) at
	// every delay: the selection comparison of docs/selection.md.
	// "path" is the same as PathPrediction.
	Selects []string
	// Metrics adds, after the timed runs, one untimed run per dynamo
	// measurement of a scheme (NET's and Selects') with
	// rvdyn.SelectOptions.Metrics: the online hit rate, noise and
	// missed-opportunity cost of the traces compiled, and the main-thread
	// selection time.
	Metrics bool
	// Specialize, if set, adds dynamo runs at the first delay with value
	// specialization on (rvdyn.SpecializeOptions.Profiler: a compressor
	// in the stratified paper's notation, "default" or "perfect").
	Specialize string
	// Dir holds the guests' host builds, NAME.native (default
	// bench/guests, found relative to the working directory or its
	// parents). qemu-riscv64 runs the ELF files of corpus.Dir.
	Dir string
	// Status, if set, receives a progress line before each run (run k of
	// n, guest, mode, time elapsed), rewritten in place with a carriage
	// return and an erase-line escape: for a terminal. It is erased
	// before each line of the progress log.
	Status io.Writer
}

// A Measurement is one guest in one mode (and, for dynamo, one delay).
type Measurement struct {
	Guest        string    `json:"guest"`
	Mode         string    `json:"mode"`
	Delay        int       `json:"delay,omitempty"`
	Disabled     string    `json:"disabled,omitempty"`   // mechanism switched off (ablation), "" for none
	Predict      string    `json:"predict,omitempty"`    // the selection scheme if not NET: "path" (path profile based prediction), "compressor", "rpa"
	Specialize   string    `json:"specialize,omitempty"` // value profile of a run with value specialization, "" for none
	Compile      string    `json:"compile,omitempty"`    // "async" for the service-thread compiler, "" for the default
	Seconds      []float64 `json:"seconds"`              // wall time of each run
	Median       float64   `json:"median_seconds"`       // median of Seconds
	Instructions uint64    `json:"guest_instructions,omitempty"`
	CachePercent float64   `json:"cache_percent,omitempty"`
	Fragments    uint64    `json:"fragments,omitempty"`
	CodeBytes    uint64    `json:"code_bytes,omitempty"`
	Flushes      uint64    `json:"flushes,omitempty"`
	Counters     uint64    `json:"counters,omitempty"`        // selection counter space: trace heads (NET), distinct paths (path), counter table entries (compressor, rpa)
	CompileSecs  float64   `json:"compile_seconds,omitempty"` // recording + compiling, median run
	// Metrics and SelectSecs come from the untimed metrics run
	// (Config.Metrics): the compiled traces' scores, and the
	// main-thread time of the selection scheme's decisions.
	Metrics     *rvdyn.TraceMetrics `json:"trace_metrics,omitempty"`
	SelectSecs  float64             `json:"select_seconds,omitempty"`
	Specialized uint64              `json:"specialized,omitempty"` // loads specialized (Specialize runs)
	GuardExits  uint64              `json:"guard_exits,omitempty"` // failed specialization guards seen by the dispatcher
	// Of the median run: when the last fragment was inserted (the time
	// to steady state), and the service-thread compiler's counters
	// (rvdyn.CompilerStats).
	LastInsertSecs float64 `json:"last_insert_seconds,omitempty"`
	ServiceSecs    float64 `json:"service_seconds,omitempty"`
	Queued         uint64  `json:"queued,omitempty"`
	QueueFull      uint64  `json:"queue_full,omitempty"`
	Stale          uint64  `json:"stale,omitempty"`
	Output         string  `json:"-"`
	ExitCode       int     `json:"exit_code"`
}

// A Report is the result of a benchmark run.
type Report struct {
	Runs         int            `json:"runs"`
	Ablation     bool           `json:"ablation"`
	Paths        bool           `json:"path_prediction,omitempty"`
	Async        bool           `json:"async_compile,omitempty"`
	Selects      []string       `json:"selects,omitempty"` // schemes measured besides NET (Config.Selects)
	Specialize   string         `json:"specialize,omitempty"`
	Small        bool           `json:"small_sizes"`
	Flavor       string         `json:"flavor,omitempty"` // "gc" for the RV64GC corpus; empty for RV64IM
	Modes        []string       `json:"modes"`
	Delays       []int          `json:"delays"`
	Measurements []*Measurement `json:"measurements"`
}

// Find returns the measurement of guest in mode (at delay, for dynamo), or nil.
func (r *Report) Find(guest, mode string, delay int) *Measurement {
	for _, m := range r.Measurements {
		if m.Guest == guest && m.Mode == mode && m.Disabled == "" && m.Predict == "" && m.Specialize == "" && m.Compile == "" && (mode != ModeDynamo || m.Delay == delay) {
			return m
		}
	}
	return nil
}

// FindPath returns the dynamo measurement of guest with path profile
// based prediction at delay, or nil.
func (r *Report) FindPath(guest string, delay int) *Measurement {
	return r.FindSelect(guest, "path", delay)
}

// FindSelect returns the dynamo measurement of guest with selection
// scheme sel ("net" or a Selects name) at delay, or nil.
func (r *Report) FindSelect(guest, sel string, delay int) *Measurement {
	if sel == "net" {
		return r.Find(guest, ModeDynamo, delay)
	}
	for _, m := range r.Measurements {
		if m.Guest == guest && m.Mode == ModeDynamo && m.Predict == sel && m.Disabled == "" && m.Specialize == "" && m.Compile == "" && m.Delay == delay {
			return m
		}
	}
	return nil
}

// FindDisabled returns the dynamo measurement of guest at the first delay
// with mechanism off, or nil.
func (r *Report) FindDisabled(guest, off string) *Measurement {
	for _, m := range r.Measurements {
		if m.Guest == guest && m.Mode == ModeDynamo && m.Disabled == off && m.Predict == "" && m.Specialize == "" && m.Compile == "" && m.Delay == r.Delays[0] {
			return m
		}
	}
	return nil
}

// FindAsync returns the dynamo measurement of guest with the
// service-thread compiler at delay, or nil.
func (r *Report) FindAsync(guest string, delay int) *Measurement {
	for _, m := range r.Measurements {
		if m.Guest == guest && m.Mode == ModeDynamo && m.Compile == "async" && m.Disabled == "" && m.Predict == "" && m.Specialize == "" && m.Delay == delay {
			return m
		}
	}
	return nil
}

// FindSpecialized returns the dynamo measurement of guest at the first
// delay with value specialization on, or nil.
func (r *Report) FindSpecialized(guest string) *Measurement {
	for _, m := range r.Measurements {
		if m.Guest == guest && m.Mode == ModeDynamo && m.Specialize != "" && m.Delay == r.Delays[0] {
			return m
		}
	}
	return nil
}

// Guests returns the guests in the report, in order of first appearance.
func (r *Report) Guests() []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range r.Measurements {
		if !seen[m.Guest] {
			seen[m.Guest] = true
			names = append(names, m.Guest)
		}
	}
	return names
}

// GuestDir returns the directory holding the guests' host builds: dir if
// set, else bench/guests, the sibling of the corpus directory
// (corpus.Dir), or that path relative to the working directory when there
// is no corpus directory.
func GuestDir(dir string) string {
	if dir != "" {
		return dir
	}
	if c, err := corpus.Dir(); err == nil {
		return filepath.Join(filepath.Dir(c), "guests")
	}
	return filepath.Join("bench", "guests")
}

// Available reports which optional modes can run here, with a reason for
// those that cannot.
func Available(cfg Config) map[string]string {
	why := map[string]string{}
	if _, err := exec.LookPath("qemu-riscv64"); err != nil {
		why[ModeQEMU] = "qemu-riscv64 not installed (apt-get install qemu-user)"
	} else if _, err := corpus.Dir(); err != nil {
		why[ModeQEMU] = fmt.Sprintf("qemu-riscv64 runs ELF files: %v", err)
	}
	dir := GuestDir(cfg.Dir)
	for _, g := range cfg.guests() {
		if _, err := os.Stat(filepath.Join(dir, g+".native")); err != nil {
			why[ModeNative] = fmt.Sprintf("no native builds in %s (run make -C bench/guests)", dir)
			break
		}
	}
	return why
}

func (cfg Config) guests() []string {
	if len(cfg.Guests) > 0 {
		return cfg.Guests
	}
	return corpus.NamesOf(cfg.Flavor)
}

// Run measures the configured guests and modes. Runs are interleaved
// (run 1 of every guest and mode, then run 2, ...) so that drift in the
// machine's speed spreads evenly. Progress lines go to log (may be nil).
// A guest whose output or exit status differs between modes is an error
// (a floating-point guest's native build need only agree on the status).
func Run(cfg Config, log io.Writer) (*Report, error) {
	if log == nil {
		log = io.Discard
	}
	if cfg.Runs <= 0 {
		cfg.Runs = 3
	}
	if len(cfg.Delays) == 0 {
		cfg.Delays = []int{50}
	}
	unavailable := Available(cfg)
	if len(cfg.Modes) == 0 {
		cfg.Modes = []string{ModeInterp, ModeDynamo}
		for _, m := range []string{ModeQEMU, ModeNative} {
			if unavailable[m] == "" {
				cfg.Modes = append(cfg.Modes, m)
			} else {
				fmt.Fprintf(log, "skipping %s: %s\n", m, unavailable[m])
			}
		}
	}
	for _, m := range cfg.Modes {
		switch m {
		case ModeInterp, ModeDynamo:
		case ModeQEMU, ModeNative:
			if unavailable[m] != "" {
				return nil, fmt.Errorf("mode %s: %s", m, unavailable[m])
			}
		default:
			return nil, fmt.Errorf("unknown mode %q (want interp, dynamo, qemu or native)", m)
		}
	}
	selects, err := cfg.selects()
	if err != nil {
		return nil, err
	}
	rep := &Report{Runs: cfg.Runs, Small: cfg.Small, Flavor: flavorName(cfg.Flavor), Modes: cfg.Modes, Delays: cfg.Delays, Ablation: cfg.Ablation, Paths: cfg.PathPrediction, Async: cfg.AsyncCompile, Selects: selects, Specialize: cfg.Specialize}
	images := map[string][]byte{}
	for _, g := range cfg.guests() {
		img, err := corpus.ELFOf(g, cfg.Flavor)
		if err != nil {
			return nil, err
		}
		images[g] = img
		for _, mode := range cfg.Modes {
			if mode == ModeDynamo {
				for _, d := range cfg.Delays {
					rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode, Delay: d})
					for _, sel := range selects {
						rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode, Delay: d, Predict: sel})
					}
					if cfg.AsyncCompile {
						rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode, Delay: d, Compile: "async"})
					}
				}
				if cfg.Specialize != "" {
					rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode, Delay: cfg.Delays[0], Specialize: cfg.Specialize})
				}
				if cfg.Ablation {
					for _, off := range rvdyn.Mechanisms() {
						rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode, Delay: cfg.Delays[0], Disabled: off})
					}
				}
			} else {
				rep.Measurements = append(rep.Measurements, &Measurement{Guest: g, Mode: mode})
			}
		}
	}
	dir := GuestDir(cfg.Dir)
	size := corpus.Full
	if cfg.Small {
		size = corpus.Small
	}
	start, k, total := time.Now(), 0, cfg.Runs*len(rep.Measurements)
	prog := newProgress(cfg.Status, start)
	defer prog.stop()
	for r := 0; r < cfg.Runs; r++ {
		for _, m := range rep.Measurements {
			k++
			prog.set(fmt.Sprintf("[%d/%d] run %d of %d: %s %s", k, total, r+1, cfg.Runs, m.Guest, label(m)))
			args := corpus.Args(m.Guest, size)
			var err error
			switch m.Mode {
			case ModeInterp, ModeDynamo:
				err = runRvdyn(cfg, images[m.Guest], args, m, r)
			case ModeQEMU:
				var elf string
				if elf, err = corpus.ELFFileOf(m.Guest, cfg.Flavor); err == nil {
					err = runCommand("qemu-riscv64", append([]string{elf}, args[1:]...), m)
				}
			case ModeNative:
				err = runCommand(filepath.Join(dir, m.Guest+".native"), args[1:], m)
			}
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", m.Guest, m.Mode, err)
			}
			prog.set("")
			fmt.Fprintf(log, "run %d/%d  %-10s %-7s %8.3fs\n", r+1, cfg.Runs, m.Guest, label(m), m.Seconds[len(m.Seconds)-1])
		}
	}
	if cfg.Metrics {
		if err := scoreSelections(cfg, rep, images, size, log); err != nil {
			return nil, err
		}
	}
	for _, m := range rep.Measurements {
		m.Median = Median(m.Seconds)
		ref := rep.Measurements[0]
		for _, o := range rep.Measurements {
			if o.Guest == m.Guest {
				ref = o
				break
			}
		}
		if m.ExitCode != ref.ExitCode || m.Output != ref.Output && !otherBuild(m, ref) {
			return rep, fmt.Errorf("%s: %s and %s disagree (exit %d vs %d, output %q vs %q)",
				m.Guest, label(m), label(ref), m.ExitCode, ref.ExitCode, m.Output, ref.Output)
		}
	}
	return rep, nil
}

// otherBuild reports whether two measurements of a floating-point guest
// ran different builds of it, the native one and the RISC-V one, whose
// outputs may differ in their digits (see corpus.FloatingPoint): only
// their exit statuses must agree.
func otherBuild(m, ref *Measurement) bool {
	return corpus.FloatingPoint(m.Guest) && (m.Mode == ModeNative) != (ref.Mode == ModeNative)
}

func label(m *Measurement) string {
	if m.Mode == ModeDynamo && m.Predict != "" {
		return fmt.Sprintf("%s@%d", m.Predict, m.Delay)
	}
	if m.Mode == ModeDynamo && m.Compile != "" {
		return fmt.Sprintf("dynamo@%d-%s", m.Delay, m.Compile)
	}
	if m.Mode == ModeDynamo && m.Disabled != "" {
		return fmt.Sprintf("dynamo@%d-%s", m.Delay, m.Disabled)
	}
	if m.Mode == ModeDynamo && m.Specialize != "" {
		return fmt.Sprintf("dynamo@%d+spec", m.Delay)
	}
	if m.Mode == ModeDynamo {
		return fmt.Sprintf("dynamo@%d", m.Delay)
	}
	return m.Mode
}

func runRvdyn(cfg Config, image []byte, args []string, m *Measurement, run int) error {
	opts := rvdyn.Options{}
	if cfg.Options != nil {
		opts = *cfg.Options
	}
	opts.Mode, opts.NET.Delay, opts.Args = rvdyn.ModeDynamo, net.DelayOf(m.Delay), args
	if m.Predict != "" {
		sel, err := rvdyn.ParseScheme(m.Predict)
		if err != nil {
			return err
		}
		opts.Select.Scheme = sel
	}
	if m.Compile == "async" {
		opts.Compiler.Mode = rvdyn.CompileAsync
	}
	if err := opts.Disable(m.Disabled); err != nil {
		return err
	}
	if m.Specialize != "" {
		opts.Specialize.Profile = m.Specialize
	}
	if m.Mode == ModeInterp {
		opts.Mode = rvdyn.ModeInterp
	}
	var out bytes.Buffer
	opts.Stdout, opts.Stderr = &out, io.Discard
	start := time.Now()
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return err
	}
	code, err := vm.Run()
	secs := time.Since(start).Seconds()
	st := vm.Stats()
	vm.Close()
	if err != nil {
		return err
	}
	m.Seconds = append(m.Seconds, secs)
	m.Output, m.ExitCode = out.String(), code
	m.Instructions, m.CachePercent = st.GuestInstructions, st.CachePercent()
	m.Fragments, m.CodeBytes, m.Flushes = st.Fragments, st.CodeBytes, st.Flushes
	m.Counters = st.SelectCounters
	if sp := st.Specialize; sp != nil {
		m.Specialized, m.GuardExits = sp.Specialized, sp.GuardExits
	}
	if run == 0 || secs <= Median(m.Seconds) {
		m.CompileSecs = (st.RecordTime + st.CompileTime).Seconds()
		c := st.Compiler
		m.LastInsertSecs, m.ServiceSecs = st.LastInsert.Seconds(), c.ServiceTime.Seconds()
		m.Queued, m.QueueFull, m.Stale = c.Queued, c.QueueFull, c.Stale
	}
	return nil
}

func runCommand(path string, args []string, m *Measurement) error {
	var out bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return err
	}
	m.Seconds = append(m.Seconds, secs)
	m.Output, m.ExitCode = out.String(), code
	return nil
}

// Median returns the median of xs (the mean of the middle two for an even
// count), NaN if xs is empty; xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// GeoMean returns the geometric mean of positive values (NaN if none).
func GeoMean(xs []float64) float64 {
	var sum float64
	n := 0
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// flavorName is a Report's flavor field: empty for the default RV64IM
// corpus, so that older reports read the same.
func flavorName(f corpus.Flavor) string {
	if f == corpus.IM {
		return ""
	}
	return f.String()
}
