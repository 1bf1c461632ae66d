// The paper's experiment on one guest: training runs -> sample sets and the complete profile -> orders -> relinked ELFs -> Table 5, Figure 4 and Table 6 rows.

package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"rvdyn/interp"
	"rvdyn/layout"
)

// A Guest is one program of the experiment and its two inputs: the paper
// trains and tests with different inputs (section 3.3).
type Guest struct {
	Name  string
	Image []byte
	Path  string   // the ELF file of Image, for runners that need a file
	Train []string // argv of the training runs (samples, complete profile)
	Test  []string // argv of the test runs (cache simulation, output check)
}

// SampleFunc runs image with argv under sampling and returns its sample
// set: the root package's Options.Sample (cmd/rvdyn supplies it, so that
// placement need not import the root package).
type SampleFunc func(image []byte, argv []string, o layout.SampleOptions) (layout.SampleSet, error)

// RunFunc runs an ELF (its file path and contents) with argv and returns
// its standard output and exit status (rvdyn in dynamo mode, or
// qemu-riscv64).
type RunFunc func(path string, image []byte, argv []string) (stdout []byte, status int, err error)

// Options configure Experiment. Zero fields take the defaults shown.
type Options struct {
	Sets       int                  // sample sets per guest (32)
	Singles    int                  // single-set layouts evaluated in Table 6 (Sets)
	Period     uint64               // instructions between samples (10000)
	Seed       uint64               // seed of the first set; set k uses Seed+k (1)
	Caches     []layout.CacheConfig // Table 6's caches (DefaultCaches)
	MaxCluster int                  // C3's cluster limit in bytes (DefaultMaxCluster)
	GuestsDir  string               // bench/guests, where Relink runs make (required)
	WorkDir    string               // where scripts and relinked ELFs go (required)
	Workers    int                  // concurrent cache simulations (1)
	Sample     SampleFunc           // required
	// Clock and NativeClock, if set, add time-based sample sets (Sets
	// of each, from training runs under rvdyn and of the native build)
	// to Table 5 and their Pettis-Hansen and C3 orders to Table 6.
	Clock       ClockFunc
	NativeClock NativeClockFunc
	Runs        map[string]RunFunc
	// Log, if set, receives one line per step.
	Log func(format string, args ...any)
}

// DefaultCaches are the paper's 32 KB direct-mapped cache with 32-byte
// lines and caches scaled down to our guests' smaller text (2, 4 and 8 KB,
// direct-mapped, 32-byte lines), plus a 2-way 4 KB cache.
var DefaultCaches = []layout.CacheConfig{{Size: 32 << 10, Line: 32, Ways: 1}, {Size: 8 << 10, Line: 32, Ways: 1}, {Size: 4 << 10, Line: 32, Ways: 1}, {Size: 2 << 10, Line: 32, Ways: 1}, {Size: 4 << 10, Line: 32, Ways: 2}}

// ChiRow is one row of Table 5.
type ChiRow struct {
	Row  string  `json:"row"`            // "1 sample set", ..., "expected", "good match"
	Kind SetKind `json:"kind,omitempty"` // the sets summed; "" for the two reference rows
	Sets int     `json:"sets,omitempty"`
	// Chi2 is the statistic; +Inf for sets that hold no sample (JSON
	// null: JSON has no infinity).
	Chi2 float64 `json:"chi2"`
}

// chiRowJSON is ChiRow as JSON holds it: Chi2 null when not finite.
type chiRowJSON struct {
	Row  string   `json:"row"`
	Kind SetKind  `json:"kind,omitempty"`
	Sets int      `json:"sets,omitempty"`
	Chi2 *float64 `json:"chi2"`
}

// MarshalJSON writes a row whose sets hold no sample with chi2 null.
func (r ChiRow) MarshalJSON() ([]byte, error) {
	j := chiRowJSON{Row: r.Row, Kind: r.Kind, Sets: r.Sets}
	if !math.IsInf(r.Chi2, 0) && !math.IsNaN(r.Chi2) {
		j.Chi2 = &r.Chi2
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a null chi2 back as +Inf (no samples).
func (r *ChiRow) UnmarshalJSON(b []byte) error {
	var j chiRowJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = ChiRow{Row: j.Row, Kind: j.Kind, Sets: j.Sets, Chi2: math.Inf(1)}
	if j.Chi2 != nil {
		r.Chi2 = *j.Chi2
	}
	return nil
}

// A Layout is one procedure order of a guest, applied and measured.
type Layout struct {
	// Name: original; ph-1set-K, c3-1set-K (frequency set K alone);
	// ph-32sets, c3-32sets (all frequency sets); ph-complete,
	// c3-complete; ph-clock-rvdyn-32sets, c3-clock-rvdyn-32sets,
	// ph-clock-native-32sets, c3-clock-native-32sets (all time-based
	// sets of that kind).
	Name      string    `json:"name"`
	Order     []string  `json:"order,omitempty"`
	ELF       string    `json:"elf,omitempty"`
	MissRates []float64 `json:"miss_rates"` // one per Options.Caches, on the test input
	Fetches   uint64    `json:"fetches"`
	// Agree names the runners whose output and status on the test input
	// matched the original ELF's under the interpreter.
	Agree []string `json:"agree"`
}

// Result is the experiment's outcome for one guest.
type Result struct {
	Guest          string               `json:"guest"`
	Train          []string             `json:"train"`
	Test           []string             `json:"test"`
	Sets           int                  `json:"sets"`
	Period         uint64               `json:"period"`
	Procs          int                  `json:"procs"`
	Blocks         int                  `json:"blocks"`
	TextBytes      uint64               `json:"text_bytes"`
	SamplesPerSet  float64              `json:"samples_per_set"`
	IndirectShare  float64              `json:"indirect_call_share"` // of executed calls (complete profile)
	Table5         []ChiRow             `json:"table5"`
	KeyMatch       []int                `json:"key_match"` // f(n), 32 sets vs complete
	Caches         []layout.CacheConfig `json:"caches"`
	Layouts        []Layout             `json:"layouts"`
	SingleMissRate [][3]float64         `json:"single_set_miss_rates"` // per cache: max, average, min (Pettis-Hansen)
	// SingleMissRateC3 is SingleMissRate for C3's single-set orders.
	SingleMissRateC3 [][3]float64 `json:"single_set_miss_rates_c3"`
	// ClockSamplesPerSet are the time-based sets' mean mapped samples
	// per set, and ClockUnmapped their mean samples per set that could
	// not be mapped (rvdyn: outside the code cache; native: outside the
	// guest's functions), by kind.
	ClockSamplesPerSet map[SetKind]float64 `json:"clock_samples_per_set,omitempty"`
	ClockUnmapped      map[SetKind]float64 `json:"clock_unmapped_per_set,omitempty"`
	// Figure3 holds the three profiles the paper's Figure 3 sets side by
	// side: the complete profile, one sample set and all of them summed.
	Figure3 *Figure3 `json:"figure3,omitempty"`
}

// Figure3 is the paper's Figure 3 for one guest (sec. 4.2.1): basic-block
// profiles indexed by block in text order (Program.Blocks), the complete
// profile (executions) and the frequency-based statistical profiles of
// the first sample set and of all Sets summed (samp2bb weights).
type Figure3 struct {
	Sets     int            `json:"sets"`
	Complete layout.Profile `json:"complete"`
	OneSet   layout.Profile `json:"one_set"`
	AllSets  layout.Profile `json:"all_sets"`
}

// Experiment runs the paper's pipeline on g: Sets sampled training runs
// and the complete profile of a training run; Table 5 and Figure 4 from
// them; where Options.Clock and NativeClock are set, Sets time-based
// sets of each kind and their Table 5 rows; Pettis-Hansen and C3 orders
// from each of the first Singles sets, from all frequency sets, from all
// time-based sets of each kind and from the complete profile; each
// relinked with the cross linker; every layout's test run under the interpreter feeding the cache
// simulators (Table 6), its output compared with the original's and with
// each runner's.
func Experiment(g Guest, o Options) (*Result, error) {
	o = o.withDefaults()
	if o.Sample == nil || o.GuestsDir == "" || o.WorkDir == "" {
		return nil, fmt.Errorf("layout: Experiment needs Options.Sample, GuestsDir and WorkDir")
	}
	p, err := layout.Analyze(g.Image)
	if err != nil {
		return nil, err
	}
	r := &Result{Guest: g.Name, Train: g.Train, Test: g.Test, Procs: len(p.Procs), Blocks: len(p.Blocks), Caches: o.Caches, Sets: o.Sets, Period: o.Period}
	for _, q := range p.Procs {
		r.TextBytes += q.Size
	}
	// The complete profile of the training input.
	c := layout.NewComplete(p)
	if _, _, err := interpRun(g.Image, g.Train, c); err != nil {
		return nil, fmt.Errorf("%s: complete profile: %w", g.Name, err)
	}
	complete := c.BlockProfile(p)
	cg := p.CallGraph(complete)
	if t := cg.DirectCalls + cg.IndirectCalls; t > 0 {
		r.IndirectShare = cg.IndirectCalls / t
	}
	// Sample sets.
	o.Log("%s: %d sample sets of %v, one sample per %d instructions", g.Name, o.Sets, g.Train, o.Period)
	sets := make([]layout.Profile, o.Sets)
	var samples float64
	for k := range sets {
		s, err := o.Sample(g.Image, g.Train, layout.SampleOptions{Period: o.Period, Seed: o.Seed + uint64(k)})
		if err != nil {
			return nil, fmt.Errorf("%s: sample set %d: %w", g.Name, k, err)
		}
		samples += s.Total()
		sets[k], _ = p.BlockProfile(s)
	}
	r.SamplesPerSet = samples / float64(o.Sets)
	// Table 5 and Figure 4.
	sum, rows := sumSets(Frequency, sets, complete)
	r.Table5 = rows
	ex, _ := layout.ChiSquare(layout.Expected(complete, o.Seed), complete)
	gm, _ := layout.ChiSquare(layout.GoodMatch(complete, o.Seed), complete)
	r.Table5 = append(r.Table5, ChiRow{Row: `"expected"`, Chi2: ex}, ChiRow{Row: "good match", Chi2: gm})
	r.KeyMatch = layout.KeyMatch(complete, sum, 0)
	r.Figure3 = &Figure3{Sets: o.Sets, Complete: complete, OneSet: sets[0], AllSets: append(layout.Profile(nil), sum...)}
	// Time-based sets, labelled by kind, after the reference rows.
	clockSums, err := clockSets(g, p, o, complete, r)
	if err != nil {
		return nil, err
	}
	// Orders.
	layouts := []Layout{{Name: "original"}}
	add := func(name string, order []int) {
		layouts = append(layouts, Layout{Name: name, Order: p.Names(order)})
	}
	add(fmt.Sprintf("ph-%dsets", o.Sets), layout.PettisHansen(p.CallGraph(sum)))
	add("ph-complete", layout.PettisHansen(cg))
	add(fmt.Sprintf("c3-%dsets", o.Sets), layout.C3(p.CallGraph(sum), o.MaxCluster))
	add("c3-complete", layout.C3(cg, o.MaxCluster))
	for _, cs := range clockSums {
		add(fmt.Sprintf("ph-%s-%dsets", cs.kind, o.Sets), layout.PettisHansen(p.CallGraph(cs.sum)))
		add(fmt.Sprintf("c3-%s-%dsets", cs.kind, o.Sets), layout.C3(p.CallGraph(cs.sum), o.MaxCluster))
	}
	for k := range o.Singles {
		add(fmt.Sprintf("ph-1set-%d", k+1), layout.PettisHansen(p.CallGraph(sets[k])))
		add(fmt.Sprintf("c3-1set-%d", k+1), layout.C3(p.CallGraph(sets[k]), o.MaxCluster))
	}
	if err := relinkAll(g, layouts, o); err != nil {
		return nil, err
	}
	if err := simulateAll(g, layouts, o); err != nil {
		return nil, err
	}
	r.Layouts = layouts
	r.SingleMissRate = singleMissRates(layouts, len(o.Caches), "ph-1set-")
	r.SingleMissRateC3 = singleMissRates(layouts, len(o.Caches), "c3-1set-")
	return r, nil
}

// sumSets sums sets in order and returns the sum and Table 5's rows for
// 1, 2, 4, ... summed sets of kind.
func sumSets(kind SetKind, sets []layout.Profile, complete layout.Profile) (layout.Profile, []ChiRow) {
	sum := make(layout.Profile, len(complete))
	var rows []ChiRow
	for k := range sets {
		sum.Add(sets[k])
		if n := k + 1; n&(n-1) == 0 {
			chi, _ := layout.ChiSquare(sum, complete)
			row := fmt.Sprintf("%d sample sets", n)
			if n == 1 {
				row = "1 sample set"
			}
			if kind != Frequency {
				row = string(kind) + ": " + row
			}
			rows = append(rows, ChiRow{Row: row, Kind: kind, Sets: n, Chi2: chi})
		}
	}
	return sum, rows
}

// clockSum is the sum of one kind of time-based sets.
type clockSum struct {
	kind SetKind
	sum  layout.Profile
}

// clockSets takes Sets time-based sample sets of each kind o provides
// a sampler for, adds their Table 5 rows to r and returns their sums.
func clockSets(g Guest, p *layout.Program, o Options, complete layout.Profile, r *Result) ([]clockSum, error) {
	type source struct {
		kind SetKind
		take func() (layout.SampleSet, float64, error)
	}
	var srcs []source
	if o.Clock != nil {
		srcs = append(srcs, source{ClockRvdyn, func() (layout.SampleSet, float64, error) { return o.Clock(g.Image, g.Train) }})
	}
	if o.NativeClock != nil {
		srcs = append(srcs, source{ClockNative, func() (layout.SampleSet, float64, error) {
			funcs, err := o.NativeClock(g.Name, g.Train)
			if err != nil {
				return nil, 0, err
			}
			s, un := p.FuncSampleSet(funcs)
			return s, un, nil
		}})
	}
	var out []clockSum
	for _, src := range srcs {
		o.Log("%s: %d time-based sample sets (%s) of %v", g.Name, o.Sets, src.kind, g.Train)
		sets := make([]layout.Profile, o.Sets)
		var mapped, unmapped float64
		for k := range sets {
			s, un, err := src.take()
			if err != nil {
				return nil, fmt.Errorf("%s: %s sample set %d: %w", g.Name, src.kind, k, err)
			}
			mapped += s.Total()
			unmapped += un
			sets[k], _ = p.BlockProfile(s)
		}
		if r.ClockSamplesPerSet == nil {
			r.ClockSamplesPerSet, r.ClockUnmapped = map[SetKind]float64{}, map[SetKind]float64{}
		}
		r.ClockSamplesPerSet[src.kind] = mapped / float64(o.Sets)
		r.ClockUnmapped[src.kind] = unmapped / float64(o.Sets)
		sum, rows := sumSets(src.kind, sets, complete)
		r.Table5 = append(r.Table5, rows...)
		out = append(out, clockSum{src.kind, sum})
	}
	return out, nil
}

// singleMissRates returns, per cache, the max, average and min miss
// rate of the layouts whose names start with prefix (nil when none).
func singleMissRates(layouts []Layout, caches int, prefix string) [][3]float64 {
	out := make([][3]float64, caches)
	for ci := range caches {
		mx, avg, mn := 0.0, 0.0, 1.0
		n := 0
		for _, l := range layouts {
			if strings.HasPrefix(l.Name, prefix) {
				m := l.MissRates[ci]
				mx, mn, avg = max(mx, m), min(mn, m), avg+m
				n++
			}
		}
		if n > 0 {
			out[ci] = [3]float64{mx, avg / float64(n), mn}
		}
	}
	return out
}

func (o Options) withDefaults() Options {
	if o.Sets <= 0 {
		o.Sets = 32
	}
	if o.Singles <= 0 || o.Singles > o.Sets {
		o.Singles = o.Sets
	}
	if o.Period == 0 {
		o.Period = 10000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if len(o.Caches) == 0 {
		o.Caches = DefaultCaches
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	return o
}

// relinkAll writes each layout's linker script and relinks the guest
// with it (the original keeps the corpus ELF).
func relinkAll(g Guest, layouts []Layout, o Options) error {
	base, err := os.ReadFile(filepath.Join(o.GuestsDir, "rt", "guest.ld"))
	if err != nil {
		return err
	}
	o.Log("%s: relinking %d layouts", g.Name, len(layouts)-1)
	for i := range layouts {
		l := &layouts[i]
		if l.Order == nil {
			continue
		}
		script, err := layout.LinkerScript(string(base), l.Order)
		if err != nil {
			return err
		}
		ld := filepath.Join(o.WorkDir, g.Name+"."+l.Name+".ld")
		if err := os.WriteFile(ld, []byte(script), 0o644); err != nil {
			return err
		}
		l.ELF = filepath.Join(o.WorkDir, g.Name+"."+l.Name+".elf")
		if err := layout.Relink(o.GuestsDir, g.Name, ld, l.ELF, false); err != nil {
			return err
		}
	}
	return nil
}

// simulateAll runs every layout's ELF on the test input under the
// interpreter with the cache simulators attached, and under each runner,
// Workers at a time. Each job writes only its own Layout.
func simulateAll(g Guest, layouts []Layout, o Options) error {
	o.Log("%s: simulating %d layouts on %v", g.Name, len(layouts), g.Test)
	var wantOut []byte
	var wantStatus int
	errs := make([]error, len(layouts))
	job := func(i int) {
		l := &layouts[i]
		image, path := g.Image, g.Path
		if l.ELF != "" {
			path = l.ELF
			b, err := os.ReadFile(l.ELF)
			if err != nil {
				errs[i] = err
				return
			}
			image = b
		}
		caches := make(layout.Fetcher, len(o.Caches))
		for ci, cfg := range o.Caches {
			c, err := layout.NewCache(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			caches[ci] = c
		}
		out, status, err := interpRun(image, g.Test, caches)
		if err != nil {
			errs[i] = fmt.Errorf("%s %s: %w", g.Name, l.Name, err)
			return
		}
		if i > 0 && (!bytes.Equal(out, wantOut) || status != wantStatus) {
			errs[i] = fmt.Errorf("%s %s: output or status differs from the original's under the interpreter", g.Name, l.Name)
			return
		}
		if i == 0 {
			wantOut, wantStatus = out, status
		}
		l.Fetches = caches[0].Accesses
		for _, c := range caches {
			l.MissRates = append(l.MissRates, c.MissRate())
		}
		l.Agree = []string{"interp"}
		for _, name := range slices.Sorted(maps.Keys(o.Runs)) {
			out2, st2, err := o.Runs[name](path, image, g.Test)
			if err != nil {
				errs[i] = fmt.Errorf("%s %s under %s: %w", g.Name, l.Name, name, err)
				return
			}
			if !bytes.Equal(out2, wantOut) || st2 != wantStatus {
				errs[i] = fmt.Errorf("%s %s: output or status under %s differs from the interpreter's", g.Name, l.Name, name)
				return
			}
			l.Agree = append(l.Agree, name)
		}
	}
	job(0) // the original first: its output is the reference
	if errs[0] != nil {
		return errs[0]
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Workers)
	for i := 1; i < len(layouts); i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			job(i)
		}()
	}
	// wg.Wait orders every job's writes before the reads below (the Go
	// memory model's WaitGroup rule); wantOut was written before the
	// goroutines started.
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// interpRun interprets image with argv, hook h on every instruction,
// and returns its standard output and exit status.
func interpRun(image []byte, argv []string, h interp.Hook) ([]byte, int, error) {
	var out bytes.Buffer
	m, err := interp.Load(image, interp.Config{Args: argv, Stdout: &out})
	if err != nil {
		return nil, 0, err
	}
	defer m.Close()
	m.SetHook(layout.AllClasses, h)
	if err := m.Run(0); err != nil {
		return nil, 0, err
	}
	return out.Bytes(), m.ExitCode(), nil
}

// IsSingleSet reports whether a layout name is an order from one sample
// set (ph-1set-K, c3-1set-K): the columns Table 6 summarizes as max,
// average and min.
func IsSingleSet(name string) bool {
	return strings.HasPrefix(name, "ph-1set-") || strings.HasPrefix(name, "c3-1set-")
}
