// Tests that plots are written as SVG and PNG.

package profhw

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	cfgs, _ := ParseConfigs("R64;H[P64]2048;multihash:tables=1;multihash:tables=4")
	res, err := (&Experiment{Configs: cfgs}).Run(SliceSource{Tuples: invariantStream()})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := MonteCarlo(MonteCarloOptions{Trials: 5, Sizes: []int{1000, 2000}})
	for _, name := range []string{"exp.svg", "exp.png", "mc.svg", "mc.png"} {
		path := filepath.Join(dir, name)
		if name[:2] == "mc" {
			err = PlotMonteCarlo(rows, path)
		} else {
			err = PlotExperiment(res, path)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := os.ReadFile(path)
		magic := []byte("<?xml")
		if filepath.Ext(name) == ".png" {
			magic = []byte("\x89PNG")
		}
		if !bytes.HasPrefix(b, magic) || len(b) < 1000 {
			t.Errorf("%s: %d bytes starting %q", name, len(b), b[:min(len(b), 8)])
		}
	}
	// A stream too short for the filters: nothing scored, still a plot.
	short, _ := (&Experiment{Configs: cfgs}).Run(SliceSource{Tuples: invariantStream()[:500]})
	if err := PlotExperiment(short, filepath.Join(dir, "short.svg")); err != nil {
		t.Errorf("plot of an unscored run: %v", err)
	}
	if err := PlotExperiment(res, filepath.Join(dir, "x.gif")); err == nil {
		t.Error("a .gif plot was accepted")
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"multihash:tables=4":                                 "MH4 C1R0",
		"multihash:tables=8,cu=0,reset=1,retain=0":           "MH8 C0R1 P0",
		"multihash:tables=2,interval=1000000,threshold=0.1%": "MH2 C1R0 1000000/0.1%",
		"H[P256]2048":                     "H[P256]2048",
		"multihash:tables=1,entries=1024": "MH1 C1R0 Z1024",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%s) = %q, want %q", in, got, want)
		}
	}
}
