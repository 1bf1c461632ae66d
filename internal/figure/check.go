// Geometry check: a canvas that records where every string lands (through the transforms) and the legend and data rectangles of each plot in; problems (text past the canvas, a legend over a data area) out.

package figure

import (
	"fmt"
	"math"
	"os"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// CheckEnv is the environment variable that makes Save and Grid.Save
// fail when a figure breaks the house style (text extending past the
// canvas, a legend box overlapping a plot's data area): tests and
// rvdyn reproduce's figure check set it to 1.
const CheckEnv = "RVDYN_FIGURE_CHECK"

// A StyleError lists how a figure breaks the house style.
type StyleError struct {
	Path     string
	Problems []string
}

// Error returns the path and the problems, one per line.
func (e *StyleError) Error() string {
	s := fmt.Sprintf("figure %s breaks the style:", e.Path)
	for _, p := range e.Problems {
		s += "\n  " + p
	}
	return s
}

// affine is a 2-D transform (x, y) -> (a x + c y + e, b x + d y + f).
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// recorder is a vg.Canvas that passes everything to the canvas it wraps
// and keeps the canvas-space box of every string drawn.
type recorder struct {
	vg.Canvas
	m     affine
	stack []affine
	texts []textBox
}

// A textBox is a drawn string and its bounding box on the canvas.
type textBox struct {
	text string
	box  vg.Rectangle
}

func newRecorder(c vg.Canvas) *recorder {
	return &recorder{Canvas: c, m: affine{a: 1, d: 1}}
}

func (r *recorder) Translate(pt vg.Point) {
	x, y := float64(pt.X), float64(pt.Y)
	r.m.e += r.m.a*x + r.m.c*y
	r.m.f += r.m.b*x + r.m.d*y
	r.Canvas.Translate(pt)
}

func (r *recorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	m := r.m
	r.m.a, r.m.b = m.a*c+m.c*s, m.b*c+m.d*s
	r.m.c, r.m.d = -m.a*s+m.c*c, -m.b*s+m.d*c
	r.Canvas.Rotate(rad)
}

func (r *recorder) Scale(x, y float64) {
	r.m.a, r.m.b, r.m.c, r.m.d = r.m.a*x, r.m.b*x, r.m.c*y, r.m.d*y
	r.Canvas.Scale(x, y)
}

func (r *recorder) Push() {
	r.stack = append(r.stack, r.m)
	r.Canvas.Push()
}

func (r *recorder) Pop() {
	if n := len(r.stack); n > 0 {
		r.m, r.stack = r.stack[n-1], r.stack[:n-1]
	}
	r.Canvas.Pop()
}

func (r *recorder) FillString(f font.Face, pt vg.Point, text string) {
	if f.Font.Size > 0 && text != "" {
		ext := f.Extents()
		x0, x1 := float64(pt.X), float64(pt.X+f.Width(text))
		y0, y1 := float64(pt.Y-ext.Descent), float64(pt.Y+ext.Ascent)
		box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
		for _, p := range [][2]float64{{x0, y0}, {x0, y1}, {x1, y0}, {x1, y1}} {
			x, y := r.m.apply(p[0], p[1])
			box.Min.X, box.Min.Y = min(box.Min.X, vg.Length(x)), min(box.Min.Y, vg.Length(y))
			box.Max.X, box.Max.Y = max(box.Max.X, vg.Length(x)), max(box.Max.Y, vg.Length(y))
		}
		r.texts = append(r.texts, textBox{text, box})
	}
	r.Canvas.FillString(f, pt, text)
}

// slack is how far (in points) text may reach past an edge before it
// counts: rounding, and a glyph's side bearing.
const slack = 0.5

// problems checks the recorded text against a w by h canvas, and each
// legend box against every data area.
func (r *recorder) problems(w, h vg.Length, legends, data []vg.Rectangle) []string {
	var ps []string
	for _, t := range r.texts {
		b := t.box
		if b.Min.X < -slack || b.Min.Y < -slack || b.Max.X > w+slack || b.Max.Y > h+slack {
			ps = append(ps, fmt.Sprintf("text %q at (%.1f,%.1f)-(%.1f,%.1f) extends past the %.1f x %.1f pt canvas",
				t.text, b.Min.X, b.Min.Y, b.Max.X, b.Max.Y, w, h))
		}
	}
	for _, l := range legends {
		for _, d := range data {
			if l.Min.X < d.Max.X && d.Min.X < l.Max.X && l.Min.Y < d.Max.Y && d.Min.Y < l.Max.Y {
				ps = append(ps, fmt.Sprintf("legend box (%.1f,%.1f)-(%.1f,%.1f) overlaps a data area (%.1f,%.1f)-(%.1f,%.1f)",
					l.Min.X, l.Min.Y, l.Max.X, l.Max.Y, d.Min.X, d.Min.Y, d.Max.X, d.Max.Y))
			}
		}
	}
	return ps
}

// checking reports whether CheckEnv asks for the style check.
func checking() bool { return os.Getenv(CheckEnv) == "1" }
