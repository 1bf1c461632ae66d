// Ablation switches: a mechanism's name -> the Options change that turns it off.

package rvdyn

import (
	"fmt"
	"sort"
	"strings"
)

// mechanisms maps the name of each optimization or cache mechanism to the
// change of Options that switches it off, so every one can be measured
// (and tested) in isolation: `rvdyn run --disable=NAME,...`,
// `rvdyn bench --ablation`.
var mechanisms = map[string]struct {
	off  func(*Options)
	what string
}{
	"link":        {func(o *Options) { o.NoLink = true }, "linking of fragment exits to fragments"},
	"ibl":         {func(o *Options) { o.NoIBL = true }, "the in-cache indirect branch lookup table"},
	"regalloc":    {func(o *Options) { o.Compile.NoRegAlloc = true }, "register allocation in fragments"},
	"phase-flush": {func(o *Options) { o.Policy.NoPhaseFlush = true }, "the phase-change cache flush"},
	"bailout":     {func(o *Options) { o.Policy.NoBailout = true }, "bailing out to the interpreter"},
}

// Mechanisms returns the names Disable accepts, sorted.
func Mechanisms() []string {
	names := make([]string, 0, len(mechanisms))
	for n := range mechanisms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DescribeMechanism returns a short description of the named mechanism.
func DescribeMechanism(name string) string { return mechanisms[name].what }

// Disable switches off the mechanisms named in list (comma-separated, see
// Mechanisms); an unknown name is an error.
func (o *Options) Disable(list string) error {
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		m, ok := mechanisms[n]
		if !ok {
			return fmt.Errorf("unknown mechanism %q (have %s)", n, strings.Join(Mechanisms(), ", "))
		}
		m.off(o)
	}
	return nil
}
