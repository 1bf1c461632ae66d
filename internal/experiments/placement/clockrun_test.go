// Tests of sampling a native host process (skipped where perf_event or BPF is refused).

package placement

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rvdyn/layout"
)

// clockSampler returns a time-based sampler at the default rate, closed
// when the test ends; the test is skipped where perf_event or BPF is
// refused.
func clockSampler(t *testing.T) *layout.ClockSampler {
	t.Helper()
	s, err := layout.NewClockSampler(layout.DefaultHz)
	if errors.Is(err, layout.ErrClockUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestClockSamplerNative samples a native build of a corpus guest: the
// samples land in its own functions.
func TestClockSamplerNative(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no host gcc")
	}
	s := clockSampler(t)
	bin := filepath.Join(t.TempDir(), "nqueens.native")
	if out, err := exec.Command(gcc, "-O2", "-o", bin, "../../../bench/guests/nqueens.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	var total uint64
	var r NativeRun
	for size := 12; total < 10 && size <= 15; size++ {
		r, err = RunNative(bin, []string{strconv.Itoa(size)}, s)
		if errors.Is(err, layout.ErrClockUnavailable) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		total = 0
		for _, n := range r.Funcs {
			total += n
		}
	}
	var top string
	for f, n := range r.Funcs {
		if top == "" || n > r.Funcs[top] {
			top = f
		}
	}
	if total == 0 || top == "?" {
		t.Errorf("samples by function: %v", r.Funcs)
	}
	t.Logf("%d samples, top %s; %v", total, top, r.Funcs)
}

// TestClockSamplerExitedChild attaches to a child that has exited but
// not been waited for, as a program may before RunNative attaches: no
// samples, and no error.
func TestClockSamplerExitedChild(t *testing.T) {
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	s := clockSampler(t)
	cmd := exec.Command(bin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if _, rest, _ := strings.Cut(string(b), ") "); strings.HasPrefix(rest, "Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not exit")
		}
	}
	attached, err := attachStarted(s, cmd.Process.Pid)
	if attached || err != nil {
		t.Errorf("attaching to an exited child: attached %v, error %v", attached, err)
	}
}
