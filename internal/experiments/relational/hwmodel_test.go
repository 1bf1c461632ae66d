package relational

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/figure"
	"rvdyn/profhw/rpa"
)

// TestRunRPAHW runs the hardware model experiment on one small program
// and checks what must hold whatever the machine: every reference store
// is profiled, sparser edge sampling means more instructions per sample,
// more networks never stall more, and the figures pass the style check.
func TestRunRPAHW(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: four interpreted runs of a Scheme program")
	}
	t.Setenv(figure.CheckEnv, "1")
	r, err := RunRPAHW([]string{"tak"}, "small", rpa.PaperHW(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	g := r.Guests[0]
	if g.TaggedStores == 0 || len(g.Rates) != len(RPAHWRates) || len(g.Networks) != 4 || len(g.Cheap) != 4 {
		t.Fatalf("guest %+v", g)
	}
	for i := 1; i < len(g.Rates); i++ {
		if g.Rates[i].InstructionsPerSample() <= g.Rates[i-1].InstructionsPerSample() {
			t.Errorf("1/%d: %.1f instructions per sample, not more than 1/%d's %.1f", RPAHWRates[i], g.Rates[i].InstructionsPerSample(), RPAHWRates[i-1], g.Rates[i-1].InstructionsPerSample())
		}
		if g.Rates[i].Samples < g.TaggedStores {
			t.Errorf("1/%d: %d samples, fewer than the %d reference stores", RPAHWRates[i], g.Rates[i].Samples, g.TaggedStores)
		}
	}
	for k := 1; k < 4; k++ {
		if g.Networks[k].StallCycles > g.Networks[k-1].StallCycles {
			t.Errorf("%d networks stall more than %d", k+1, k)
		}
	}
	if len(g.ByRate) != len(RPAHWRates) || g.ByRate[len(g.ByRate)-1][0].StallCycles != g.Networks[0].StallCycles {
		t.Errorf("Figure 8c rows: %d, and 1/256 with one network differs from Figure 8's", len(g.ByRate))
	}
	var b strings.Builder
	r.WriteTables(&b)
	for _, want := range []string{"MODEL, not a measurement", "paper jack", "Figure 7", "Figure 8a/8b", "Figure 8c", "cheap"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tables lack %q", want)
		}
	}
	dir := t.TempDir()
	if err := PlotRPAHWFigure7(r, filepath.Join(dir, "f7.svg")); err != nil {
		t.Error(err)
	}
	if err := PlotRPAHWFigure8(r, filepath.Join(dir, "f8.svg")); err != nil {
		t.Error(err)
	}
}
