// Tests of the profile command: bad input, the Monte Carlo run, record and replay of a guest.

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/bench/corpus"
)

func runProfile(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := profileCmd(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestProfileBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"bad config", []string{"--configs", "R256;H[P256]20x8", "--guest", "sieve"}, `"20x8"`},
		{"bad profile", []string{"--profile", "value,stack", "--guest", "sieve"}, `"stack"`},
		{"missing file", []string{"/nonexistent/prog.elf"}, "no such file"},
		{"not a stream", []string{"--replay", "profile.go"}, "not an rvdyn tuple stream"},
		{"replay and guest", []string{"--replay", "x", "--guest", "sieve"}, "not both"},
		{"unknown guest", []string{"--guest", "nosuchguest"}, "nosuchguest"},
		{"bad sizes", []string{"--montecarlo", "--mc-sizes", "1000:x:5"}, "mc-sizes"},
		{"bad estimator", []string{"--montecarlo", "--mc-estimator", "median"}, "median"},
		{"bad plot name", []string{"--montecarlo", "--trials", "2", "--mc-sizes", "1000", "--plot", filepath.Join(t.TempDir(), "x.gif")}, ".svg or .png"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runProfile(t, tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %s", stderr, tc.want)
			}
		})
	}
	if code, _, _ := runProfile(t, "-h"); code != 0 {
		t.Errorf("-h: exit status %d", code)
	}
}

func TestProfileMonteCarlo(t *testing.T) {
	dir := t.TempDir()
	js, svg := filepath.Join(dir, "mc.json"), filepath.Join(dir, "mc.svg")
	code, out, stderr := runProfile(t, "--montecarlo", "--trials", "300", "--mc-sizes", "1000,8000", "--json", js, "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "holds at every N") {
		t.Errorf("ordering not reported as holding:\n%s", out)
	}
	var rows []struct {
		Sampler   string  `json:"sampler"`
		N         int     `json:"n"`
		MeanError float64 `json:"mean_error"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 12 {
		t.Fatalf("JSON: %d rows, %v", len(rows), err)
	}
	if rows[3].Sampler != "P10" && rows[9].Sampler != "H[P10]2048" {
		t.Errorf("sampler names %q, %q", rows[3].Sampler, rows[9].Sampler)
	}
	if fi, err := os.Stat(svg); err != nil || fi.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
}

func TestProfileGuestRecordReplay(t *testing.T) {
	qsort, err := corpus.ELFFile("qsort")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec, js, js2 := filepath.Join(dir, "q.rvts"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	cfgs := "R256;H[P256]2048;tag2-256-2048;multihash:tables=1;multihash:tables=4"
	code, out, stderr := runProfile(t, "--configs", cfgs, "--profile", "value", "--profile", "edge",
		"--record", rec, "--json", js, "--progress=false", qsort, "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"qsort.elf 300", "H[P256]2048", "multihash:tables=4", "FP bound", "edge"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, _, stderr = runProfile(t, "--configs", cfgs, "--replay", rec, "--json", js2, "--plot", filepath.Join(dir, "p.png"))
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	type row struct {
		Config, Profile string
		Error, Overhead float64
		FalsePositive   *float64 `json:"false_positive"`
		FalseNegative   *float64 `json:"false_negative"`
		NeutralPositive *float64 `json:"neutral_positive"`
		NeutralNegative *float64 `json:"neutral_negative"`
	}
	var a, b []row
	ba, _ := os.ReadFile(js)
	bb, _ := os.ReadFile(js2)
	json.Unmarshal(ba, &a)
	json.Unmarshal(bb, &b)
	if len(a) != 10 || len(a) != len(b) {
		t.Fatalf("%d live rows, %d replayed; want 10 (5 configurations x 2 profiles)", len(a), len(b))
	}
	for i := range a {
		if a[i].Config != b[i].Config || a[i].Error != b[i].Error || a[i].Overhead != b[i].Overhead {
			t.Errorf("row %d: live %+v, replay %+v", i, a[i], b[i])
		}
		interval := strings.HasPrefix(a[i].Config, "multihash")
		if interval != (a[i].FalsePositive != nil && a[i].NeutralNegative != nil) {
			t.Errorf("row %d (%s): interval fields present = %v", i, a[i].Config, !interval)
		}
	}
}
