// Tests of the layout command: bad input gets a one-line error; a small guest runs the whole pipeline when the cross toolchain is installed.

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	if len(rep.Results) != 1 || len(rep.Results[0].Layouts) != 7 {
		t.Fatalf("results: %+v", rep.Results)
	}
	// Every relinked program agrees with the original under the
	// interpreter, rvdyn and (when installed) qemu-riscv64.
	runners := 2
	if _, err := exec.LookPath("qemu-riscv64"); err == nil {
		runners = 3
	}
	for _, l := range rep.Results[0].Layouts {
		if len(l.Agree) != runners || len(l.MissRates) != len(layout.DefaultCaches) {
			t.Errorf("layout %s: agree %v, %d miss rates", l.Name, l.Agree, len(l.MissRates))
		}
	}
}
