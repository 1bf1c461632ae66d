// Tests of the service-thread compiler against the interpreter: async runs with relational profiler queries -> the same messages, in the same order.

package rvdyn_test

import (
	"slices"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// TestAsyncQueriesAgree: fragments compiled on the service thread carry
// the profiler's sampling decisions and native queries exactly as
// synchronous ones do (the decisions are taken on the main thread when a
// trace is queued), so the service threads of the queries receive the
// interpreter's messages. A one-trace queue makes the main thread compile
// beside the service thread too.
func TestAsyncQueriesAgree(t *testing.T) {
	queries := []string{alwaysQueries[1], alwaysQueries[4], alwaysQueries[7], edgeQuery}
	for _, name := range []string{"scheme", "qsort"} {
		t.Run(name, func(t *testing.T) {
			image, err := corpus.ELF(name)
			if err != nil {
				t.Fatal(err)
			}
			args := corpus.Args(name, corpus.Small)
			for qi, q := range queries {
				var got [2]map[int][]mq.Message
				var reps [2]rpa.Report
				for i, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
					s, c := startCapture(t, q)
					o := run(t, image, rvdyn.Options{Mode: mode, NET: net.Options{Delay: 10}, Profiler: s, MaxInstructions: queryRunLimit,
						Compiler: rvdyn.CompilerOptions{Mode: rvdyn.CompileAsync, Queue: 1}, Config: interp.Config{Args: args}})
					s.Close()
					if o.err != nil && o.err != interp.ErrLimit {
						t.Fatalf("query %d, %v: %v", qi, mode, o.err)
					}
					got[i], reps[i] = c.msgs, s.Report()
					if mode == rvdyn.ModeDynamo && o.stats.Compiler.Queued == 0 {
						t.Errorf("query %d: no trace compiled on the service thread", qi)
					}
				}
				for n := range rpa.MaxQueues {
					if a, b := got[0][n], got[1][n]; !slices.Equal(a, b) {
						t.Errorf("query %d queue %d: interp sent %d messages, async %d; first difference %s", qi, n, len(a), len(b), firstDiff(a, b))
					}
				}
				if r, w := reps[1], reps[0]; r.Records != w.Records || r.Events != w.Events || r.Insts != w.Insts || r.Counts != w.Counts {
					t.Errorf("query %d: async report %+v, interp %+v", qi, r, w)
				}
			}
		})
	}
}

// TestAsyncSpecialize: with value specialization, the service thread
// compiles against the value profile's answers taken on the main thread
// (the profile itself is fed there without its lock); valueshift's
// guards fail mid-run, and the answer is still the interpreter's.
func TestAsyncSpecialize(t *testing.T) {
	image := sysImage(t, "valueshift")
	args := []string{"valueshift", "120"}
	ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args}})
	for _, q := range []int{0, 1} {
		got := run(t, image, rvdyn.Options{NET: net.Options{Delay: 10}, Compiler: rvdyn.CompilerOptions{Mode: rvdyn.CompileAsync, Queue: q},
			Specialize: rvdyn.SpecializeOptions{Profile: "perfect", MinCount: 4, MinInvariance: 0.5, MaxFailures: 1 << 30}, Config: interp.Config{Args: args}})
		if got.err != nil || got.code != ref.code || got.stdout != ref.stdout || got.insts != ref.insts || got.cpu != ref.cpu {
			t.Errorf("queue %d: exit %d (%v), %d instructions; interp exit %d, %d", q, got.code, got.err, got.insts, ref.code, ref.insts)
		}
		if c := got.stats.Compiler; c.Queued == 0 || c.Queued != c.Installed+c.Stale+c.Duplicate+c.Unfinished {
			t.Errorf("queue %d: %+v", q, c)
		}
		if s := got.stats.Specialize; s == nil || s.Specialized == 0 {
			t.Errorf("queue %d: nothing specialized: %+v", q, s)
		}
	}
}
