// Tests of the house style: log ticks, wrapping, legends out of the data, and the geometry check catching text past the canvas and a legend on the data.

package figure

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var ls []string
		for _, tk := range (LogTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				ls = append(ls, tk.Label)
			}
		}
		return ls
	}
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{1, 20000, []string{"1", "10", "100", "1000", "10000"}},
		{1000, 10000, []string{"1000", "10000"}},
		{1000, 5000, []string{"1000", "2000", "5000"}},
		{150, 900, []string{"200", "500"}},
		{0.5, 2e6, []string{"1", "10", "100", "1000", "10000", "100k", "1M"}},
	} {
		if got := labels(tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// crowded is a plot that breaks every rule gonum's defaults allow: a
// title wider than its canvas, the legend on the data, a log axis.
func crowded(t *testing.T) *plot.Plot {
	p := plot.New()
	p.Title.Text = strings.Repeat("a long title that does not fit on one line ", 4)
	p.X.Label.Text = "events (tuples)"
	p.Y.Label.Text = "error (%)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var lines []any
	for i := range 6 {
		lines = append(lines, strings.Repeat("series ", i+1), plotter.XYs{{X: 1000, Y: 100}, {X: 20000, Y: float64(i)}})
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHouseStyle(t *testing.T) {
	t.Setenv(CheckEnv, "1")
	dir := t.TempDir()
	if err := Save(crowded(t), 5*vg.Inch, 3*vg.Inch, filepath.Join(dir, "one.svg")); err != nil {
		t.Errorf("one plot: %v", err)
	}
	g := Grid{Plots: [][]*plot.Plot{{crowded(t), crowded(t)}, {crowded(t)}}}
	if err := g.Save(filepath.Join(dir, "grid.svg")); err != nil {
		t.Errorf("grid: %v", err)
	}
	p := crowded(t)
	p.Y.Label.Text = "error"
	var se *StyleError
	if err := Save(p, 5*vg.Inch, 3*vg.Inch, filepath.Join(dir, "nounit.svg")); !errors.As(err, &se) || !strings.Contains(err.Error(), "no unit") {
		t.Errorf("a y label without a unit: %v", err)
	}
}

// TestCheckCatches draws what the style forbids on a recorder and checks
// that problems reports it: text past the right edge (through a rotation
// and a translation, as an axis label is drawn) and a legend box on a
// data area.
func TestCheckCatches(t *testing.T) {
	r := newRecorder(vgsvg.New(100, 100))
	sty := plot.New().Title.TextStyle
	r.FillString(font.DefaultCache.Lookup(sty.Font, 12), vg.Point{X: 10, Y: 10}, "inside")
	if ps := r.problems(100, 100, nil, nil); len(ps) != 0 {
		t.Errorf("text inside: %v", ps)
	}
	r.Push()
	r.Translate(vg.Point{X: 95, Y: 50})
	r.Rotate(3.14159265 / 2)
	r.FillString(font.DefaultCache.Lookup(sty.Font, 12), vg.Point{}, "a label long enough to leave")
	r.Pop()
	if ps := r.problems(100, 100, nil, nil); len(ps) != 1 || !strings.Contains(ps[0], "extends past") {
		t.Errorf("rotated text past the top: %v", ps)
	}
	r = newRecorder(vgsvg.New(100, 100))
	box := func(x0, y0, x1, y1 vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
	}
	data := []vg.Rectangle{box(10, 10, 60, 90)}
	if ps := r.problems(100, 100, []vg.Rectangle{box(62, 50, 99, 90)}, data); len(ps) != 0 {
		t.Errorf("legend beside the data: %v", ps)
	}
	if ps := r.problems(100, 100, []vg.Rectangle{box(50, 50, 99, 90)}, data); len(ps) != 1 || !strings.Contains(ps[0], "overlaps") {
		t.Errorf("legend on the data: %v", ps)
	}
}
