// Convergence: an experiment's error series in, the number of profiling events needed to reach an error threshold and to stay below it out (stratified 5.4).

package hwprofile

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// DefaultErrorThreshold is the "maximum tolerable error" of stratified
// sampling section 5.4: 5%, as a fraction.
const DefaultErrorThreshold = 0.05

// Convergence is how quickly one configuration's error got below a
// threshold, in profiling events (tuples consumed), read off its Series
// at the checkpoints (so its resolution is the checkpoint spacing:
// Experiment.Every, or the 1-2-5 series by default).
//
// Stratified sampling section 5.4 (Figure 7, gcc, 5%): H[P256]2048
// reaches the threshold after 200K events and stays below it from 300K
// on; R256 reaches it after 600-700K but stays below only from about 7M,
// "about 23 times longer".
type Convergence struct {
	Guest   string `json:"guest,omitempty"`
	Config  string `json:"config"`
	Profile string `json:"profile"`
	// Threshold is the error threshold, a fraction.
	Threshold float64 `json:"threshold"`
	// Reach is the tuples consumed at the first checkpoint whose error is
	// at most Threshold (and that had something to score); Reached is
	// false if none was.
	Reach   uint64 `json:"reach_tuples"`
	Reached bool   `json:"reached"`
	// Settle is the tuples at the first checkpoint from which every later
	// checkpoint's error is at most Threshold; Settled is false if the
	// last checkpoint is above it (or nothing was ever scored).
	Settle  uint64 `json:"settle_tuples"`
	Settled bool   `json:"settled"`
}

// ConvergenceOf reads r's Series against threshold (a fraction).
// Checkpoints with nothing to score (Point.Scored == 0) neither reach nor
// break the threshold.
func ConvergenceOf(r Row, threshold float64) Convergence {
	c := Convergence{Guest: r.Guest, Config: r.Config, Profile: r.Profile, Threshold: threshold}
	below := false // every scored checkpoint since c.Settle is below
	for _, p := range r.Series {
		if p.Scored == 0 {
			continue
		}
		ok := p.Error <= threshold
		if ok && !c.Reached {
			c.Reach, c.Reached = p.Tuples, true
		}
		switch {
		case ok && !below:
			c.Settle, below = p.Tuples, true
		case !ok:
			below = false
		}
	}
	c.Settled = below
	if !below {
		c.Settle = 0
	}
	return c
}

// WriteConvergence writes, for each row of res, the events needed to
// reach threshold and to stay below it, and each as a multiple of the
// same profile's R256 row when there is one (the paper's "23 times
// longer" compares R256 with H[P256]2048). "-" means never within the
// run.
func WriteConvergence(w io.Writer, res *Result, threshold float64) error {
	if !slices.ContainsFunc(res.Rows, func(r Row) bool { return r.IntervalBreakdown == nil }) {
		return nil // interval profilers only
	}
	fmt.Fprintf(w, "\nevents (tuples) to reach %g%% error and to stay below it (stratified 5.4)\n", 100*threshold)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "config\tprofile\treach\tstay below\tR256 reach / reach\tR256 stay / stay\t\n")
	ref := map[string]Convergence{}
	for _, r := range res.Rows {
		if r.Config == "R256" {
			ref[r.Profile] = ConvergenceOf(r, threshold)
		}
	}
	cell := func(v uint64, ok bool) string {
		if !ok {
			return "-"
		}
		return fmt.Sprint(v)
	}
	ratio := func(a uint64, aok bool, b uint64, bok bool) string {
		if !aok || !bok || b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", float64(a)/float64(b))
	}
	for _, r := range res.Rows {
		if r.IntervalBreakdown != nil {
			continue // the interval metric has no stream-progress threshold in the papers
		}
		c := ConvergenceOf(r, threshold)
		rr, hasRef := ref[r.Profile]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Config, r.Profile,
			cell(c.Reach, c.Reached), cell(c.Settle, c.Settled),
			ratio(rr.Reach, hasRef && rr.Reached, c.Reach, c.Reached),
			ratio(rr.Settle, hasRef && rr.Settled, c.Settle, c.Settled))
	}
	return tw.Flush()
}

// ParseThreshold parses an error threshold given as "5%" or "0.05" into
// a fraction in (0, 1].
func ParseThreshold(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("bad error threshold %q (want e.g. 5%% or 0.05)", s)
	}
	if pct {
		v /= 100
	}
	if v <= 0 || v > 1 {
		return 0, fmt.Errorf("error threshold %q is not in (0, 100%%]", s)
	}
	return v, nil
}
