// Tests of the layout command: bad input gets a one-line error; a small guest runs the whole pipeline when the cross toolchain is installed.

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/experiments/placement"
	"rvdyn/layout"
)

func runLayout(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := layoutCmd(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestLayoutBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"bad plot name", []string{"--plot", "x.gif"}, ".svg or .png"},
		{"stray argument", []string{"prog.elf"}, "unexpected"},
		{"clock: bad runs", []string{"clock", "--runs", "0"}, "--runs"},
		{"native: no --from", []string{"native"}, "--from"},
		{"native: bad runs", []string{"native", "--from", "x.json", "--runs", "0"}, "--runs"},
		{"native: missing file", []string{"native", "--from", "/nonexistent/layout.json"}, "nonexistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runLayout(t, tc.args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want failure mentioning %q", code, stderr, tc.want)
			}
		})
	}
	if !layout.CrossToolchain() {
		return
	}
	code, _, stderr := runLayout(t, "--guests-dir", "../../bench/guests", "--guest", "nosuchguest")
	if code == 0 || !strings.Contains(stderr, "nosuchguest") {
		t.Errorf("unknown guest: exit %d, stderr %q", code, stderr)
	}
}

// TestLayoutPipeline runs the whole pipeline on a small guest with few
// sets: every layout is relinked by the cross linker and agrees with the
// original under the interpreter, rvdyn and qemu-riscv64.
func TestLayoutPipeline(t *testing.T) {
	if !layout.CrossToolchain() {
		t.Skip("riscv64-unknown-elf-gcc not installed")
	}
	dir := t.TempDir()
	js := filepath.Join(dir, "layout.json")
	code, stdout, stderr := runLayout(t, "--guests-dir", "../../bench/guests", "--guest", "nqueens", "--sets", "2", "--period", "1000",
		"--json", js, "--plot", filepath.Join(dir, "km.svg"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Table 5", "1 sample set", "good match", "Table 6", "32KB/32B/1-way"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep layoutReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	// original; Pettis-Hansen and C3 from the 2 sets and the complete
	// profile; each algorithm from each single set; and where the
	// time-based sampler runs, both algorithms from each kind of
	// time-based sets.
	want := 1 + 4 + 2*2
	clock := false
	if s, err := layout.NewClockSampler(0); err == nil {
		s.Close()
		clock = true
		want += 4
	}
	if len(rep.Results) != 1 || len(rep.Results[0].Layouts) != want {
		t.Fatalf("results: %+v", rep.Results)
	}
	r := rep.Results[0]
	names := map[string]bool{}
	for _, l := range r.Layouts {
		names[l.Name] = true
	}
	for _, n := range []string{"ph-1set-2", "c3-1set-2", "c3-2sets"} {
		if !names[n] {
			t.Errorf("no layout %s in %v", n, names)
		}
	}
	if len(r.SingleMissRateC3) != len(placement.DefaultCaches) {
		t.Errorf("C3 single-set miss rates: %v", r.SingleMissRateC3)
	}
	// layout native reads the orders back (timing them is left to
	// the command: seconds per build).
	code, _, stderr = runLayout(t, "native", "--from", js, "--guests-dir", "../../bench/guests", "--guest", "nosuchguest")
	if code == 0 || !strings.Contains(stderr, "no guest") {
		t.Errorf("layout native --guest nosuchguest: exit %d, %q", code, stderr)
	}
	if clock {
		kinds := map[placement.SetKind]int{}
		for _, row := range r.Table5 {
			kinds[row.Kind]++
		}
		for _, k := range []placement.SetKind{placement.Frequency, placement.ClockRvdyn, placement.ClockNative} {
			if kinds[k] != 2 { // 1 and 2 sets
				t.Errorf("Table 5 has %d rows of %s sets: %+v", kinds[k], k, r.Table5)
			}
		}
		for _, n := range []string{"ph-clock-rvdyn-2sets", "c3-clock-native-2sets"} {
			if !names[n] {
				t.Errorf("no layout %s", n)
			}
		}
		if !strings.Contains(stdout, "PH clock-rvdyn") {
			t.Errorf("Table 6 lacks the time-based orders:\n%s", stdout)
		}
	}
	// Every relinked program agrees with the original under the
	// interpreter, rvdyn and (when installed) qemu-riscv64.
	runners := 2
	if _, err := exec.LookPath("qemu-riscv64"); err == nil {
		runners = 3
	}
	for _, l := range rep.Results[0].Layouts {
		if len(l.Agree) != runners || len(l.MissRates) != len(placement.DefaultCaches) {
			t.Errorf("layout %s: agree %v, %d miss rates", l.Name, l.Agree, len(l.MissRates))
		}
	}
}
