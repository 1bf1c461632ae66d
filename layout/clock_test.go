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

// spinOther is spin under another name: the code of the second epoch.
//
//go:noinline
func spinOther(n int) int {
	x := 3
	for i := 0; i < n; i++ {
		x = x*1103515245 + 54321
	}
	return x
}

var sink int

// TestClockSamplerEpochs checks that each sample carries the epoch that
// was current on the sampled thread when it was taken: spin runs only
// in epoch 0 and spinOther only in epoch 1, so no sample may show the
// other pairing, whatever the machine's load.
func TestClockSamplerEpochs(t *testing.T) {
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
	in := func(ip uint64, name string) bool {
		f := runtime.FuncForPC(uintptr(ip))
		return f != nil && strings.HasSuffix(f.Name(), "."+name)
	}
	// Spin in one function until at least 10 of its samples arrive
	// (the deadline only bounds a broken sampler).
	phase := func(epoch uint64, name string, f func(int) int) {
		if err := s.SetEpoch(epoch); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			sink += f(1 << 22)
			c, err := s.EpochCounts()
			if err != nil {
				t.Fatal(err)
			}
			var n uint64
			for k, v := range c {
				if k.Epoch == epoch && in(k.IP, name) {
					n += v
				}
			}
			if n >= 10 {
				return
			}
		}
		t.Fatalf("fewer than 10 samples in %s in epoch %d", name, epoch)
	}
	phase(0, "spin", spin)
	phase(1, "spinOther", spinOther)
	s.Stop()
	c, err := s.EpochCounts()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c {
		if (k.Epoch == 0 && in(k.IP, "spinOther")) || (k.Epoch == 1 && in(k.IP, "spin")) || k.Epoch > 1 {
			t.Errorf("%d samples at %#x (%v) carry epoch %d", v, k.IP, runtime.FuncForPC(uintptr(k.IP)).Name(), k.Epoch)
		}
	}
}

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
