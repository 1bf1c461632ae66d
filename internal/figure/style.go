// House style: a plot in; its title and axis labels wrapped to the space they get, log axes given ticks that label the real values, its legend taken out to be drawn beside the data, and what a reader needs (axis labels with units) checked.

package figure

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LogTicks is the tick marker of a log axis: a labelled major tick at
// every power of ten in range, written out in full ("1000", "10000") or
// with an SI suffix from 10^5 ("100k", "1M"), and unlabelled minor ticks
// at 2..9 times each; when the range holds fewer than two powers of ten,
// the 2x and 5x ticks are labelled too, so that every log axis shows at
// least two values. House style sets it on every log axis (gonum's own
// marker labels ticks beyond the data range, which the axis then clips).
type LogTicks struct{}

// Ticks returns the ticks for [lo, hi]; lo and hi must be positive.
func (LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || lo > hi {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	powers := 0
	for e := e0; e <= e1; e++ {
		if v := math.Pow10(e); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
			powers++
		}
	}
	var ts []plot.Tick
	for e := e0; e <= e1; e++ {
		base := math.Pow10(e)
		for k := 1; k <= 9; k++ {
			v := base * float64(k)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if k == 1 || powers < 2 && (k == 2 || k == 5) {
				t.Label = tickLabel(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// tickLabel writes v exactly: in full below 10^5, else with k, M or G.
func tickLabel(v float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case v >= 1e9:
		return f(v/1e9) + "G"
	case v >= 1e6:
		return f(v/1e6) + "M"
	case v >= 1e5:
		return f(v/1e3) + "k"
	}
	return f(v)
}

// wrap breaks s into lines at spaces so that each line is at most width
// wide in sty (a single word wider than width gets a line of its own).
func wrap(sty text.Style, s string, width vg.Length) string {
	if s == "" || sty.Width(s) <= width {
		return s
	}
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && sty.Width(line+" "+w) > width {
				lines = append(lines, line)
				line = w
				continue
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// styleText wraps p's title and x label to w and its y label to h (the
// tile's size), and puts LogTicks on its log axes.
func styleText(p *plot.Plot, w, h vg.Length) {
	p.Title.Text = wrap(p.Title.TextStyle, p.Title.Text, w)
	p.X.Label.Text = wrap(p.X.Label.TextStyle, p.X.Label.Text, w*0.9)
	p.Y.Label.Text = wrap(p.Y.Label.TextStyle, p.Y.Label.Text, h*0.8)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Scale.(plot.LogScale); ok {
			ax.Tick.Marker = LogTicks{}
		}
	}
}

// takeLegend removes p's legend, returning it and whether it has
// entries: house style draws legends beside the data, never on it.
func takeLegend(p *plot.Plot) (plot.Legend, bool) {
	l := p.Legend
	fresh := plot.NewLegend()
	fresh.TextStyle = l.TextStyle
	p.Legend = fresh
	return l, len(legendTexts(l)) > 0
}

// legendTexts returns the entries' texts of l (gonum keeps them
// unexported; reading them is how two identical legends of a grid row are
// drawn once).
func legendTexts(l plot.Legend) []string {
	es := reflect.ValueOf(l).FieldByName("entries")
	var ts []string
	for i := 0; es.IsValid() && i < es.Len(); i++ {
		ts = append(ts, es.Index(i).FieldByName("text").String())
	}
	return ts
}

// legendSize is the width and height of l's entries drawn with Left set
// (icons, then text).
func legendSize(l plot.Legend) (w, h vg.Length) {
	r := l.Rectangle(draw.Canvas{})
	return r.Max.X - r.Min.X, r.Max.Y - r.Min.Y
}

// unitProblems reports an axis whose label does not give a unit (in
// parentheses); an axis of categories (NominalX) needs none.
func unitProblems(p *plot.Plot, where string) []string {
	var ps []string
	for _, ax := range []struct {
		name string
		a    *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		if _, nominal := ax.a.Tick.Marker.(plot.ConstantTicks); nominal {
			continue
		}
		if !strings.Contains(ax.a.Label.Text, "(") {
			ps = append(ps, fmt.Sprintf("%s: %s axis label %q gives no unit in parentheses", where, ax.name, ax.a.Label.Text))
		}
	}
	return ps
}
