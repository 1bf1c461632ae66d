// The predict command: guests, prediction delays and a hot threshold in; NET vs path profile prediction tables, JSON and a Figure 2 style plot out.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
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
}

func predictCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	delayList := fs.String("delays", joinInts(net.DefaultDelays), "prediction delays tau to evaluate, comma-separated")
	hotFlag := fs.String("hot", "0.1%", "hot threshold h: a path is hot if its frequency exceeds this share of all path executions")
	guest := fs.String("guest", "", "run these embedded guests (comma-separated; 'all' for every one) instead of a file")
	small := fs.Bool("small", false, "run embedded guests at their small size (bench/corpus/sizes.txt) instead of the default")
	jsonOut := fs.String("json", "", "write the results as a JSON list (one object per guest) to this file")
	plotOut := fs.String("plot", "", "draw hit rate vs profiled flow (Figure 2) to this .svg or .png file")
	maxInsts := fs.Uint64("max-instructions", 0, "stop each guest after this many instructions (0 = run to exit)")
	// A bad flag gets the flag package's one-line error only; -h the usage.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, predictUsage, corpus.Default)
			fs.PrintDefaults()
			return 0
		}
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: predict: "+format+"\n", a...)
		return exitUsage
	}
	delays, err := parseDelays(*delayList)
	if err != nil {
		return fail("--delays: %v", err)
	}
	hot, err := parseShare(*hotFlag)
	if err != nil {
		return fail("--hot: %v", err)
	}
	if ext := strings.ToLower(filepath.Ext(*plotOut)); *plotOut != "" && ext != ".svg" && ext != ".png" {
		return fail("--plot %s: want a .svg or .png file", *plotOut)
	}

	jobs, err := selectGuests(fs.Args(), *guest, *small)
	if err != nil {
		return fail("%v", err)
	}

	var names []string
	var as []*net.Analysis
	var rows []predictRow
	status := 0
	for _, j := range jobs {
		run, err := net.RunGuest(net.Guest{Image: j.image, Config: interp.Config{Args: j.args}, MaxInstructions: *maxInsts}, delays, hot)
		if err != nil {
			fmt.Fprintf(stderr, "rvdyn: predict: %s: %v\n", j.name, err)
			status = 1
			if run == nil || run.Profile.Flow == 0 {
				continue
			}
		}
		a := run.Analysis
		fmt.Fprintf(stdout, "== %s: %d instructions, exit %d\n", strings.Join(j.args, " "), run.Instructions, run.ExitCode)
		net.WriteSummary(stdout, []string{j.name}, []*net.Analysis{a})
		net.WriteAnalysis(stdout, a)
		fmt.Fprintln(stdout)
		names, as = append(names, j.name), append(as, a)
		rows = append(rows, predictRow{j.name, j.args, run.Instructions, run.ExitCode, a.Summary, a.Results})
	}
	if len(as) > 1 {
		fmt.Fprintf(stdout, "== all %d guests (hot threshold %g%% of the flow)\n", len(as), hot*100)
		net.WriteSummary(stdout, names, as)
		fmt.Fprintln(stdout, "\naverages over the guests:")
		net.WriteAverages(stdout, as)
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rows); err != nil {
			return fail("--json: %v", err)
		}
	}
	if *plotOut != "" && len(as) > 0 {
		if err := plotPredict(names, as, *plotOut); err != nil {
			return fail("--plot: %v", err)
		}
	}
	return status
}

// parseDelays parses a comma-separated list of delays >= 0.
func parseDelays(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad delay %q in %q (want integers >= 0)", f, s)
		}
		out = append(out, n)
	}
	return out, nil
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

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// plotPredict draws Figure 2's grid: hit rate against profiled flow, one
// line per guest (points are the delays), path profile on top and NET
// below; the right column zooms into the upper left 10% square.
func plotPredict(names []string, as []*net.Analysis, path string) error {
	grid := make([][]*plot.Plot, net.NumSchemes)
	for s := range net.NumSchemes {
		for zoom := range 2 {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%v prediction: hit rate", s)
			p.X.Label.Text = "profiled flow (% of all path executions)"
			p.Y.Label.Text = "hit rate (% of the hot flow)"
			if zoom == 1 {
				p.Title.Text += " (zoom into the upper left 10%)"
			}
			p.Legend.Top, p.Legend.Left = false, true
			var lines []any
			for i, a := range as {
				pts := plotter.XYs{{X: 0, Y: 100}} // delay 0
				for _, d := range a.Delays() {
					r := a.Find(s, d)
					pts = append(pts, plotter.XY{X: r.ProfiledFlow, Y: r.HitRate})
				}
				lines = append(lines, names[i], pts)
			}
			if err := plotutil.AddLinePoints(p, lines...); err != nil {
				return err
			}
			// After Add, which widens the axes to the data.
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
			if zoom == 1 {
				p.X.Max, p.Y.Min = 10, 90
			}
			grid[s] = append(grid[s], p)
		}
	}
	w, h := 11*vg.Inch, 8*vg.Inch
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	if strings.ToLower(filepath.Ext(path)) == ".svg" {
		c = vgsvg.New(w, h)
	} else {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	tiles := draw.Tiles{Rows: len(grid), Cols: 2, PadX: 6 * vg.Millimeter, PadY: 6 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(grid, tiles, draw.New(c))
	for i := range grid {
		for j, p := range grid[i] {
			p.Draw(canvases[i][j])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
