// Figures: gonum plots and a file name -> one SVG or PNG file in the house style (a single plot, or a grid of plots on one canvas).

// Package figure writes gonum plots to files, as SVG or PNG by the file
// name's extension: a single plot (Save), or a grid of plots drawn on one
// canvas with their axes aligned (Grid.Save), both in one house style:
// legends beside the data, never on it; titles and axis labels wrapped to
// stay inside the canvas; log axes labelled with their real values
// (LogTicks); numeric axes labelled with a unit. With RVDYN_FIGURE_CHECK=1
// (CheckEnv) every figure's geometry is checked as it is drawn. It is
// the one place where rvdyn's plotting code (profhw's experiment
// figures, bench's delay sweep and prediction figures, layout's key
// matching) turns plots into files; each of those builds its own plots.
//
// It imports nothing from rvdyn.
package figure

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// CheckPath returns nil if path names a .svg or .png file (in any case),
// and otherwise an error "PATH: want a .svg or .png file". Commands call
// it before a long run so that a bad name fails at once.
func CheckPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png":
		return nil
	}
	return fmt.Errorf("%s: want a .svg or .png file", path)
}

// Save draws p on a canvas of w by h in the house style (see Grid.Save)
// and writes it to path, in the format its extension names (see
// CheckPath).
func Save(p *plot.Plot, w, h vg.Length, path string) error {
	return Grid{Plots: [][]*plot.Plot{{p}}, Width: w, Height: h}.Save(path)
}

// A Grid is a table of plots drawn on one canvas, aligned so that the axes
// of a row and of a column line up.
type Grid struct {
	// Plots[row][col]; a nil plot, or a row shorter than the longest,
	// leaves its tiles empty.
	Plots [][]*plot.Plot
	// Width and Height are the canvas size; zero means 5 inches per
	// column and 4 inches per row, plus the legend column.
	Width, Height vg.Length
	// Gap is the space between two tiles; zero means 4 mm. The canvas
	// also has a 2 mm margin on every side.
	Gap vg.Length
}

// Save draws the grid in the house style and writes it to path, in the
// format its extension names (see CheckPath). House style: every legend
// is drawn in a column to the right of the plots, level with its row or
// below the legend above it (identical legends once), never on the data; titles and
// axis labels are wrapped to fit their tile; log axes get LogTicks. The
// plots are modified (legends taken out, text wrapped). With CheckEnv
// set to 1, a figure whose text extends past the canvas, whose legend
// overlaps a data area or whose numeric axis gives no unit is not
// written: Save returns a *StyleError.
func (g Grid) Save(path string) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	cols := 0
	for _, row := range g.Plots {
		cols = max(cols, len(row))
	}
	gap := g.Gap
	if gap == 0 {
		gap = 4 * vg.Millimeter
	}
	margin := 2 * vg.Millimeter
	// Legends out of the plots; a legend identical to one drawn before
	// (the same entries in every tile, as grids usually have) is drawn
	// once.
	type rowLegend struct{ ls []plot.Legend }
	legends := make([]rowLegend, len(g.Plots))
	var legendW vg.Length
	seen := map[string]bool{}
	for j, row := range g.Plots {
		for _, p := range row {
			if p == nil {
				continue
			}
			l, ok := takeLegend(p)
			if !ok {
				continue
			}
			key := strings.Join(legendTexts(l), "\x00")
			if seen[key] {
				continue
			}
			seen[key] = true
			l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
			legends[j].ls = append(legends[j].ls, l)
			w, _ := legendSize(l)
			legendW = max(legendW, w)
		}
	}
	if legendW > 0 {
		legendW += gap
	}
	w, h := g.Width, g.Height
	if w == 0 {
		w = vg.Length(cols)*5*vg.Inch + legendW
	}
	if h == 0 {
		h = vg.Length(len(g.Plots)) * 4 * vg.Inch
	}
	padded := make([][]*plot.Plot, len(g.Plots))
	tileW := (w - legendW - 2*margin - vg.Length(max(cols-1, 0))*gap) / vg.Length(max(cols, 1))
	tileH := (h - 2*margin - vg.Length(max(len(g.Plots)-1, 0))*gap) / vg.Length(max(len(g.Plots), 1))
	var problems []string
	for j, row := range g.Plots {
		padded[j] = make([]*plot.Plot, cols)
		copy(padded[j], row)
		for i, p := range row {
			if p != nil {
				styleText(p, tileW, tileH)
				problems = append(problems, unitProblems(p, fmt.Sprintf("plot %q (row %d, column %d)", p.Title.Text, j+1, i+1))...)
			}
		}
	}
	// gonum draws a title's top one font descent above its tile: the top
	// margin leaves room for that.
	tiles := draw.Tiles{Rows: len(padded), Cols: cols, PadX: gap, PadY: gap,
		PadTop: margin + 3*vg.Millimeter, PadBottom: margin, PadLeft: margin, PadRight: margin}
	var legendBoxes, dataBoxes []vg.Rectangle
	rec, err := write(w, h, path, func(dc draw.Canvas) bool {
		plotsC := dc
		plotsC.Max.X -= legendW
		canvases := plot.Align(padded, tiles, plotsC)
		cursor := dc.Max.Y // legends stack down the legend column
		for j := range padded {
			top := vg.Length(math.Inf(-1))
			for i, p := range padded[j] {
				if p != nil {
					p.Draw(canvases[j][i])
					dataBoxes = append(dataBoxes, p.DataCanvas(canvases[j][i]).Rectangle)
				}
				if len(canvases[j]) > i {
					top = max(top, canvases[j][i].Max.Y)
				}
			}
			if math.IsInf(float64(top), -1) {
				continue
			}
			top = min(top, cursor)
			for _, l := range legends[j].ls {
				lw, lh := legendSize(l)
				lc := dc
				lc.Min.X, lc.Max.X = dc.Max.X-legendW+gap, dc.Max.X-legendW+gap+lw
				lc.Max.Y, lc.Min.Y = top, top-lh
				l.Draw(lc)
				legendBoxes = append(legendBoxes, lc.Rectangle)
				top -= lh + gap
				cursor = top
			}
		}
		return checking()
	})
	if err != nil {
		return err
	}
	if rec != nil {
		problems = append(problems, rec.problems(w, h, legendBoxes, dataBoxes)...)
		if len(problems) > 0 {
			os.Remove(path)
			return &StyleError{Path: path, Problems: problems}
		}
	}
	return nil
}

// write makes a w by h canvas in path's format, paints it and writes it
// to path. If paint returns true (check), the canvas it painted was a
// recorder, which write returns.
func write(w, h vg.Length, path string, paint func(draw.Canvas) bool) (*recorder, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	if strings.ToLower(filepath.Ext(path)) == ".svg" {
		c = vgsvg.New(w, h)
	} else {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	rec := newRecorder(c)
	if !paint(draw.NewCanvas(rec, w, h)) {
		rec = nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return rec, f.Close()
}
