// rvdyn reproduce --replot: a directory of a reproduce run's JSON in; every figure redrawn from it in the current house style (no experiment runs) out.

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rvdyn/bench"
	"rvdyn/internal/experiments/hwprofile"
	"rvdyn/internal/experiments/placement"
	"rvdyn/internal/experiments/prediction"
	"rvdyn/internal/experiments/relational"
	"rvdyn/net"
	"rvdyn/profhw"
)

// A replot is one figure (or set of figures) redrawn from one JSON file
// of a reproduce run.
type replot struct {
	json string
	draw func(dir, json string) error
}

// readJSONFile decodes the JSON file at path into v.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// replots lists what --replot redraws, with the file names reproduce's
// experiments write.
var replots = []replot{
	{"net-predict.json", func(dir, in string) error {
		var rows []predictRow
		if err := readJSONFile(in, &rows); err != nil {
			return err
		}
		var names []string
		var as []*net.Analysis
		for _, r := range rows {
			names = append(names, r.Guest)
			as = append(as, &net.Analysis{Summary: r.Summary, Results: r.Results})
		}
		for _, f := range []struct {
			name string
			plot func([]string, []*net.Analysis, string) error
		}{{"net-fig2.svg", prediction.PlotPrediction}, {"net-fig3.svg", prediction.PlotNoise}, {"net-fig4.svg", prediction.PlotCounterSpace}} {
			if err := f.plot(names, as, filepath.Join(dir, f.name)); err != nil {
				return err
			}
		}
		return nil
	}},
	{"net-fig5.json", func(dir, in string) error {
		r, err := bench.ReadJSON(in)
		if err != nil {
			return err
		}
		return bench.PlotSweep(r, filepath.Join(dir, "net-fig5.svg"))
	}},
	{"stratified-fig4.json", func(dir, in string) error {
		var rows []hwprofile.MCRow
		if err := readJSONFile(in, &rows); err != nil {
			return err
		}
		return hwprofile.PlotMonteCarlo(rows, filepath.Join(dir, "stratified-fig4.svg"))
	}},
	{"stratified-fig7.json", func(dir, in string) error {
		var rows []hwprofile.Row
		if err := readJSONFile(in, &rows); err != nil {
			return err
		}
		var guests []string
		byGuest := map[string]*hwprofile.Result{}
		for _, r := range rows {
			g := strings.Fields(r.Guest + " ?")[0]
			res := byGuest[g]
			if res == nil {
				res = &hwprofile.Result{}
				byGuest[g] = res
				guests = append(guests, g)
			}
			for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
				if r.Profile == k.String() {
					res.Kinds = res.Kinds.With(k)
				}
			}
			res.Rows = append(res.Rows, r)
		}
		for _, g := range guests {
			name := "stratified-fig7.svg"
			if len(guests) > 1 {
				name = "stratified-fig7-" + g + ".svg"
			}
			if err := hwprofile.PlotExperiment(byGuest[g], filepath.Join(dir, name)); err != nil {
				return err
			}
		}
		return nil
	}},
	{"rpa-gc.json", func(dir, in string) error {
		r, err := relational.ReadGCJSON(in)
		if err != nil {
			return err
		}
		return relational.PlotGC(r, filepath.Join(dir, "rpa-gc.svg"))
	}},
	{"rpa-hw.json", func(dir, in string) error {
		var r relational.RPAHWReport
		if err := readJSONFile(in, &r); err != nil {
			return err
		}
		if err := relational.PlotRPAHWFigure7(&r, filepath.Join(dir, "rpa-fig7.svg")); err != nil {
			return err
		}
		return relational.PlotRPAHWFigure8(&r, filepath.Join(dir, "rpa-fig8.svg"))
	}},
	{"layout.json", func(dir, in string) error {
		var rep layoutReport
		if err := readJSONFile(in, &rep); err != nil {
			return err
		}
		if err := placement.PlotKeyMatch(rep.Results, 0, filepath.Join(dir, "layout-fig4.svg")); err != nil {
			return err
		}
		for _, r := range rep.Results {
			if r.Figure3 == nil {
				continue
			}
			if err := placement.PlotLayoutFigure3(r, filepath.Join(dir, "layout-fig3-"+r.Guest+".svg")); err != nil {
				return err
			}
		}
		return nil
	}},
}

// replotDir redraws every figure whose JSON is in dir, reporting each
// file on w; a JSON file that is absent is skipped.
func replotDir(dir string, w io.Writer) error {
	n := 0
	for _, r := range replots {
		in := filepath.Join(dir, r.json)
		if _, err := os.Stat(in); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := r.draw(dir, in); err != nil {
			return fmt.Errorf("replot from %s: %w", r.json, err)
		}
		fmt.Fprintf(w, "redrew the figures of %s\n", in)
		n++
	}
	if n == 0 {
		return fmt.Errorf("replot: no JSON of a reproduce run in %s", dir)
	}
	return nil
}
