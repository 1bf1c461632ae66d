// Tests that the hardware compressors' plots are written as SVG and PNG.

package hwprofile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rvdyn/profhw"
)

// testStream is a stream of value and edge tuples over 20 pcs, each
// value tuple's pc more often invariant the lower it is.
func testStream() []profhw.Tuple {
	out := make([]profhw.Tuple, 200000)
	x := uint64(31)
	below := func(n uint64) uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x % n
	}
	for i := range out {
		pc := below(20)
		if i%8 == 7 {
			out[i] = profhw.MakeTuple(profhw.KindEdge, 0x20000+4*pc, 0x20000+4*pc+4+4*below(2))
			continue
		}
		v := uint64(0)
		if below(21) > pc {
			v = 1 + below(4)
		}
		out[i] = profhw.MakeTuple(profhw.KindValue, 0x10000+4*pc, v)
	}
	return out
}

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	cfgs, _ := profhw.ParseConfigs("R64;H[P64]2048;multihash:tables=1;multihash:tables=4")
	res, err := (&Experiment{Configs: cfgs}).Run(profhw.SliceSource{Tuples: testStream()})
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
	short, _ := (&Experiment{Configs: cfgs}).Run(profhw.SliceSource{Tuples: testStream()[:500]})
	if err := PlotExperiment(short, filepath.Join(dir, "short.svg")); err != nil {
		t.Errorf("plot of an unscored run: %v", err)
	}
	if err := PlotExperiment(res, filepath.Join(dir, "x.gif")); err == nil {
		t.Error("a .gif plot was accepted")
	}
}
