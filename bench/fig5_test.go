package bench

import (
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/figure"
)

// fig5Report is a made-up sweep: two guests, native 1 s, NET faster
// than native on one guest at delay 50, path profile based prediction
// never.
func fig5Report(native bool) *Report {
	r := &Report{Delays: []int{10, 50}, Paths: true}
	add := func(g, mode string, d int, pred string, s float64) {
		r.Measurements = append(r.Measurements, &Measurement{Guest: g, Mode: mode, Delay: d, Predict: pred, Median: s})
	}
	for _, g := range []string{"a", "b"} {
		add(g, ModeInterp, 0, "", 10)
		if native {
			add(g, ModeNative, 0, "", 1)
		}
		for _, d := range r.Delays {
			s := 2.0
			if g == "a" && d == 50 {
				s = 0.8
			}
			add(g, ModeDynamo, d, "", s)
			add(g, ModeDynamo, d, "path", 4)
		}
	}
	return r
}

func TestFigure5(t *testing.T) {
	t.Setenv(figure.CheckEnv, "1")
	if fig5Report(false).HasFigure5() {
		t.Error("Figure 5 without native runs")
	}
	r := fig5Report(true)
	var b strings.Builder
	r.WriteFigure5(&b)
	for _, want := range []string{"averaging over 15%", "   10          0.50x               0 of   2          0.25x               0 of   2",
		"   50          0.79x               1 of   2          0.25x               0 of   2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if err := PlotSweep(r, filepath.Join(t.TempDir(), "fig5.svg")); err != nil {
		t.Error(err)
	}
}
