// Tests of figure: one plot and a grid with an empty tile, as SVG and PNG; bad names.

package figure

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func line(t *testing.T, title string) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = title
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	return p
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"one.svg", "one.PNG", "grid.svg", "grid.png"} {
		path := filepath.Join(dir, name)
		var err error
		if strings.HasPrefix(name, "one") {
			err = Save(line(t, "one"), 4*vg.Inch, 3*vg.Inch, path)
		} else {
			g := Grid{Plots: [][]*plot.Plot{{line(t, "a"), line(t, "b")}, {nil, line(t, "c")}, {line(t, "d")}}}
			err = g.Save(path)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := os.ReadFile(path)
		svg := strings.HasSuffix(name, ".svg")
		if svg != bytes.Contains(b, []byte("<svg")) || !svg && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: wrong format (%d bytes)", name, len(b))
		}
		if strings.HasPrefix(name, "grid.svg") && bytes.Count(b, []byte(">d<")) != 1 {
			t.Errorf("%s: tile titles missing", name)
		}
	}
}

func TestBadPath(t *testing.T) {
	gif := filepath.Join(t.TempDir(), "x.gif")
	for _, err := range []error{CheckPath(gif), Save(line(t, "x"), vg.Inch, vg.Inch, gif), Grid{Plots: [][]*plot.Plot{{line(t, "x")}}}.Save(gif)} {
		if err == nil || !strings.Contains(err.Error(), "x.gif: want a .svg or .png file") {
			t.Errorf("error %v", err)
		}
	}
	if _, err := os.Stat(gif); err == nil {
		t.Error("a .gif file was written")
	}
	if err := Save(line(t, "x"), vg.Inch, vg.Inch, "/nonexistent/dir/x.svg"); err == nil {
		t.Error("no error for an unwritable path")
	}
}
