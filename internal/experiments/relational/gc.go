// The collector experiment: Scheme programs x execution modes x collector modes x runs -> GC overhead against a no-GC run, pauses, barrier traffic (docs/gc.md).

package relational

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"rvdyn"
	"rvdyn/bench"
	"rvdyn/bench/corpus"
	"rvdyn/gcassist"
	"rvdyn/profhw/rpa"
)

// GCNoGC names the baseline configuration of the collector experiment: the
// heap is hosted by a stop-the-world collector that is never triggered
// (the paper's comparison point, a run without collection).
const GCNoGC = "nogc"

// GCNoGCRPA is the same with the relational profiler's store-barrier
// query running (ModeRPA, never triggered): the baseline of the "rpa"
// configuration, so that its overhead is the collector's and not the
// query engine's (in hardware, the paper's query engine costs the
// application nothing; rvdyn's runs on the guest's thread).
const GCNoGCRPA = "nogc-rpa"

// A configuration name may end in "+edgeN" (rpa and nogc-rpa only): the
// edge-profiling query of the paper's Figure 2a, sampling one branch in N,
// runs beside the store barrier, as in the paper's simulations; the
// baseline of "rpa+edgeN" is "nogc-rpa+edgeN".

// splitEdge splits "rpa+edge64" into "rpa" and 64.
func splitEdge(g string) (base string, edge int) {
	if i := strings.Index(g, "+edge"); i >= 0 {
		if n, err := strconv.Atoi(g[i+5:]); err == nil && n > 0 {
			return g[:i], n
		}
		return g, -1
	}
	return g, 0
}

// edgeQuery is Figure 2a's query sampling one branch in n.
func edgeQuery(n int) string {
	return fmt.Sprintf("for opBRANCH * every %d collect pc misc; send 1 stop;", n)
}

// GCConfig selects what the collector experiment measures.
type GCConfig struct {
	// Programs are Scheme benchmark names (default: all of them).
	Programs []string
	// Size is the guest's size argument (default "small").
	Size string
	// Exec are the execution modes (default interp and dynamo).
	Exec []rvdyn.Mode
	// GC are the collector configurations: GCNoGC, and gcassist mode
	// names (default nogc, guest, stw, soft, rpa).
	GC []string
	// Runs per cell (default 5); runs are interleaved across cells, and
	// the report keeps medians.
	Runs int
	// IntervalKB is the allocation between collections, for the guest's
	// collector (-gc-interval) and the host's (Options.Interval) alike
	// (default 64).
	IntervalKB uint64
	// HeapMB is the guest heap (default 256: the no-GC run must fit).
	HeapMB int
	// ProfilerNoNative runs the queries of the rpa modes in Go after a
	// sample exit instead of in the fragments (rvdyn.Options.ProfilerNoNative).
	ProfilerNoNative bool
}

// A GCMeasurement is one program in one execution and collector mode.
type GCMeasurement struct {
	Program string `json:"program"`
	Exec    string `json:"exec"`
	GC      string `json:"gc"`
	// Medians over the runs, seconds: the guest thread's wall time (Run),
	// its thread CPU time, and the whole process's CPU time (guest,
	// marker, barrier service thread, Go runtime).
	Wall      float64 `json:"wall_seconds"`
	ThreadCPU float64 `json:"thread_cpu_seconds"`
	TotalCPU  float64 `json:"total_cpu_seconds"`
	// Overheads against the no-GC run of the same program and execution
	// mode (Baseline: GCNoGC, or GCNoGCRPA for "rpa" when it was
	// measured), in percent of its time: ratios of medians.
	Baseline       string  `json:"baseline"`
	WallOverhead   float64 `json:"wall_overhead_pct"`
	ThreadOverhead float64 `json:"thread_cpu_overhead_pct"`
	TotalOverhead  float64 `json:"total_cpu_overhead_pct"`

	GuestInstructions uint64          `json:"guest_instructions"`
	TaggedStores      uint64          `json:"tagged_stores,omitempty"`     // REF_STOREs executed, counted by the query engine (rpa configurations)
	GuestCollections  uint64          `json:"guest_collections,omitempty"` // the guest's own (mode guest)
	Stats             *gcassist.Stats `json:"host_gc,omitempty"`           // the host collector's, median-wall run
	Output            string          `json:"-"`
	ExitCode          int             `json:"exit_code"`
	Error             string          `json:"error,omitempty"`

	wall, thread, total []float64
}

// A GCReport is the collector experiment's result.
type GCReport struct {
	Runs         int              `json:"runs"`
	Size         string           `json:"size"`
	IntervalKB   uint64           `json:"interval_kb"`
	HeapMB       int              `json:"heap_mb"`
	Machine      string           `json:"machine"`
	Measurements []*GCMeasurement `json:"measurements"`
}

func (c *GCConfig) defaults() error {
	if len(c.Programs) == 0 {
		c.Programs = []string{"boyer", "closures", "deriv", "destruct", "gcbench", "interp", "nqueens", "parser", "strings", "tak", "vectors"}
	}
	if c.Size == "" {
		c.Size = "small"
	}
	if len(c.Exec) == 0 {
		c.Exec = []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo}
	}
	if len(c.GC) == 0 {
		c.GC = []string{GCNoGC, "guest", "stw", "soft", GCNoGCRPA, "rpa"}
	}
	for _, g := range c.GC {
		base, edge := splitEdge(g)
		if edge < 0 || edge > 0 && base != "rpa" && base != GCNoGCRPA {
			return fmt.Errorf("bad collector configuration %q (+edgeN goes with rpa and nogc-rpa)", g)
		}
		if _, err := gcassist.ParseMode(base); err != nil && base != GCNoGC && base != GCNoGCRPA {
			return err
		}
	}
	if c.Runs <= 0 {
		c.Runs = 5
	}
	if c.IntervalKB == 0 {
		c.IntervalKB = 64
	}
	if c.HeapMB <= 0 {
		c.HeapMB = 256
	}
	return nil
}

// gcOptions returns the run options of one cell, and what to close after
// the run (a session the cell started).
func (c *GCConfig) gcOptions(program string, exec rvdyn.Mode, gc string) (rvdyn.Options, func(), error) {
	args := []string{"scheme", "-heap", fmt.Sprint(c.HeapMB)}
	o := rvdyn.Options{Mode: exec, ProfilerNoNative: c.ProfilerNoNative}
	base, edge := splitEdge(gc)
	switch base {
	case GCNoGC:
		o.GC = gcassist.Options{Mode: gcassist.ModeSTW, Interval: 1 << 62}
	case GCNoGCRPA:
		o.GC = gcassist.Options{Mode: gcassist.ModeRPA, Interval: 1 << 62}
	case "guest":
		args = append(args, "-gc-interval", fmt.Sprint(c.IntervalKB))
	default:
		m, _ := gcassist.ParseMode(base)
		o.GC = gcassist.Options{Mode: m, Interval: c.IntervalKB << 10}
	}
	o.Args = append(args, "-gc-stats", program, c.Size)
	done := func() {}
	if edge > 0 {
		col := gcassist.New(o.GC)
		s, err := col.StartSession(edgeQuery(edge), rpa.Options{Seed: 1}, 0)
		if err != nil {
			return o, done, err
		}
		o.Collector, o.Profiler = col, s
		done = s.Close
	}
	return o, done, nil
}

// RunGC runs the collector experiment. A cell that cannot run (a mode
// not available in an execution mode) is reported with its error and
// skipped; a run whose output differs from the no-GC run's is an error.
func RunGC(cfg GCConfig, log io.Writer) (*GCReport, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	image, err := corpus.ELF("scheme")
	if err != nil {
		return nil, err
	}
	r := &GCReport{Runs: cfg.Runs, Size: cfg.Size, IntervalKB: cfg.IntervalKB, HeapMB: cfg.HeapMB,
		Machine: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	cells := map[[3]string]*GCMeasurement{}
	for run := 0; run < cfg.Runs; run++ {
		for _, p := range cfg.Programs {
			for _, ex := range cfg.Exec {
				for _, g := range cfg.GC {
					key := [3]string{p, ex.String(), g}
					m := cells[key]
					if m == nil {
						m = &GCMeasurement{Program: p, Exec: ex.String(), GC: g, Baseline: GCNoGC}
						cells[key] = m
						r.Measurements = append(r.Measurements, m)
					}
					if m.Error != "" {
						continue
					}
					opts, done, err := cfg.gcOptions(p, ex, g)
					if err == nil {
						err = gcRun(image, opts, m)
					}
					done()
					if err != nil {
						m.Error = err.Error()
						fmt.Fprintf(log, "%s %s %s: %v\n", p, ex, g, err)
					}
				}
			}
		}
		fmt.Fprintf(log, "run %d of %d done\n", run+1, cfg.Runs)
	}
	for _, m := range r.Measurements {
		if m.Error != "" || len(m.wall) == 0 {
			continue
		}
		m.Wall, m.ThreadCPU, m.TotalCPU = bench.Median(m.wall), bench.Median(m.thread), bench.Median(m.total)
		base := cells[[3]string{m.Program, m.Exec, GCNoGC}]
		if base == nil || base.Error != "" {
			continue
		}
		if m.Output != base.Output || m.ExitCode != base.ExitCode {
			return nil, fmt.Errorf("%s %s %s: output %q exit %d, no-GC run %q exit %d", m.Program, m.Exec, m.GC, m.Output, m.ExitCode, base.Output, base.ExitCode)
		}
	}
	for _, m := range r.Measurements {
		base := cells[[3]string{m.Program, m.Exec, GCNoGC}]
		if gb, edge := splitEdge(m.GC); gb == "rpa" {
			name := GCNoGCRPA
			if edge > 0 {
				name += fmt.Sprintf("+edge%d", edge)
			}
			if b := cells[[3]string{m.Program, m.Exec, name}]; b != nil && b.Wall > 0 {
				base = b
				m.Baseline = name
			}
		}
		if base != nil && base.Wall > 0 && m.Wall > 0 {
			m.WallOverhead = 100 * (m.Wall/base.Wall - 1)
			m.ThreadOverhead = 100 * (m.ThreadCPU/base.ThreadCPU - 1)
			m.TotalOverhead = 100 * (m.TotalCPU/base.TotalCPU - 1)
		}
	}
	return r, nil
}

// gcRun runs one cell once, on a locked OS thread so that the thread's
// CPU clock is the guest's.
func gcRun(image []byte, opts rvdyn.Options, m *GCMeasurement) error {
	var out, errb bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errb
	vm, err := rvdyn.New(image, opts)
	if err != nil {
		return err
	}
	defer vm.Close()
	runtime.GC()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := threadCPU(), processCPU()
	start := time.Now()
	code, err := vm.Run()
	wall := time.Since(start)
	t1, p1 := threadCPU(), processCPU()
	if err != nil {
		return err
	}
	st := vm.Stats()
	m.wall = append(m.wall, wall.Seconds())
	m.thread = append(m.thread, (t1 - t0).Seconds())
	m.total = append(m.total, (p1 - p0).Seconds())
	m.Output, m.ExitCode, m.GuestInstructions = out.String(), code, st.GuestInstructions
	if st.GC != nil {
		m.Stats = st.GC
	}
	if st.Profiler != nil {
		m.TaggedStores = st.Profiler.Events
	}
	var n, b, l uint64
	if _, err := fmt.Sscanf(errb.String(), "gc: %d collections, %d bytes allocated, %d bytes", &n, &b, &l); err == nil {
		m.GuestCollections = n
	}
	return nil
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func processCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// WriteJSON writes the report to path.
func (r *GCReport) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteTable writes one row per program, execution mode and collector
// mode: GC overheads (wall and total CPU, % of the no-GC run),
// collections, pauses, barrier traffic, peak heap.
func (r *GCReport) WriteTable(w io.Writer) error {
	ms := append([]*GCMeasurement(nil), r.Measurements...)
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Program != ms[j].Program {
			return ms[i].Program < ms[j].Program
		}
		return ms[i].Exec < ms[j].Exec
	})
	tw := tabwriter.NewWriter(w, 0, 8, 1, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "program\texec\tgc\twall ms\twall ovh %\tthread CPU ms\tthread ovh %\ttotal CPU ms\ttotal ovh %\tguest insts M\tcollections\tpause max ms\tpause p99 ms\tbarrier msgs/log\tq high-water\tq stalls\tforced\tpeak heap KB\t")
	for _, m := range ms {
		if m.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", m.Program, m.Exec, m.GC, "n/a")
			continue
		}
		coll, pmax, p99, msgs, hw, stalls, forced, peak := fmt.Sprint(m.GuestCollections), "", "", "", "", "", "", ""
		if gb, _ := splitEdge(m.GC); m.Stats != nil && gb != GCNoGC && gb != GCNoGCRPA {
			s := m.Stats
			coll = fmt.Sprint(s.Collections)
			pmax, p99 = fmtMS(s.PauseMax), fmtMS(s.PauseP99)
			forced, peak = fmt.Sprint(s.ForcedFinishes), fmt.Sprint(s.PeakHeapBytes>>10)
			switch s.Mode {
			case gcassist.ModeRPA:
				msgs, hw, stalls = fmt.Sprint(s.BarrierMessages), fmt.Sprint(s.QueueHighWater), fmt.Sprint(s.QueueStalls)
			case gcassist.ModeSoft:
				msgs = fmt.Sprint(s.BarrierLogged)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%+.1f\t%.1f\t%+.1f\t%.1f\t%+.1f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			m.Program, m.Exec, m.GC, 1e3*m.Wall, m.WallOverhead, 1e3*m.ThreadCPU, m.ThreadOverhead, 1e3*m.TotalCPU, m.TotalOverhead,
			float64(m.GuestInstructions)/1e6, coll, pmax, p99, msgs, hw, stalls, forced, peak)
	}
	return tw.Flush()
}

func fmtMS(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()*1e3) }

// A GCSummaryRow is one execution and collector mode's geometric means
// over the programs of the time ratios to the no-GC run, as overheads in
// percent.
type GCSummaryRow struct {
	Exec, GC                  string
	Baseline                  string // what GC is measured against (GCNoGC, or GCNoGCRPA for rpa)
	Wall, ThreadCPU, TotalCPU float64
}

// GCSummary returns a row per execution and collector mode, in the
// report's order.
func (r *GCReport) GCSummary() []GCSummaryRow {
	type acc struct {
		base                string
		wall, thread, total []float64
	}
	accs := map[[2]string]*acc{}
	var order [][2]string
	for _, m := range r.Measurements {
		if m.Error != "" || m.Wall == 0 {
			continue
		}
		k := [2]string{m.Exec, m.GC}
		a := accs[k]
		if a == nil {
			a = &acc{base: m.Baseline}
			accs[k] = a
			order = append(order, k)
		}
		a.wall = append(a.wall, 1+m.WallOverhead/100)
		a.thread = append(a.thread, 1+m.ThreadOverhead/100)
		a.total = append(a.total, 1+m.TotalOverhead/100)
	}
	var rows []GCSummaryRow
	for _, k := range order {
		a := accs[k]
		rows = append(rows, GCSummaryRow{k[0], k[1], a.base, 100 * (bench.GeoMean(a.wall) - 1), 100 * (bench.GeoMean(a.thread) - 1), 100 * (bench.GeoMean(a.total) - 1)})
	}
	return rows
}
