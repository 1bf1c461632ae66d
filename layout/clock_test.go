// Tests of the time-based sampler on this process's own thread (skipped where perf_event or BPF is refused).

package layout

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// spin burns CPU in user mode; its PCs are what the sampler must see.
//
//go:noinline
func spin(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*1103515245 + 12345
	}
	return x
}

var sink int

func TestClockSamplerOwnThread(t *testing.T) {
	s, err := NewClockSampler(DefaultHz)
	if errors.Is(err, ErrClockUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := s.AttachThread(); errors.Is(err, ErrClockUnavailable) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	// Spin until samples arrive (bounded by a deadline far beyond need,
	// so a loaded machine only makes the test slower).
	var counts map[uint64]uint64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		sink += spin(1 << 22)
		if counts, err = s.Counts(); err != nil {
			t.Fatal(err)
		}
		var n uint64
		for _, c := range counts {
			n += c
		}
		if n >= 20 {
			break
		}
	}
	s.Stop()
	var top uint64
	var topN uint64
	for ip, c := range counts {
		if c > topN {
			top, topN = ip, c
		}
	}
	if topN == 0 {
		t.Fatal("no samples")
	}
	if f := runtime.FuncForPC(uintptr(top)); f == nil || !strings.HasSuffix(f.Name(), ".spin") {
		t.Errorf("most-sampled pc %#x is in %v, want spin", top, f)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Counts(); len(c) != 0 {
		t.Errorf("%d pcs after Reset", len(c))
	}
}
