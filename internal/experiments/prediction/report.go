// Prediction reports: analyses of guest runs -> Table 1/2 style summaries, per-delay tables, averages and hit rates at a given profiled flow.

package prediction

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"rvdyn/net"
)

// DefaultDelays are the prediction delays the predict experiment sweeps
// (section 5.1 ran 10 to 1,000,000).
var DefaultDelays = []int{1, 10, 50, 100, 1000, 10000, 100000}

// HitRateAt returns scheme s's hit rate at the given profiled flow (a
// percentage), interpolating linearly between the delays of a, as one
// reads Figure 2 ("at 10% profiled flow ... a hit rate of about 97.5").
// Delay 0 is the point (0%, 100%) for both schemes: every path is
// predicted at its first execution and captures its whole flow. It
// returns NaN beyond the largest profiled flow measured.
func HitRateAt(a *net.Analysis, s net.Scheme, profiled float64) float64 {
	return interpolate(a, s, profiled, func(r *net.Result) float64 { return r.HitRate }, 100)
}

// NoiseRateAt is HitRateAt for the noise rate (Figure 3); its delay 0
// point is the cold flow as a percentage of the hot flow.
func NoiseRateAt(a *net.Analysis, s net.Scheme, profiled float64) float64 {
	sum := a.Summary
	return interpolate(a, s, profiled, func(r *net.Result) float64 { return r.NoiseRate }, pct(sum.Flow-sum.HotFlow, sum.HotFlow))
}

func interpolate(a *net.Analysis, s net.Scheme, x float64, y func(*net.Result) float64, y0 float64) float64 {
	type pt struct{ x, y float64 }
	pts := []pt{{0, y0}}
	for i := range a.Results {
		if r := &a.Results[i]; r.Scheme == s {
			pts = append(pts, pt{r.ProfiledFlow, y(r)})
		}
	}
	slices.SortStableFunc(pts, func(p, q pt) int {
		if p.x < q.x {
			return -1
		}
		if p.x > q.x {
			return 1
		}
		return 0
	})
	for i := 1; i < len(pts); i++ {
		p, q := pts[i-1], pts[i]
		if x >= p.x && x <= q.x {
			if q.x == p.x {
				return q.y
			}
			return p.y + (q.y-p.y)*(x-p.x)/(q.x-p.x)
		}
	}
	return math.NaN()
}

// An Average is the mean over several runs of one scheme's numbers at one
// delay (unweighted, as the paper's "on average").
type Average struct {
	Scheme       net.Scheme
	Delay        int
	ProfiledFlow float64
	HitRate      float64
	NoiseRate    float64
	MOCRate      float64
	Predicted    float64
	CounterSpace float64
}

// Averages returns, for every delay and scheme present in all analyses,
// the mean of their results.
func Averages(as []*net.Analysis) []Average {
	if len(as) == 0 {
		return nil
	}
	var out []Average
	for _, d := range as[0].Delays() {
		for s := range net.NumSchemes {
			avg := Average{Scheme: s, Delay: d}
			n := 0
			for _, a := range as {
				r := a.Find(s, d)
				if r == nil {
					continue
				}
				n++
				avg.ProfiledFlow += r.ProfiledFlow
				avg.HitRate += r.HitRate
				avg.NoiseRate += r.NoiseRate
				avg.MOCRate += r.MOCRate
				avg.Predicted += float64(r.Predicted)
				avg.CounterSpace += float64(r.CounterSpace)
			}
			if n != len(as) {
				continue
			}
			f := 1 / float64(n)
			avg.ProfiledFlow *= f
			avg.HitRate *= f
			avg.NoiseRate *= f
			avg.MOCRate *= f
			avg.Predicted *= f
			avg.CounterSpace *= f
			out = append(out, avg)
		}
	}
	return out
}

// CounterRatio is NET's counter space as a percentage of path profile
// based prediction's: distinct heads over distinct paths (Figure 4).
func CounterRatio(s net.Summary) float64 { return pct(uint64(s.Heads), uint64(s.Paths)) }

// WriteSummary writes one Table 1/Table 2 row per run: paths, flow, hot
// paths and their share of the flow, unique heads, and the counter space
// ratio of Figure 4.
func WriteSummary(w io.Writer, names []string, as []*net.Analysis) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\t#paths\tflow\t#hot paths\thot flow %\t#unique heads\tNET/path counters %\t")
	var ratio, hotPct float64
	for i, a := range as {
		s := a.Summary
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%d\t%.1f\t\n", names[i], s.Paths, s.Flow, s.HotPaths, s.HotFlowPct, s.Heads, CounterRatio(s))
		ratio += CounterRatio(s)
		hotPct += s.HotFlowPct
	}
	if n := float64(len(as)); n > 1 {
		fmt.Fprintf(tw, "average\t\t\t\t%.1f\t\t%.1f\t\n", hotPct/n, ratio/n)
	}
	tw.Flush()
}

// WriteAnalysis writes one run's per-delay table: for each scheme the
// profiled flow, hit rate, noise rate and missed-opportunity cost (% of
// the hot flow), the number of predicted paths and the counter space.
func WriteAnalysis(w io.Writer, a *net.Analysis) {
	tw := tabwriter.NewWriter(w, 0, 8, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tpath profile\t\t\t\t\t\t|\tNET\t\t\t\t\t\t|\tNET once (one trace per head)\t\t\t\t\t\t")
	fmt.Fprintln(tw, "delay\tprofiled%\thit%\tnoise%\tMOC%\t|P|\tcounters\t|\tprofiled%\thit%\tnoise%\tMOC%\t|P|\tcounters\t|\tprofiled%\thit%\tnoise%\tMOC%\t|P|\tcounters\t")
	for _, d := range a.Delays() {
		fmt.Fprintf(tw, "%d\t", d)
		for s := range net.NumSchemes {
			if r := a.Find(s, d); r != nil {
				fmt.Fprintf(tw, "%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t", r.ProfiledFlow, r.HitRate, r.NoiseRate, r.MOCRate, r.Predicted, r.CounterSpace)
			}
			if s+1 < net.NumSchemes {
				fmt.Fprint(tw, "|\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// WriteAverages writes the per-delay averages over all runs, the curve
// of Figures 2 and 3 averaged, and the averaged hit and noise rates read
// off each run's curve at 1%, 5% and 10% profiled flow.
func WriteAverages(w io.Writer, as []*net.Analysis) {
	tw := tabwriter.NewWriter(w, 0, 8, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "delay\tscheme\tprofiled%\thit%\tnoise%\tMOC%\t|P|\tcounters\t")
	for _, v := range Averages(as) {
		fmt.Fprintf(tw, "%d\t%v\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t\n", v.Delay, v.Scheme, v.ProfiledFlow, v.HitRate, v.NoiseRate, v.MOCRate, v.Predicted, v.CounterSpace)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 8, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nat profiled flow\tscheme\thit%\tnoise%\truns\t")
	for _, x := range []float64{1, 5, 10} {
		for s := range net.NumSchemes {
			var hit, noise float64
			n := 0
			for _, a := range as {
				h, z := HitRateAt(a, s, x), NoiseRateAt(a, s, x)
				if !math.IsNaN(h) && !math.IsNaN(z) {
					hit, noise, n = hit+h, noise+z, n+1
				}
			}
			if n > 0 {
				fmt.Fprintf(tw, "%g%%\t%v\t%.2f\t%.2f\t%d\t\n", x, s, hit/float64(n), noise/float64(n), n)
			}
		}
	}
	tw.Flush()
}

// pct is a as a percentage of b (0 when b is 0), computed as package net
// computes its rates.
func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b) * 100
}
