// The paper's Table 7 on this machine: procedure orders -> host builds relinked with them -> execution times, medians of interleaved runs.

package placement

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"rvdyn/layout"
)

// NativeTime is one row of Table 7 for one guest: an order and the
// median wall time of its host build.
type NativeTime struct {
	Layout  string          `json:"layout"`
	Median  time.Duration   `json:"median_ns"`
	Samples []time.Duration `json:"samples_ns"`
}

// NativeTimes builds guest natively (host gcc, -O2 -ffunction-sections)
// once per layout, linked with the host's default linker script carrying
// the layout's order ("original": no order), checks that every build
// prints what the original prints for argv, then runs the builds runs
// times each, interleaved (build 1, 2, ..., n, then again), and returns
// the medians. Names the host build does not have (functions GCC inlined
// differently) are ignored by the linker. Timing is of the whole process
// (fork, exec, exit included), as the paper's execution times are.
func NativeTimes(guestsDir, workDir, guest string, layouts []Layout, argv []string, runs int) ([]NativeTime, error) {
	base, err := layout.HostDefaultScript()
	if err != nil {
		return nil, err
	}
	bins := make([]string, len(layouts))
	for i, l := range layouts {
		script, err := layout.LinkerScript(base, l.Order)
		if err != nil {
			return nil, err
		}
		ld := filepath.Join(workDir, guest+"."+l.Name+".native.ld")
		if err := os.WriteFile(ld, []byte(script), 0o644); err != nil {
			return nil, err
		}
		bins[i] = filepath.Join(workDir, guest+"."+l.Name+".native")
		if err := layout.Relink(guestsDir, guest, ld, bins[i], true); err != nil {
			return nil, err
		}
	}
	run := func(bin string) ([]byte, time.Duration, error) {
		var out bytes.Buffer
		cmd := exec.Command(bin, argv[1:]...)
		cmd.Stdout = &out
		t0 := time.Now()
		err := cmd.Run()
		return out.Bytes(), time.Since(t0), err
	}
	want, _, err := run(bins[0])
	if err != nil {
		return nil, fmt.Errorf("layout: %s: %w", bins[0], err)
	}
	for _, b := range bins[1:] {
		got, _, err := run(b)
		if err != nil || !bytes.Equal(got, want) {
			return nil, fmt.Errorf("layout: %s: output differs from the original build's (%v)", b, err)
		}
	}
	res := make([]NativeTime, len(layouts))
	for r := 0; r < runs; r++ {
		for i, b := range bins {
			_, d, err := run(b)
			if err != nil {
				return nil, err
			}
			res[i].Samples = append(res[i].Samples, d)
		}
	}
	for i := range res {
		res[i].Layout = layouts[i].Name
		res[i].Median = MedianDuration(res[i].Samples)
	}
	return res, nil
}
