// Figures: gonum plots and a file name -> one SVG or PNG file (a single plot, or a grid of plots on one canvas).

// Package figure writes gonum plots to files, as SVG or PNG by the file
// name's extension: a single plot (Save), or a grid of plots drawn on one
// canvas with their axes aligned (Grid.Save). It is the one place where
// rvdyn's plotting code (profhw's experiment figures, bench's delay sweep
// and prediction figures) turns plots into files; each of those builds its
// own plots.
//
// It imports nothing from rvdyn.
package figure

import (
	"fmt"
	"io"
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

// Save draws p on a canvas of w by h and writes it to path, in the format
// its extension names (see CheckPath).
func Save(p *plot.Plot, w, h vg.Length, path string) error {
	return write(w, h, path, func(c draw.Canvas) { p.Draw(c) })
}

// A Grid is a table of plots drawn on one canvas, aligned so that the axes
// of a row and of a column line up.
type Grid struct {
	// Plots[row][col]; a nil plot, or a row shorter than the longest,
	// leaves its tiles empty.
	Plots [][]*plot.Plot
	// Width and Height are the canvas size; zero means 5 inches per
	// column and 4 inches per row.
	Width, Height vg.Length
	// Gap is the space between two tiles; zero means 4 mm. The canvas
	// also has a 2 mm margin on every side.
	Gap vg.Length
}

// Save draws the grid and writes it to path, in the format its extension
// names (see CheckPath).
func (g Grid) Save(path string) error {
	cols := 0
	for _, row := range g.Plots {
		cols = max(cols, len(row))
	}
	w, h, gap := g.Width, g.Height, g.Gap
	if w == 0 {
		w = vg.Length(cols) * 5 * vg.Inch
	}
	if h == 0 {
		h = vg.Length(len(g.Plots)) * 4 * vg.Inch
	}
	if gap == 0 {
		gap = 4 * vg.Millimeter
	}
	padded := make([][]*plot.Plot, len(g.Plots))
	for j, row := range g.Plots {
		padded[j] = make([]*plot.Plot, cols)
		copy(padded[j], row)
	}
	margin := 2 * vg.Millimeter
	tiles := draw.Tiles{Rows: len(padded), Cols: cols, PadX: gap, PadY: gap,
		PadTop: margin, PadBottom: margin, PadLeft: margin, PadRight: margin}
	return write(w, h, path, func(dc draw.Canvas) {
		canvases := plot.Align(padded, tiles, dc)
		for j := range padded {
			for i, p := range padded[j] {
				if p != nil {
					p.Draw(canvases[j][i])
				}
			}
		}
	})
}

// write makes a w by h canvas in path's format, paints it and writes it
// to path.
func write(w, h vg.Length, path string, paint func(draw.Canvas)) error {
	if err := CheckPath(path); err != nil {
		return err
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
	paint(draw.New(c))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
