// Tests of the layout plots: Figure 3 drawn from made-up profiles.

package placement

import (
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/figure"
	"rvdyn/layout"
)

// TestPlotLayoutFigure3 draws Figure 3 from made-up profiles with the house
// style checked, and refuses a result without them.
func TestPlotLayoutFigure3(t *testing.T) {
	t.Setenv(figure.CheckEnv, "1")
	r := &Result{Guest: "g", Train: []string{"g", "7"}, Period: 1000,
		Figure3: &Figure3{Sets: 4, Complete: layout.Profile{5, 0, 300, 2}, OneSet: layout.Profile{0, 0, 1.5, 0}, AllSets: layout.Profile{0.2, 0, 6, 0.25}}}
	if err := PlotLayoutFigure3(r, filepath.Join(t.TempDir(), "f3.svg")); err != nil {
		t.Error(err)
	}
	r.Figure3 = nil
	if err := PlotLayoutFigure3(r, filepath.Join(t.TempDir(), "f3.svg")); err == nil || !strings.Contains(err.Error(), "no Figure 3") {
		t.Errorf("no profiles: %v", err)
	}
}
