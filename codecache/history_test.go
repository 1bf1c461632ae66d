// Tests of the placement history: (flush epoch, host address) -> the fragment that held the address then.

package codecache_test

import (
	"testing"

	"rvdyn/codecache"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestFragmentAtEpoch checks the placement history: after a flush the
// same host address holds a different fragment, and (epoch, address)
// still names the one that was there at the time.
func TestFragmentAtEpoch(t *testing.T) {
	const T = rvtest.MakeELFText
	m, err := interp.Load(twoLoops(), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	a, b := build(t, m, T), build(t, m, T+8)
	c, err := codecache.New(codecache.Options{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fa, err := c.Insert(a) // epoch 0, before KeepHistory: not retained
	if err != nil {
		t.Fatal(err)
	}
	c.Flush()
	c.KeepHistory()
	fa1, err := c.Insert(a) // epoch 1, at offset 0 again
	if err != nil {
		t.Fatal(err)
	}
	if fa1.Entry != fa.Entry {
		t.Fatalf("the cache did not reuse its memory after a flush (%#x, %#x)", fa.Entry, fa1.Entry)
	}
	c.Flush()
	fb2, err := c.Insert(b) // epoch 2: B where A was
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Epoch(); got != 2 {
		t.Fatalf("Epoch = %d after two flushes", got)
	}
	addr := fa.Entry
	for _, tc := range []struct {
		epoch uint64
		want  *codecache.Fragment
	}{{0, nil}, {1, fa1}, {2, fb2}, {3, nil}} {
		if got := c.FragmentAtEpoch(addr, tc.epoch); got != tc.want {
			t.Errorf("FragmentAtEpoch(%#x, %d) = %v, want %v", addr, tc.epoch, got, tc.want)
		}
	}
	if got := c.FragmentAt(addr); got != fb2 {
		t.Errorf("FragmentAt(%#x) = %v, want the current epoch's B", addr, got)
	}
	if f := c.FragmentAtEpoch(fa1.Entry+uintptr(fa1.Size)+4096, 1); f != nil {
		t.Errorf("an address past epoch 1's fragments resolved to %#x", f.Head)
	}
}
