// Ablation switches: a mechanism's name -> the Options change that turns it off, and what that does.

package engine

import (
	"fmt"
	"slices"
	"strings"

	"rvdyn/fragment"
)

// A Mechanism is one optimization or cache mechanism that can be switched
// off, so that each can be measured (and tested) in isolation: `rvdyn run
// --disable=NAME,...`, `rvdyn bench --ablation`, the differential test.
type Mechanism struct {
	Name string // as --disable takes it: "link", "regalloc", ...
	Doc  string // what switching it off does, one line
	off  func(*Options)
}

// mechanisms is every mechanism, sorted by name: the one table from which
// Disable, Mechanisms, `rvdyn run --disable=help` and the README's list
// (generated and checked by cmd/rvdyn's TestREADMEMechanisms) come.
var mechanisms = func() []Mechanism {
	m := []Mechanism{
		{"link", "every exit returns to the dispatcher instead of jumping to the fragment it leads to (implies `ibl`)", func(o *Options) { o.Cache.NoLink = true }},
		{"ibl", "an indirect jump to a target other than the recorded one returns to the dispatcher instead of looking the target up in the cache", func(o *Options) { o.Cache.NoIBL = true }},
		{"phase-flush", "no flush when the rate of new traces jumps (a phase change)", func(o *Options) { o.Policy.NoPhaseFlush = true }},
		{"phase-keep", "a phase flush empties the whole cache instead of keeping the new phase's fragments and backing off", func(o *Options) { o.Policy.FullPhaseFlush = true }},
		{"bailout", "no bail-out to the interpreter when the cache thrashes", func(o *Options) { o.Policy.NoBailout = true }},
		{"cut-flush", "no flush after a `munmap` or `mprotect` cut a fast interval of guest memory short", func(o *Options) { o.Policy.NoCutFlush = true }},
		{"cut-retranslate", "the flush after a cut records traces afresh instead of compiling the cache's traces again against the new layout", func(o *Options) { o.Policy.CutRecord = true }},
		{"protection", "pages the guest unmaps or re-protects keep their access (no fault there, no fast interval cut): not exact, for measuring what per-page protection costs", func(o *Options) { o.Config.Unprotected = true }},
		{"loop-exits", "a trace recorded on its head's loop's last pass goes on past the loop (the paper's rule; the loop then runs as a side exit back to the fragment's head) instead of ending at the branch back to the head as the loop it is", func(o *Options) { o.NET.NoLoopExits = true }},
		{"hugepages", "guest memory in 4 KiB pages instead of transparent huge pages", func(o *Options) { o.Config.SmallPages = true }},
	}
	// The fragment compiler's switches (regalloc, constfold, ...).
	docs := fragment.PassDocs()
	for _, name := range fragment.PassNames() {
		m = append(m, Mechanism{name, docs[name], func(o *Options) { o.Optimize.Disable(name) }})
	}
	slices.SortFunc(m, func(a, b Mechanism) int { return strings.Compare(a.Name, b.Name) })
	return m
}()

// Mechanisms returns the names Disable accepts, sorted.
func Mechanisms() []string {
	names := make([]string, len(mechanisms))
	for i, m := range mechanisms {
		names[i] = m.Name
	}
	return names
}

// MechanismTable returns every mechanism Disable can switch off, with
// what switching it off does, sorted by name.
func MechanismTable() []Mechanism { return slices.Clone(mechanisms) }

// Disable switches off the mechanisms named in list (comma-separated, see
// Mechanisms); an unknown name is an error.
func (o *Options) Disable(list string) error {
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := slices.IndexFunc(mechanisms, func(m Mechanism) bool { return m.Name == n })
		if i < 0 {
			return fmt.Errorf("unknown mechanism %q (have %s)", n, strings.Join(Mechanisms(), ", "))
		}
		mechanisms[i].off(o)
	}
	return nil
}
