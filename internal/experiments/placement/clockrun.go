// Time-based sampling of a native host process: a program and its arguments -> its run time and its PC samples by function (the paper's monitor on an ordinary process, and its Table 4 overhead).

package placement

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rvdyn/layout"
)

// A NativeRun is one run of a host program.
type NativeRun struct {
	Elapsed time.Duration // wall time from start to exit
	Status  int           // exit status (a guest may exit non-zero by design)
	// Funcs counts samples by function symbol of the program ("?" for
	// PCs outside it: the C library, the dynamic loader, the vDSO); nil
	// when the run was not sampled.
	Funcs map[string]uint64
}

// RunNative runs bin with args (stdout discarded; a non-zero exit status
// is reported in Status, not as an error) and, if s is not nil,
// samples it with s from just after it starts until it exits (the first
// instructions before the attach are not seen, and a program that ends
// before the attach gives a run without samples); s's map is emptied
// first.
// The PIE load base is read from /proc/PID/maps while the process runs:
// that read, and the perf_event_open, happen inside the timed interval,
// on the monitoring side, as the paper's Table 4 charges its monitor.
func RunNative(bin string, args []string, s *layout.ClockSampler) (NativeRun, error) {
	var r NativeRun
	if s != nil {
		// Empty the map before the clock starts: deleting thousands of
		// keys is work the run must not be charged with.
		if err := s.Reset(); err != nil {
			return r, err
		}
	}
	cmd := exec.Command(bin, args...)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	var base uint64
	if s != nil {
		attached, err := attachStarted(s, cmd.Process.Pid)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return r, err
		}
		if attached {
			base = loadBase(cmd.Process.Pid)
		}
	}
	err := cmd.Wait()
	r.Elapsed = time.Since(t0)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		r.Status, err = ee.ExitCode(), nil
	}
	if s == nil {
		return r, err
	}
	s.Stop()
	if err != nil {
		return r, err
	}
	counts, err := s.Counts()
	if err != nil {
		return r, err
	}
	r.Funcs, err = symbolize(bin, base, counts)
	return r, err
}

// attachStarted attaches s to pid, a child started and not yet waited
// for. A child that has already exited (a zombie until it is waited for)
// leaves nothing to sample: attached is false, and there is no error.
func attachStarted(s *layout.ClockSampler, pid int) (attached bool, err error) {
	switch err := s.Attach(pid); {
	case errors.Is(err, syscall.ESRCH):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// loadBase returns the start of the lowest mapping of pid's executable
// (0 if it cannot be read: a non-PIE program needs none).
func loadBase(pid int) uint64 {
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[5] == exe && fs[2] == "00000000" {
			lo, _, _ := strings.Cut(fs[0], "-")
			b, _ := strconv.ParseUint(lo, 16, 64)
			return b
		}
	}
	return 0
}

// symbolize attributes host PCs to the function symbols of bin, loaded
// at base if it is position independent.
func symbolize(bin string, base uint64, counts map[uint64]uint64) (map[string]uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		base = 0
	}
	syms, _ := f.Symbols()
	type fn struct {
		lo, hi uint64
		name   string
	}
	var fns []fn
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			fns = append(fns, fn{s.Value, s.Value + s.Size, s.Name})
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].lo < fns[j].lo })
	out := map[string]uint64{}
	for ip, n := range counts {
		a := ip - base
		i := sort.Search(len(fns), func(i int) bool { return fns[i].lo > a }) - 1
		if i >= 0 && a < fns[i].hi {
			out[fns[i].name] += n
		} else {
			out["?"] += n
		}
	}
	return out, nil
}
