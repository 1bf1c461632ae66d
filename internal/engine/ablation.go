// Ablation switches: a mechanism's name -> the Options change that turns it off.

package engine

import (
	"fmt"
	"rvdyn/fragment"
	"sort"
	"strings"
)

// mechanisms maps the name of each optimization or cache mechanism to the
// change of Options that switches it off, so every one can be measured
// (and tested) in isolation: `rvdyn run --disable=NAME,...`,
// `rvdyn bench --ablation`.
var mechanisms = func() map[string]func(*Options) {
	m := map[string]func(*Options){
		"link":        func(o *Options) { o.Cache.NoLink = true },          // linking of exits to fragments
		"ibl":         func(o *Options) { o.Cache.NoIBL = true },           // in-cache indirect branch lookup
		"phase-flush": func(o *Options) { o.Policy.NoPhaseFlush = true },   // phase-change flush
		"phase-keep":  func(o *Options) { o.Policy.FullPhaseFlush = true }, // a phase flush keeps the new phase's fragments, backs off
		"bailout":     func(o *Options) { o.Policy.NoBailout = true },      // bail-out to the interpreter
		"cut-flush":   func(o *Options) { o.Policy.NoCutFlush = true },     // the flush after a munmap or mprotect cut a fast interval short
		"hugepages":   func(o *Options) { o.Config.SmallPages = true },     // guest memory in transparent huge pages
	}
	// The fragment compiler's passes (regalloc, constfold, ...).
	for _, name := range fragment.PassNames() {
		m[name] = func(o *Options) { o.Compile.Disable(name) }
	}
	return m
}()

// Mechanisms returns the names Disable accepts, sorted.
func Mechanisms() []string {
	names := make([]string, 0, len(mechanisms))
	for n := range mechanisms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Disable switches off the mechanisms named in list (comma-separated, see
// Mechanisms); an unknown name is an error.
func (o *Options) Disable(list string) error {
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		off, ok := mechanisms[n]
		if !ok {
			return fmt.Errorf("unknown mechanism %q (have %s)", n, strings.Join(Mechanisms(), ", "))
		}
		off(o)
	}
	return nil
}
