// Tests of the predict command: bad input, a small guest run with JSON and plot output, a program file.

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

func runPredict(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := predictCmd(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestPredictBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"bad delay", []string{"--delays", "10,x"}, `"x"`},
		{"negative delay", []string{"--delays", "-5"}, `"-5"`},
		{"bad hot", []string{"--hot", "abc%"}, "abc"},
		{"hot too large", []string{"--hot", "100%"}, "100%"},
		{"bad plot name", []string{"--plot", "x.gif"}, ".svg or .png"},
		{"bad noise plot name", []string{"--plot-noise", "x.pdf"}, "--plot-noise"},
		{"bad counter plot name", []string{"--plot-counters", "x"}, "--plot-counters"},
		{"unknown guest", []string{"--guest", "nosuchguest"}, "nosuchguest"},
		{"file and guest", []string{"--guest", "sieve", "prog.elf"}, "not both"},
		{"missing file", []string{"/nonexistent/prog.elf"}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runPredict(t, tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line mentioning %s", stderr, tc.want)
			}
		})
	}
	if code, _, stderr := runPredict(t, "-h"); code != 0 || !strings.Contains(stderr, "-delays") {
		t.Errorf("-h: exit status %d, %q", code, stderr)
	}
}

func TestPredictGuests(t *testing.T) {
	dir := t.TempDir()
	js, svg := filepath.Join(dir, "p.json"), filepath.Join(dir, "p.svg")
	noise, counters := filepath.Join(dir, "noise.svg"), filepath.Join(dir, "counters.png")
	code, out, stderr := runPredict(t, "--guest", "bytecode,strings", "--small", "--delays", "10,50,1000",
		"--json", js, "--plot", svg, "--plot-noise", noise, "--plot-counters", counters)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"== bytecode 50:", "== strings 4000:", "#unique heads", "NET", "averages over the guests", "at profiled flow"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Guest   string
		Summary struct{ Paths, Heads, HotPaths int }
		Results []struct {
			Scheme           string
			Delay            int
			HitRate          float64
			CounterSpace     int
			ProfiledFlow     float64
			Predicted, Noise int
		}
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Guest != "bytecode" || len(rows[0].Results) != 9 {
		t.Fatalf("json rows: %+v", rows)
	}
	for _, r := range rows {
		s := r.Summary
		if s.Heads == 0 || s.Heads >= s.Paths || s.HotPaths == 0 {
			t.Errorf("%s: summary %+v", r.Guest, s)
		}
		for _, x := range r.Results {
			if x.HitRate <= 0 || x.HitRate > 100 || (x.Scheme != "path profile") != (x.CounterSpace == s.Heads) {
				t.Errorf("%s: result %+v", r.Guest, x)
			}
		}
	}
	for _, f := range []string{svg, noise, counters} {
		if fi, err := os.Stat(f); err != nil || fi.Size() < 1000 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}

// TestPredictFile runs a hand-made program given as a file: a loop of 100
// iterations is one hot path.
func TestPredictFile(t *testing.T) {
	e := rvtest.Encode
	prog := []uint32{
		e(interp.Inst{Op: interp.OpADDI, Rd: 10, Imm: 100}),
		e(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1}), // <- head
		e(interp.Inst{Op: interp.OpBNE, Rs1: 10, Imm: -4}),
		e(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}),
		e(interp.Inst{Op: interp.OpECALL}),
	}
	path := filepath.Join(t.TempDir(), "loop.elf")
	if err := os.WriteFile(path, rvtest.MakeELF(prog, nil, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runPredict(t, "--delays", "10", "--hot", "5%", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 100 path executions: entry, 98 loop iterations, the last one that
	// exits. Only the loop path is hot (> 5); at delay 10 all three
	// schemes (NET once too: one path per head) capture 88 of its 98
	// runs: 89.80%.
	if !strings.Contains(out, "loop.elf") || strings.Count(out, "89.80") != 3 {
		t.Errorf("output:\n%s", out)
	}
}
