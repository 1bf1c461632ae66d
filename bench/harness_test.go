package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarness runs two guests at their small sizes through a delay sweep
// with ablation and checks the report, its tables, its JSON and its plot.
func TestHarness(t *testing.T) {
	cfg := Config{Guests: []string{"sieve", "qsort"}, Modes: []string{ModeInterp, ModeDynamo},
		Runs: 1, Small: true, Delays: []int{0, 50}, Ablation: true}
	var status strings.Builder
	cfg.Status = &status
	rep, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Measurements); !strings.Contains(status.String(), fmt.Sprintf("\r\x1b[K[%d/%d] run 1 of 1: qsort ", n, n)) {
		t.Errorf("no progress line for the last run in %q", status.String())
	}
	for _, g := range cfg.Guests {
		in := rep.Find(g, ModeInterp, 0)
		for _, d := range cfg.Delays {
			dy := rep.Find(g, ModeDynamo, d)
			if in == nil || dy == nil || dy.Instructions != in.Instructions || dy.Fragments == 0 || dy.Median <= 0 {
				t.Fatalf("%s delay %d: interp %+v dynamo %+v", g, d, in, dy)
			}
		}
		if rep.FindDisabled(g, "ibl") == nil {
			t.Errorf("%s: no ablation run without ibl", g)
		}
	}
	var tab bytes.Buffer
	rep.WriteSweep(&tab)
	rep.WriteAblation(&tab)
	for _, want := range []string{"sieve", "qsort", "geomean", "no regalloc"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, tab.String())
		}
	}
	dir := t.TempDir()
	if err := rep.WriteJSON(filepath.Join(dir, "r.json")); err != nil {
		t.Fatal(err)
	}
	var back Report
	b, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	if err := json.Unmarshal(b, &back); err != nil || len(back.Measurements) != len(rep.Measurements) {
		t.Fatalf("JSON round trip: %v, %d measurements", err, len(back.Measurements))
	}
	svg := filepath.Join(dir, "sweep.svg")
	if err := PlotSweep(rep, svg); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(svg); !bytes.Contains(b, []byte("<svg")) {
		t.Error("plot is not an SVG")
	}
	if err := PlotSweep(rep, filepath.Join(dir, "x.gif")); err == nil {
		t.Error("plot accepted a .gif")
	}
}

// TestPathPrediction runs the Figure 5 comparison on one guest: path
// profile based prediction beside NET, same answer, its own counters.
func TestPathPrediction(t *testing.T) {
	cfg := Config{Guests: []string{"bytecode"}, Modes: []string{ModeInterp, ModeDynamo},
		Runs: 1, Small: true, Delays: []int{10, 50}, PathPrediction: true}
	rep, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := rep.Find("bytecode", ModeInterp, 0)
	for _, d := range cfg.Delays {
		ne, pa := rep.Find("bytecode", ModeDynamo, d), rep.FindPath("bytecode", d)
		if ne == nil || pa == nil || ne == pa || pa.Predict != "path" || ne.Predict != "" {
			t.Fatalf("delay %d: NET %+v path %+v", d, ne, pa)
		}
		if pa.Instructions != in.Instructions || pa.Fragments == 0 {
			t.Errorf("delay %d: path run %+v vs interp %d instructions", d, pa, in.Instructions)
		}
		// One counter per distinct path is more than one per head.
		if pa.Counters <= ne.Counters || ne.Counters == 0 {
			t.Errorf("delay %d: path counters %d, NET heads %d", d, pa.Counters, ne.Counters)
		}
	}
	var tab bytes.Buffer
	rep.WritePrediction(&tab)
	if !strings.Contains(tab.String(), "path/interp") || strings.Count(tab.String(), "bytecode") != 2 {
		t.Errorf("prediction table:\n%s", tab.String())
	}
}

// TestAsyncCompile runs dynamo both ways on one guest: the service-thread
// runs are separate measurements with the same answer, and the
// comparison table lists the guest.
func TestAsyncCompile(t *testing.T) {
	cfg := Config{Guests: []string{"qsort"}, Modes: []string{ModeDynamo}, Runs: 1, Small: true, AsyncCompile: true}
	rep, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sy, as := rep.Find("qsort", ModeDynamo, 50), rep.FindAsync("qsort", 50)
	if sy == nil || as == nil || sy == as || as.Compile != "async" || sy.Compile != "" {
		t.Fatalf("sync %+v async %+v", sy, as)
	}
	if as.Instructions != sy.Instructions || as.Queued == 0 || sy.Queued != 0 {
		t.Errorf("sync %+v async %+v", sy, as)
	}
	var tab bytes.Buffer
	rep.WriteCompile(&tab)
	if !strings.Contains(tab.String(), "async/sync") || strings.Count(tab.String(), "qsort") != 1 {
		t.Errorf("compile table:\n%s", tab.String())
	}
}

func TestGeoMean(t *testing.T) {
	if g := GeoMean([]float64{2, 8}); g < 3.999 || g > 4.001 {
		t.Errorf("GeoMean(2, 8) = %v", g)
	}
	if g := Median([]float64{3, 1, 2}); g != 2 {
		t.Errorf("median = %v", g)
	}
}

// TestOtherBuild: only a floating-point guest's native run may print
// other digits than its RISC-V runs.
func TestOtherBuild(t *testing.T) {
	for _, c := range []struct {
		guest, mode, ref string
		want             bool
	}{
		{"rounding", ModeNative, ModeInterp, true},
		{"rounding", ModeInterp, ModeNative, true},
		{"rounding", ModeDynamo, ModeInterp, false},
		{"rounding", ModeNative, ModeNative, false},
		{"sieve", ModeNative, ModeInterp, false},
	} {
		m, ref := &Measurement{Guest: c.guest, Mode: c.mode}, &Measurement{Guest: c.guest, Mode: c.ref}
		if got := otherBuild(m, ref); got != c.want {
			t.Errorf("otherBuild(%s %s, %s) = %v", c.guest, c.mode, c.ref, got)
		}
	}
}
