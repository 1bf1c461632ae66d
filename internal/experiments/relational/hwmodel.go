// RPA hardware experiment: Scheme programs run with the paper's edge and store-barrier queries in; the positions of their profiled instructions fed to the hardware cost model (rpa.HWModel) and Figures 7, 8a, 8b and Table 6 of the relational-profiling paper, from the model, beside the paper's numbers out.

package relational

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// RPAHWRates are the edge-profiling sampling periods of the paper's
// Table 6 and Figure 8c.
var RPAHWRates = []int{32, 64, 128, 256}

// RPAHWPaperTable6 is the paper's Table 6 (instructions and cycles per
// profiled instruction at branch sampling 1/32, 1/64, 1/128, 1/256), per
// benchmark, in the paper's order.
var RPAHWPaperTable6 = []struct {
	Bench         string
	Insts, Cycles [4]float64
}{
	{"strata", [4]float64{110, 149, 182, 205}, [4]float64{47, 64, 78, 88}},
	{"db", [4]float64{113, 173, 237, 290}, [4]float64{44, 67, 91, 112}},
	{"jack", [4]float64{35, 38, 41, 42}, [4]float64{13, 14, 15, 15}},
	{"javac", [4]float64{128, 212, 317, 420}, [4]float64{57, 94, 139, 184}},
	{"jess", [4]float64{166, 299, 499, 750}, [4]float64{62, 111, 185, 277}},
	{"ray", [4]float64{289, 468, 676, 869}, [4]float64{99, 160, 230, 296}},
}

// RPAHWPaperFigure8 is what the paper's text gives of Figure 8 (sec.
// 6.2; 8 profile buffers, edge profiling at 1/256 and the GC query):
// dispatch stalls and slow-down against the number of profile networks.
const RPAHWPaperFigure8 = "dispatch stalled (Figure 8a): strata 3.8% of cycles with one profile network to 0.5% with four; jack 12.4% with one, 1.7% with four. Slow-down (Figure 8b): below 0.5% for all benchmarks with three networks, effectively zero with four (jack slightly negative); about half of the dispatch stalls are hidden by the out-of-order window"

// RPAHWPaperFigure8c is what the paper's text gives of Figure 8c (sec.
// 6.2): the slow-down at edge sampling 1/32 to 1/256, the GC query
// included.
const RPAHWPaperFigure8c = "strata and jack show a mild increase in profiling overhead as the sampling rate rises from 1/256 to 1/32 (jack can profile about one in 41 instructions before profiling stalls the processor)"

// RPAHWPaperFigure7 is what the paper's text gives of Figure 7 (sec. 6.1;
// 32 buffers and 32 networks, edge profiling at 1/256 and the GC query).
const RPAHWPaperFigure7 = "raytrace, db and jess rarely use more than one profile buffer; strata, javac and jack load the RPA more; eight buffers appear sufficient (only jack uses more, and eight are nearly enough); profile instructions in flight (one network each) look much like the buffer histograms, slightly lower"

// An RPAHWGuest is one program's event streams and model results.
type RPAHWGuest struct {
	Program      string `json:"program"`
	Instructions uint64 `json:"instructions"`
	TaggedStores int    `json:"tagged_stores"` // every one a profiled instruction (Figure 2c's query runs on all of them)
	// Rates[i] is the model at edge sampling 1/RPAHWRates[i] with the
	// unrestricted hardware (Figure 7's configuration); Networks[k] at
	// 1/256 with 8 buffers and k+1 networks (Figure 8), Cheap the same
	// with sec. 6.3's cheap profiles.
	Rates    []rpa.HWResult `json:"rates"`
	Networks []rpa.HWResult `json:"networks"`
	Cheap    []rpa.HWResult `json:"cheap"`
	// ByRate[i][k] is the model at edge sampling 1/RPAHWRates[i] with 8
	// buffers and k+1 networks (Figure 8c; the paper does not say how
	// many networks its Figure 8c had, so every count is given).
	ByRate [][]rpa.HWResult `json:"by_rate"`
}

// RPAHWReport is the experiment's result.
type RPAHWReport struct {
	Model  rpa.HWConfig  `json:"model"`
	Size   string        `json:"size"`
	Guests []*RPAHWGuest `json:"guests"`
}

// rpaHWEvents runs the Scheme guest's program in interp mode with the
// paper's two queries (edge profiling of every period-th branch, and
// every reference store, tag 1), each collecting the fetch time (the
// retired-instruction count), and returns the profiled instructions in
// stream order and the stream's length.
func rpaHWEvents(program, size string, period int) ([]rpa.HWEvent, int, uint64, error) {
	text := fmt.Sprintf("for opBRANCH * every %d collect ftime;\nsend 1 stop;\nfor opSTORE 1 always collect ftime;\nsend 3 stop;\n", period)
	p, err := rpa.Assemble(text)
	if err != nil {
		return nil, 0, 0, err
	}
	var mu sync.Mutex
	var edges, stores []uint64
	grab := func(dst *[]uint64) func(m *mq.Message) {
		var hi, last uint64 // ftime is the low 32 bits: unwrap it
		return func(m *mq.Message) {
			t := m[0] & 0xffffffff
			if t < last {
				hi += 1 << 32
			}
			last = t
			mu.Lock()
			*dst = append(*dst, hi|t)
			mu.Unlock()
		}
	}
	s, err := rpa.Start(p, rpa.Options{Seed: 1, Handlers: map[int]func(*mq.Message){1: grab(&edges), 3: grab(&stores)}}, 0)
	if err != nil {
		return nil, 0, 0, err
	}
	image, err := corpus.ELF("scheme")
	if err != nil {
		s.Close()
		return nil, 0, 0, err
	}
	vm, err := rvdyn.New(image, rvdyn.Options{Mode: rvdyn.ModeInterp, Profiler: s,
		Config: interp.Config{Args: []string{"scheme", program, size}, Stdout: io.Discard, Stderr: io.Discard}})
	if err != nil {
		s.Close()
		return nil, 0, 0, err
	}
	_, err = vm.Run()
	st := vm.Stats()
	vm.Close()
	s.Close()
	if err != nil {
		return nil, 0, 0, err
	}
	evs := make([]rpa.HWEvent, 0, len(edges)+len(stores))
	for _, t := range edges {
		evs = append(evs, rpa.HWEvent{Seq: t, Insts: 1})
	}
	for _, t := range stores {
		evs = append(evs, rpa.HWEvent{Seq: t, Insts: 1})
	}
	slices.SortFunc(evs, func(a, b rpa.HWEvent) int { return cmp.Compare(a.Seq, b.Seq) })
	return evs, len(stores), st.GuestInstructions, nil
}

// RunRPAHW runs the experiment on the Scheme programs at size (each
// program once per sampling rate, in interp mode: the event stream does
// not depend on timing) and applies the model: cfg's processor
// assumptions with the paper's resource configurations.
func RunRPAHW(programs []string, size string, cfg rpa.HWConfig, log io.Writer) (*RPAHWReport, error) {
	r := &RPAHWReport{Model: cfg, Size: size}
	for _, prog := range programs {
		g := &RPAHWGuest{Program: prog}
		for _, rate := range RPAHWRates {
			evs, stores, n, err := rpaHWEvents(prog, size, rate)
			if err != nil {
				return nil, fmt.Errorf("%s at 1/%d: %w", prog, rate, err)
			}
			g.Instructions, g.TaggedStores = n, stores
			g.Rates = append(g.Rates, rpa.HWModel(cfg, evs, n))
			var row []rpa.HWResult
			for nets := 1; nets <= 4; nets++ {
				c := cfg
				c.Networks, c.Buffers = nets, 8
				row = append(row, rpa.HWModel(c, evs, n))
			}
			g.ByRate = append(g.ByRate, row)
			if rate == 256 {
				for nets := 1; nets <= 4; nets++ {
					c := cfg
					c.Networks, c.Buffers = nets, 8
					g.Networks = append(g.Networks, rpa.HWModel(c, evs, n))
					c.Cheap = true
					g.Cheap = append(g.Cheap, rpa.HWModel(c, evs, n))
				}
			}
		}
		fmt.Fprintf(log, "rpa hw model: %s: %d instructions, %d reference stores\n", prog, g.Instructions, g.TaggedStores)
		r.Guests = append(r.Guests, g)
	}
	return r, nil
}

// WriteJSON writes the report to path.
func (r *RPAHWReport) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteTables writes Table 6 and Figures 7 and 8's numbers, ours (from
// the model) beside the paper's.
func (r *RPAHWReport) WriteTables(w io.Writer) {
	m := r.Model
	fmt.Fprintf(w, "MODEL, not a measurement: the positions of the profiled instructions are measured (the Scheme guest at size %s,\n", r.Size)
	fmt.Fprintln(w, "edge profiling of every Nth branch and every reference store, as the paper's Figure 2a and 2c queries); the hardware")
	fmt.Fprintf(w, "is the paper's (barrel query engine of %d slots, %d cycles per query instruction; networks held dispatch to retirement,\n", m.QuerySlots, m.QueryStages)
	fmt.Fprintf(w, "buffers until the query completes); the processor is our assumption: IPC %.1f when not stalled, %.0f cycles dispatch to retirement.\n\n", m.IPC, m.Flight)

	fmt.Fprintln(w, "Table 6: instructions and cycles per profiled instruction (instructions: measured; cycles: model)")
	fmt.Fprintf(w, "  %-10s %8s %8s %8s %8s | %8s %8s %8s %8s\n", "", "i 1/32", "1/64", "1/128", "1/256", "c 1/32", "1/64", "1/128", "1/256")
	for _, p := range RPAHWPaperTable6 {
		fmt.Fprintf(w, "  %-10s %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f %8.0f %8.0f\n", "paper "+p.Bench, p.Insts[0], p.Insts[1], p.Insts[2], p.Insts[3], p.Cycles[0], p.Cycles[1], p.Cycles[2], p.Cycles[3])
	}
	for _, g := range r.Guests {
		fmt.Fprintf(w, "  %-10s", g.Program)
		for _, x := range g.Rates {
			fmt.Fprintf(w, " %8.1f", x.InstructionsPerSample())
		}
		fmt.Fprint(w, " |")
		for _, x := range g.Rates {
			fmt.Fprintf(w, " %8.1f", x.CyclesPerSample())
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\nFigure 7 (32 buffers, 32 networks, edge 1/256): %% of cycles with at least x in use\n  paper: %s.\n", RPAHWPaperFigure7)
	fmt.Fprintf(w, "  %-10s %-9s", "", "")
	for x := 1; x <= 10; x++ {
		fmt.Fprintf(w, " %6s", fmt.Sprintf(">=%d", x))
	}
	fmt.Fprintln(w)
	for _, g := range r.Guests {
		res := g.Rates[len(g.Rates)-1]
		for _, row := range []struct {
			name string
			h    []float64
		}{{"buffers", res.BuffersAtLeast}, {"networks", res.NetworksAtLeast}} {
			fmt.Fprintf(w, "  %-10s %-9s", g.Program, row.name)
			for x := 1; x <= 10; x++ {
				v := 0.0
				if x < len(row.h) {
					v = row.h[x]
				}
				fmt.Fprintf(w, " %6.2f", v)
			}
			fmt.Fprintln(w)
		}
	}

	fmt.Fprintf(w, "\nFigure 8a/8b (8 buffers, edge 1/256): dispatch stalled (%% of cycles) and slow-down upper bound (%%) by profile networks\n  paper: %s.\n", RPAHWPaperFigure8)
	fmt.Fprintf(w, "  %-10s %-22s %8s %8s %8s %8s\n", "", "", "1 net", "2", "3", "4")
	for _, g := range r.Guests {
		for _, row := range []struct {
			name string
			rs   []rpa.HWResult
			f    func(rpa.HWResult) float64
		}{
			{"stalled %", g.Networks, rpa.HWResult.StallPercent},
			{"slow-down % (bound)", g.Networks, rpa.HWResult.SlowdownPercent},
			{"cheap: stalled % (6.3)", g.Cheap, rpa.HWResult.StallPercent},
		} {
			fmt.Fprintf(w, "  %-10s %-22s", g.Program, row.name)
			for _, x := range row.rs {
				fmt.Fprintf(w, " %8.3f", row.f(x))
			}
			fmt.Fprintln(w)
		}
	}

	fmt.Fprintf(w, "\nFigure 8c (8 buffers): slow-down upper bound (%%) by edge sampling rate, for 1 to 4 profile networks\n  paper: %s.\n", RPAHWPaperFigure8c)
	fmt.Fprintf(w, "  %-10s %-6s %8s %8s %8s %8s\n", "", "rate", "1 net", "2", "3", "4")
	for _, g := range r.Guests {
		for i, row := range g.ByRate {
			fmt.Fprintf(w, "  %-10s 1/%-4d", g.Program, RPAHWRates[i])
			for _, x := range row {
				fmt.Fprintf(w, " %8.3f", x.SlowdownPercent())
			}
			fmt.Fprintln(w)
		}
	}
}
