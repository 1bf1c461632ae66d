package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelectionReport measures one guest under every selection scheme
// with metrics runs and checks the comparison table and its plot.
func TestSelectionReport(t *testing.T) {
	cfg := Config{Guests: []string{"sieve"}, Modes: []string{ModeInterp, ModeDynamo}, Runs: 1, Small: true,
		Selects: []string{"net", "Path", "compressor", "rpa", "path"}, Metrics: true}
	rep, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"path", "compressor", "rpa"}; strings.Join(rep.Selects, ",") != strings.Join(want, ",") {
		t.Errorf("schemes %v, want %v", rep.Selects, want)
	}
	in := rep.Find("sieve", ModeInterp, 0)
	for _, s := range []string{"net", "path", "compressor", "rpa"} {
		m := rep.FindSelect("sieve", s, 50)
		if m == nil || m.Instructions != in.Instructions || m.Counters == 0 || m.Metrics == nil || m.Metrics.HitRate <= 0 {
			t.Fatalf("%s: %+v", s, m)
		}
	}
	var tab bytes.Buffer
	if err := rep.WriteSelection(&tab); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(tab.String(), "sieve"); got != 4 || !strings.Contains(tab.String(), "geomean         rpa") {
		t.Errorf("table:\n%s", tab.String())
	}
	svg := filepath.Join(t.TempDir(), "sel.svg")
	if err := PlotSelection(rep, svg); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(svg); !bytes.Contains(b, []byte("<svg")) {
		t.Error("no SVG written")
	}
	if _, err := Run(Config{Guests: []string{"sieve"}, Selects: []string{"hot"}}, nil); err == nil {
		t.Error("an unknown scheme was accepted")
	}
}
