// Perf map: fragments placed in the code cache -> lines of /tmp/perf-PID.map naming their host code by guest function.

package engine

import (
	"fmt"
	"io"

	"rvdyn/codecache"
	"rvdyn/interp"
)

// perfMap is the attachment of Options.PerfMap: it writes a line per run
// of each placed fragment's code.
type perfMap struct {
	noEvents
	w    io.Writer
	syms *interp.Symbols
}

// placed appends fragment f to the perf map (Options.PerfMap) in the
// format perf reads for JIT code (LuaJIT, V8 and wazero write the same):
// "START SIZE NAME", hex without 0x. A fragment is split into runs of host
// code emitted for one guest function, each named
// "FUNCTION [fragment HEAD]" with HEAD the trace head as symbol+offset, so
// that perf report attributes samples in a trace that crosses calls to the
// function each came from. Code the pc map does not cover (entry loads)
// goes with the run after it.
func (p *perfMap) placed(f *codecache.Fragment) {
	w := p.w
	head := p.syms.Name(f.Head)
	// The function each pc map entry starts, in one pass over the map
	// (several entries at one offset: the last one names the code there).
	type run struct {
		off  int
		name string
	}
	var runs []run
	for off, pc := range f.Code.PCs.All() {
		if off >= f.Size {
			break
		}
		name := p.syms.Func(pc)
		if name == "" {
			name = "guest"
		}
		if n := len(runs); n > 0 && runs[n-1].off == off {
			runs[n-1].name = name
			continue
		}
		runs = append(runs, run{off, name})
	}
	start, cur := 0, ""
	for _, r := range runs {
		if r.name == cur {
			continue
		}
		if cur != "" {
			fmt.Fprintf(w, "%x %x %s [fragment %s]\n", f.Entry+uintptr(start), r.off-start, cur, head)
			start = r.off
		}
		cur = r.name
	}
	if cur == "" {
		cur = "guest"
	}
	fmt.Fprintf(w, "%x %x %s [fragment %s]\n", f.Entry+uintptr(start), f.Size-start, cur, head)
}
