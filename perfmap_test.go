package rvdyn_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
)

// TestPerfMap checks the perf map: every line is "START SIZE NAME" with
// hex numbers, the runs of one fragment are contiguous and cover it, and
// the names are the guest's functions.
func TestPerfMap(t *testing.T) {
	image, err := corpus.ELF("nqueens")
	if err != nil {
		t.Fatal(err)
	}
	var pm bytes.Buffer
	got := run(t, image, rvdyn.Options{PerfMap: &pm, Config: interp.Config{Args: corpus.Args("nqueens", corpus.Small)}})
	if got.err != nil || got.code != 0 {
		t.Fatalf("exit %d, %v", got.code, got.err)
	}
	lines := strings.Split(strings.TrimSpace(pm.String()), "\n")
	if len(lines) < int(got.stats.Fragments) {
		t.Fatalf("%d perf map lines for %d fragments", len(lines), got.stats.Fragments)
	}
	var prevEnd uint64
	for _, l := range lines {
		var start, size uint64
		var name string
		if n, err := fmt.Sscanf(l, "%x %x %s", &start, &size, &name); n != 3 || err != nil || size == 0 {
			t.Fatalf("bad line %q", l)
		}
		if start < prevEnd {
			t.Errorf("line %q overlaps the one before", l)
		}
		prevEnd = start + size
	}
	if !strings.Contains(pm.String(), " solve_bits [fragment solve_bits") {
		t.Errorf("no run named after the guest's solve_bits:\n%s", pm.String())
	}
}

// TestTopFragments checks the per-fragment tallies: named heads, and the
// instructions of the top fragments within those retired in the cache
// (all fragments' add up to exactly that).
func TestTopFragments(t *testing.T) {
	image, err := corpus.ELF("nqueens")
	if err != nil {
		t.Fatal(err)
	}
	var listing bytes.Buffer
	got := run(t, image, rvdyn.Options{Listing: &listing, Config: interp.Config{Args: corpus.Args("nqueens", corpus.Small)}})
	top := got.stats.TopFragments
	if len(top) == 0 || len(top) > rvdyn.TopFragments {
		t.Fatalf("%d top fragments", len(top))
	}
	var sum uint64
	for i, f := range top {
		sum += f.Instructions
		if i > 0 && f.Instructions > top[i-1].Instructions {
			t.Errorf("not sorted: %+v after %+v", f, top[i-1])
		}
	}
	if sum > got.stats.CacheInstructions || !strings.HasPrefix(top[0].Symbol, "solve") {
		t.Errorf("top fragments %+v: %d instructions of %d in the cache", top, sum, got.stats.CacheInstructions)
	}
	if !strings.Contains(listing.String(), "<solve_bits") {
		t.Errorf("the listing names no guest function")
	}
}
