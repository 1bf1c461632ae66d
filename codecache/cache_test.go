package codecache_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// twoLoops is a program with two loops: A (0x00) falls into B (0x08)
// when done, and B jumps back to A:
//
//	0x00 addi a0,a0,1 ; 0x04 bne a0,a1,-4 (A loops)
//	0x08 addi a2,a2,1 ; 0x0c bne a2,a3,-4 (B loops) ; 0x10 jal -0x10 (to A)
func twoLoops() []byte {
	e := rvtest.Encode
	type I = interp.Inst
	return rvtest.MakeELF([]uint32{
		e(I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		e(I{Op: interp.OpBNE, Rs1: 10, Rs2: 11, Imm: -4}),
		e(I{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1}),
		e(I{Op: interp.OpBNE, Rs1: 12, Rs2: 13, Imm: -4}),
		e(I{Op: interp.OpJAL, Imm: -0x10}),
	}, nil, 4096)
}

// build records and compiles the trace starting at pc.
func build(t *testing.T, m *interp.Machine, pc uint64) *fragment.Code {
	t.Helper()
	m.CPU.PC = pc
	tr, _, err := net.Record(m, 100, func(p uint64) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	code, err := fragment.Compile(tr, fragment.EnvOf(m), fragment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestLinkAndFlush(t *testing.T) {
	const T = rvtest.MakeELFText
	m, err := interp.Load(twoLoops(), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.CPU.X[11], m.CPU.X[13] = 1<<40, 1<<40 // loops that never end
	a, b := build(t, m, T), build(t, m, T+8)
	c, err := codecache.New(codecache.Options{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fa, err := c.Insert(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(a); err == nil {
		t.Error("second fragment with the same tag accepted")
	}
	linksBefore := c.Stats().Links
	if _, err := c.Insert(b); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Links <= linksBefore {
		t.Errorf("inserting B linked nothing (links %d)", c.Stats().Links)
	}

	// With a1 = a0+3, A runs 3 iterations, then B runs until the budget:
	// control must reach B through the linked exit without returning.
	st := new(fragment.State)
	m.UseCPU(&st.CPU)
	st.CPU.X[10], st.CPU.X[11] = 0, 3
	st.Budget = 1000
	e := c.Enter(fa, st, m.Mem.Base())
	if st.CPU.X[10] != 3 || st.CPU.X[12] == 0 || st.Budget > 0 {
		t.Fatalf("a0=%d a2=%d budget=%d exit %+v: did not run through the link into B", st.CPU.X[10], st.CPU.X[12], st.Budget, e.Stub)
	}

	c.Flush()
	if c.Lookup(T) != nil || c.Stats().LiveFrags != 0 || c.Stats().Flushes != 1 {
		t.Errorf("after flush: %+v", c.Stats())
	}
	if _, err := c.Insert(a); err != nil {
		t.Errorf("insert after flush: %v", err)
	}
}

func TestFull(t *testing.T) {
	m, err := interp.Load(twoLoops(), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	code := build(t, m, rvtest.MakeELFText)
	c, err := codecache.New(codecache.Options{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for ; n < 1000; n++ {
		code.Head = rvtest.MakeELFText + 4*uint64(n) // distinct tags, same code
		if _, err = c.Insert(code); err != nil {
			break
		}
	}
	if !errors.Is(err, codecache.ErrFull) || n == 0 || n*len(code.Bytes) > 4096 {
		t.Fatalf("after %d inserts of %d bytes: %v", n, len(code.Bytes), err)
	}
}

// TestWX checks that no mapping of the process is writable and executable
// while a cache holds code.
func TestWX(t *testing.T) {
	m, err := interp.Load(twoLoops(), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := codecache.New(codecache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.Insert(build(t, m, rvtest.MakeELFText))
	if err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	// The cache's pages are one shared object (shown as /dev/zero):
	// find the mapping holding the fragment, then every mapping of the
	// same object (device and inode fields).
	var lines [][]string
	var inode string
	for _, line := range strings.Split(string(maps), "\n") {
		f2 := strings.Fields(line)
		if len(f2) < 5 {
			continue
		}
		if strings.Contains(f2[1], "w") && strings.Contains(f2[1], "x") {
			t.Errorf("writable and executable mapping: %s", line)
		}
		lines = append(lines, f2)
		var lo, hi uintptr
		fmt.Sscanf(f2[0], "%x-%x", &lo, &hi)
		if f.Entry >= lo && f.Entry < hi {
			inode = f2[3] + " " + f2[4]
			if f2[1] != "r-xs" {
				t.Errorf("fragment in a %s mapping: %s", f2[1], line)
			}
		}
	}
	var perms []string
	for _, f2 := range lines {
		if f2[3]+" "+f2[4] == inode {
			perms = append(perms, f2[1])
		}
	}
	if len(perms) != 2 {
		t.Errorf("want the cache mapped twice (RW and RX), found %v", perms)
	}
}

func TestNewRejectsBadSize(t *testing.T) {
	if _, err := codecache.New(codecache.Options{Size: 100}); err == nil {
		t.Error("accepted a 100-byte cache")
	}
}

// twoLoopFragments loads twoLoops, compiles the traces A (at its first
// loop) and B (at its second, which A's exit goes to) and maps an empty
// 64 KiB cache; the test's cleanup closes the machine and the cache.
func twoLoopFragments(t *testing.T) (m *interp.Machine, a, b *fragment.Code, c *codecache.Cache) {
	t.Helper()
	m, err := interp.Load(twoLoops(), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.CPU.X[11], m.CPU.X[13] = 1<<40, 1<<40
	a, b = build(t, m, rvtest.MakeELFText), build(t, m, rvtest.MakeELFText+8)
	c, err = codecache.New(codecache.Options{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return m, a, b, c
}

// TestRemove takes B out after A's exit was linked to it: A's exit must
// fall through to the dispatcher again (an exit returned, not a run into
// B), lookups miss B, and inserting B again relinks A's exit.
func TestRemove(t *testing.T) {
	const T = rvtest.MakeELFText
	m, a, b, c := twoLoopFragments(t)
	fa, err := c.Insert(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := c.Insert(b)
	if err != nil {
		t.Fatal(err)
	}
	c.Remove(fb)
	c.Remove(fb) // twice: nothing more happens
	if c.Lookup(T+8) != nil || c.Stats().Removed != 1 || c.Stats().LiveFrags != 1 {
		t.Fatalf("after Remove: lookup %v, stats %+v", c.Lookup(T+8), c.Stats())
	}
	enterA := func() (*codecache.Exit, *fragment.State) {
		st := new(fragment.State)
		m.UseCPU(&st.CPU)
		st.CPU.X[10], st.CPU.X[11], st.CPU.X[12] = 0, 3, 0
		st.Budget = 1000
		return c.Enter(fa, st, m.Mem.Base()), st
	}
	e, st := enterA()
	if e.Target != T+8 || e.Linked || st.CPU.X[12] != 0 || st.Budget <= 0 {
		t.Fatalf("exit %+v (linked %v), a2=%d, budget %d: A's exit still runs into the removed B", e.Stub, e.Linked, st.CPU.X[12], st.Budget)
	}
	if _, err := c.Insert(b); err != nil {
		t.Fatal(err)
	}
	if _, st := enterA(); st.CPU.X[12] == 0 || st.Budget > 0 {
		t.Errorf("a2=%d budget=%d: A's exit was not linked to the new B", st.CPU.X[12], st.Budget)
	}
}

// TestRemoveIf removes A and B, A's exit linked to B, in one call: both
// tags miss, and A's dead exit is forgotten, so inserting B again links
// nothing; inserting A again links its exit to the new B, which it then
// runs into.
func TestRemoveIf(t *testing.T) {
	const T = rvtest.MakeELFText
	m, a, b, c := twoLoopFragments(t)
	if _, err := c.Insert(b); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(a); err != nil {
		t.Fatal(err)
	}
	links := c.Stats().Links
	if links == 0 {
		t.Fatal("A's exit to B was not linked")
	}
	if n := c.RemoveIf(func(*codecache.Fragment) bool { return false }); n != 0 {
		t.Fatalf("removed %d with a predicate that keeps everything", n)
	}
	if n := c.RemoveIf(func(*codecache.Fragment) bool { return true }); n != 2 {
		t.Fatalf("removed %d, want 2", n)
	}
	if c.Lookup(T) != nil || c.Lookup(T+8) != nil || c.Stats().Removed != 2 || c.Stats().LiveFrags != 0 {
		t.Fatalf("after RemoveIf: stats %+v", c.Stats())
	}
	if _, err := c.Insert(b); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().Links; got != links {
		t.Fatalf("inserting B again made %d links: the removed A's exit was linked", got-links)
	}
	fa, err := c.Insert(a)
	if err != nil {
		t.Fatal(err)
	}
	st := new(fragment.State)
	m.UseCPU(&st.CPU)
	st.CPU.X[10], st.CPU.X[11], st.CPU.X[12] = 0, 3, 0
	st.Budget = 1000
	c.Enter(fa, st, m.Mem.Base())
	if st.CPU.X[12] == 0 || st.Budget > 0 {
		t.Errorf("a2=%d budget=%d: the new A's exit was not linked to the new B", st.CPU.X[12], st.Budget)
	}
}
