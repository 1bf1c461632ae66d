package hwprofile

import (
	"bytes"
	"strings"
	"testing"
)

func series(errs ...float64) []Point {
	var ps []Point
	for i, e := range errs {
		p := Point{Tuples: uint64(i+1) * 1000, Error: e, Scored: 10}
		if e < 0 {
			p.Error, p.Scored = 0, 0 // nothing to score yet
		}
		ps = append(ps, p)
	}
	return ps
}

func TestConvergenceOf(t *testing.T) {
	tests := []struct {
		name             string
		errs             []float64
		reach, settle    uint64
		reached, settled bool
	}{
		{"below from the start", []float64{0.01, 0.02, 0.03}, 1000, 1000, true, true},
		{"unscored checkpoints do not count", []float64{-1, -1, 0.04, 0.01}, 3000, 3000, true, true},
		{"reaches early, settles late", []float64{0.2, 0.04, 0.09, 0.06, 0.05, 0.01}, 2000, 5000, true, true},
		{"exactly the threshold is below", []float64{0.05}, 1000, 1000, true, true},
		{"reaches, ends above", []float64{0.2, 0.01, 0.2}, 2000, 0, true, false},
		{"never", []float64{0.3, 0.2, 0.1}, 0, 0, false, false},
		{"nothing scored", []float64{-1, -1}, 0, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ConvergenceOf(Row{Config: "R256", Profile: "value", Series: series(tc.errs...)}, 0.05)
			if c.Reach != tc.reach || c.Reached != tc.reached || c.Settle != tc.settle || c.Settled != tc.settled {
				t.Errorf("got reach %d/%v settle %d/%v, want %d/%v %d/%v",
					c.Reach, c.Reached, c.Settle, c.Settled, tc.reach, tc.reached, tc.settle, tc.settled)
			}
		})
	}
}

func TestWriteConvergenceRatios(t *testing.T) {
	res := &Result{Rows: []Row{
		{Config: "R256", Profile: "value", Series: series(0.2, 0.04, 0.09, 0.06, 0.05, 0.01)},
		{Config: "H[P256]2048", Profile: "value", Series: series(0.04, 0.03, 0.02)},
		{Config: "P256", Profile: "value", Series: series(0.3, 0.3)},
	}}
	var b bytes.Buffer
	if err := WriteConvergence(&b, res, 0.05); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	want := map[string][]string{
		"H[P256]2048": {"1000", "1000", "2.00", "5.00"}, // R256 reaches at 2000, settles at 5000
		"P256":        {"-", "-", "-", "-"},
	}
	for cfg, cells := range want {
		found := false
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) == 6 && f[0] == cfg {
				found = true
				if strings.Join(f[2:], " ") != strings.Join(cells, " ") {
					t.Errorf("%s: %v, want %v", cfg, f[2:], cells)
				}
			}
		}
		if !found {
			t.Errorf("no line for %s in\n%s", cfg, b.String())
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, " 10% ": 0.1, "100%": 1} {
		if got, err := ParseThreshold(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "0", "-5%", "5x", "101%", "NaN"} {
		if _, err := ParseThreshold(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
