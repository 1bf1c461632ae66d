// The layout native command: the orders of an earlier `rvdyn layout --json` run in; the host builds relinked with them and timed, interleaved (the paper's Table 7), out.

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"rvdyn/bench/corpus"
	"rvdyn/internal/experiments/placement"
)

const layoutNativeUsage = `usage: rvdyn layout native --from FILE [flags]

Table 7 alone: the procedure orders of an earlier 'rvdyn layout --json FILE'
run (original, Pettis-Hansen and C3 from all sample sets and from the
complete profile, and the time-based sets' orders where present) applied
to each guest's host build (gcc -O2 -ffunction-sections, relinked), each
checked to print what the original build prints, then timed: --runs runs
of every build, interleaved, at the guest's full benchmark size. Prints
each median, its ratio to the original's, and the spread of its runs.
Needs host gcc and make; run from the repository root (or give
--guests-dir).

flags:
`

func layoutNativeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("layout native", flag.ContinueOnError)
	from := fs.String("from", "", "the JSON written by rvdyn layout --json (required)")
	guest := fs.String("guest", "", "comma-separated guests (default: every guest in --from)")
	runs := fs.Int("runs", 21, "runs per build, interleaved")
	guestsDir := fs.String("guests-dir", "bench/guests", "the guest sources and Makefile")
	jsonOut := fs.String("json", "", "write the times as JSON to this file")
	workDir := fs.String("work", "", "keep the linker scripts and host builds here (GUEST.LAYOUT.native, e.g. for hyperfine; default: a temporary directory, removed)")
	if code, ok := parseFlags(fs, args, layoutNativeUsage, stderr); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rvdyn: layout native: "+format+"\n", a...)
		return 1
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if *from == "" {
		return fail("--from is required (the JSON of an earlier rvdyn layout --json run)")
	}
	if *runs < 1 {
		return fail("--runs must be at least 1")
	}
	b, err := os.ReadFile(*from)
	if err != nil {
		return fail("--from: %v", err)
	}
	var rep layoutReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return fail("--from %s: %v", *from, err)
	}
	if _, err := os.Stat(filepath.Join(*guestsDir, "Makefile")); err != nil {
		return fail("--guests-dir %s: %v", *guestsDir, err)
	}
	gdir, _ := filepath.Abs(*guestsDir)
	var want []string
	if *guest != "" {
		want = splitList(*guest, ",")
	}
	wd := *workDir
	if wd == "" {
		d, err := os.MkdirTemp("", "rvdyn-layout-native-")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(d)
		wd = d
	} else if err := os.MkdirAll(wd, 0o755); err != nil {
		return fail("--work: %v", err)
	}
	out := map[string][]placement.NativeTime{}
	var guests []string
	var times [][]placement.NativeTime
	for _, r := range rep.Results {
		if want != nil && !slices.Contains(want, r.Guest) {
			continue
		}
		ls := nativeLayouts(r)
		fmt.Fprintf(stderr, "layout native: %s: timing %d builds, %d runs each\n", r.Guest, len(ls), *runs)
		ts, err := placement.NativeTimes(gdir, wd, r.Guest, ls, corpus.Args(r.Guest, corpus.Full), *runs)
		if err != nil {
			return fail("%v", err)
		}
		out[r.Guest] = ts
		guests, times = append(guests, r.Guest), append(times, ts)
	}
	if len(guests) == 0 {
		return fail("no guest of %s selected", *from)
	}
	fmt.Fprintf(stdout, "Table 7: native execution time (host gcc -O2, relinked), medians of %d interleaved runs\n", *runs)
	placement.WriteTable7(stdout, guests, times)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, out); err != nil {
			return fail("--json: %v", err)
		}
	}
	return 0
}

// nativeLayouts picks Table 7's orders from a guest's layouts: the
// original and every order from summed or complete profiles (the
// single-set orders are left out: 32 host builds per guest).
func nativeLayouts(r *placement.Result) []placement.Layout {
	var ls []placement.Layout
	for _, l := range r.Layouts {
		if !placement.IsSingleSet(l.Name) {
			ls = append(ls, l)
		}
	}
	return ls
}
