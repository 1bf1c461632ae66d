package rvdyn_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/fragment"
	"rvdyn/interp"
	"rvdyn/net"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// alwaysQueries select every instruction of their classes, so interp and
// dynamo runs must deliver the same messages, in the same order, to every
// queue (the Figure 2c store-barrier query among them, which only the
// Scheme guest's tagged stores match).
var alwaysQueries = []string{
	"for opSTORE * always collect pc op1 op2 op3; send 1 stop;",
	"for opBRANCH * always collect pc res1 misc; send 1 stop;",
	"for opSTORE 1 always collect op1 op2 op3;\nif op1 <> 0 then send 3 stop else stop;",
	"for opLOAD * always collect pc op2 op3 res1 res1u ftime;\n" +
		"if res1 < 7 and op3.b0 bclr 7 goto small;\n" +
		"if res1u <> 8 or op2.h1 > 8 then send 2 stop;\n" +
		"count stop;\n" +
		"small: send 4 stop;\n" +
		"for opJMP * opMULT * opSYS * always collect pc op1 res1 res2 misc;\n" +
		"if misc.b1 >= 40 then send 5 else goto last;\n" +
		"send 6 stop;\n" +
		"last: count stop;",
	// Sampled queries: fragments carry the sampling decision (the shared
	// countdown), so both modes sample the same executions.
	"for opBRANCH * every 7 collect pc res1 misc; send 1 stop;",
	"for opLOAD * opSTORE * every 3 collect pc op2 op3 ftime;\nif op3.h0 > 4096 then send 2 stop;\nsend 5 stop;\n" +
		"for opALU * every 64 collect pc res1; send 6 stop;",
	// Native queries (rvdyn.Options.ProfilerNoNative unset): compares of
	// all sizes and kinds, OR, branches to another clause, several queues.
	edgeQuery,
	"for opSTORE * every 5 collect pc op1 op1up op2 op2up op3 res2;\n" +
		"if op1up.b1 bset 3 or op1.h0 >= 3 goto hi;\n" +
		"if op2up < 40000 and op3 <= 40000 then send 2;\n" +
		"send 3 stop;\n" +
		"hi: if res2 > 5 or op2.b0 bclr 5 then send 4 stop;\n" +
		"send 2 stop;\n" +
		"for opBRANCH * always collect pc op1 op3 res1 res1u res2 misc;\n" +
		"if misc.b0 bset 1 and res1 = 1 then send 5;\n" +
		"if op3 < 60000 or false then send 6 stop;\n" +
		"if op1 = 0 then send 6 stop;\n" +
		"stop;",
}

// native marks the queries whose selected instructions all run their
// queries natively in fragments (rpa.Engine.Native): the edge query and
// the Figure 2c store barrier.
var native = map[string]bool{
	alwaysQueries[0]: true, alwaysQueries[1]: true, alwaysQueries[2]: true, alwaysQueries[4]: true,
	alwaysQueries[6]: true, alwaysQueries[7]: true,
}

// edgeQuery is the edge query of Figure 2a.
const edgeQuery = "for opBRANCH * every 256 collect pc res1 misc; send 1 stop;"

// captured is what the service threads of one run received, per queue.
type captured struct {
	mu   sync.Mutex
	msgs map[int][]mq.Message
}

// startCapture starts a session for text whose service threads record
// every message, in order.
func startCapture(t *testing.T, text string) (*rpa.Session, *captured) {
	t.Helper()
	return startCaptureSlow(t, text, 0, 0)
}

// startCaptureSlow is startCapture with queues of the given number of
// slots (0: the default) and service threads that spin for spin
// iterations after each message (a slow consumer).
func startCaptureSlow(t *testing.T, text string, slots, spin int) (*rpa.Session, *captured) {
	t.Helper()
	p, err := rpa.Assemble(text)
	if err != nil {
		t.Fatal(err)
	}
	c := &captured{msgs: map[int][]mq.Message{}}
	h := map[int]func(*mq.Message){}
	for _, n := range p.Queues() {
		h[n] = func(m *mq.Message) {
			c.mu.Lock()
			c.msgs[n] = append(c.msgs[n], *m)
			c.mu.Unlock()
			for i := 0; i < spin; i++ {
				spinSink.Add(1)
			}
		}
	}
	s, err := rpa.Start(p, rpa.Options{Seed: 7, Handlers: h}, slots)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// queryRunLimit bounds each guest run of the query tests (the first
// instructions of each guest, its setup and hot loops): an always-query
// sends a message per selected instruction.
const queryRunLimit = 3_000_000

// TestQueryModesAgree: with always-queries installed, every guest of
// both corpus flavors gives the same output, status and instruction count
// in interp and dynamo mode as without queries, and the service threads
// receive identical messages (RV64GC: native queries of compressed
// branches, whose targets need not be multiples of 4, among them).
func TestQueryModesAgree(t *testing.T) {
	for _, fl := range corpus.Flavors() {
		for _, name := range corpus.NamesOf(fl) {
			t.Run(fl.String()+"/"+name, func(t *testing.T) { queryModesAgree(t, name, fl, fragment.Options{}) })
		}
	}
}

// TestQueryPackedRest is TestQueryModesAgree where a looping fragment's
// packed countdown holds at most 3 of the countdown in R12 and leaves
// the rest in State (fragment.Options.PackedCountdownMax): the path that
// takes the rest, which at the default 65535 only a gap drawn at period
// 8,192 now and then reaches, is taken all the time, and the fragments
// must still sample exactly the interpreter's executions.
func TestQueryPackedRest(t *testing.T) {
	for _, g := range []struct {
		fl   corpus.Flavor
		name string
	}{{corpus.GC, "bintree"}, {corpus.GC, "sieve"}, {corpus.GC, "strings"}, {corpus.IM, "qsort"}, {corpus.IM, "crc32"}} {
		t.Run(g.fl.String()+"/"+g.name, func(t *testing.T) {
			queryModesAgree(t, g.name, g.fl, fragment.Options{PackedCountdownMax: 3})
		})
	}
}

func queryModesAgree(t *testing.T, name string, fl corpus.Flavor, optimize fragment.Options) {
	t.Parallel() // each run has its own VM and profiler session
	image, err := corpus.ELFOf(name, fl)
	if err != nil {
		t.Fatal(err)
	}
	args := corpus.Args(name, corpus.Small)
	ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, MaxInstructions: queryRunLimit, Config: interp.Config{Args: args}})
	for qi, q := range alwaysQueries {
		var got [2]map[int][]mq.Message
		var reps [2]rpa.Report
		for i, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
			s, c := startCapture(t, q)
			o := run(t, image, rvdyn.Options{Mode: mode, NET: net.Options{Delay: 10}, Profiler: s, MaxInstructions: queryRunLimit, Optimize: optimize, Config: interp.Config{Args: args}})
			s.Close()
			if o.err != ref.err || o.code != ref.code || o.stdout != ref.stdout || o.insts != ref.insts {
				t.Fatalf("query %d, %v: exit %d (%v), %d instructions; without queries %d, %d", qi, mode, o.code, o.err, o.insts, ref.code, ref.insts)
			}
			if o.stats.Profiler == nil {
				t.Fatalf("query %d, %v: no rpa report in Stats", qi, mode)
			}
			got[i], reps[i] = c.msgs, s.Report()
			t.Logf("query %d %v: records %d, native %d, sample exits %d", qi, mode, reps[i].Records, reps[i].Native, o.stats.Exits[rvdyn.ExitSample])
			if mode == rvdyn.ModeDynamo && native[q] && rpa.NativeAvailable() && reps[i].Native == 0 && reps[i].Records > 0 {
				t.Errorf("query %d: %d records, none run natively", qi, reps[i].Records)
			}
			if mode == rvdyn.ModeDynamo && strings.Contains(q, "every") && o.stats.Exits[rvdyn.ExitSample] == 0 && reps[1].Native == 0 {
				t.Errorf("query %d: no sample exits: the fragments carry no sampling decision", qi)
			}
		}
		for n := range rpa.MaxQueues {
			a, b := got[0][n], got[1][n]
			if !slices.Equal(a, b) {
				t.Errorf("query %d queue %d: interp sent %d messages, dynamo %d; first difference %s", qi, n, len(a), len(b), firstDiff(a, b))
			}
		}
		if reps[0].Records != reps[1].Records || reps[0].Events != reps[1].Events || reps[0].Insts != reps[1].Insts || reps[0].Counts != reps[1].Counts {
			t.Errorf("query %d: reports differ: interp %+v, dynamo %+v", qi, reps[0], reps[1])
		}
	}
}

// spinSink keeps a slow consumer's busy loop from being optimized away.
var spinSink atomic.Uint64

// TestNativeQueueStress: with two-slot queues and consumers slower than
// the guest, native producers find the queues full again and again; the
// messages still arrive exactly once and in the interpreter's order, and
// some were sent natively while others took the ExitSample path.
func TestNativeQueueStress(t *testing.T) {
	queries := []string{alwaysQueries[2], alwaysQueries[1], alwaysQueries[7], edgeQuery}
	for _, name := range []string{"scheme", "qsort"} {
		t.Run(name, func(t *testing.T) {
			image, err := corpus.ELF(name)
			if err != nil {
				t.Fatal(err)
			}
			args := corpus.Args(name, corpus.Small)
			for qi, q := range queries {
				var got [3]map[int][]mq.Message
				var reps [3]rpa.Report
				var exits [3]uint64
				for i, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo, rvdyn.ModeDynamo} {
					s, c := startCaptureSlow(t, q, 2, 2000)
					o := run(t, image, rvdyn.Options{Mode: mode, NET: net.Options{Delay: 10}, Profiler: s, ProfilerNoNative: i == 2, MaxInstructions: 500_000, Config: interp.Config{Args: args}})
					s.Close()
					if o.err != nil && o.err != interp.ErrLimit {
						t.Fatalf("query %d, run %d: %v", qi, i, o.err)
					}
					got[i], reps[i], exits[i] = c.msgs, s.Report(), o.stats.Exits[rvdyn.ExitSample]
				}
				for i := 1; i < 3; i++ {
					for n := range rpa.MaxQueues {
						if a, b := got[0][n], got[i][n]; !slices.Equal(a, b) {
							t.Errorf("query %d run %d queue %d: interp received %d messages, dynamo %d; first difference %s", qi, i, n, len(a), len(b), firstDiff(a, b))
						}
					}
					if r, w := reps[i], reps[0]; r.Records != w.Records || r.Events != w.Events || r.Insts != w.Insts {
						t.Errorf("query %d run %d: report %+v, interp %+v", qi, i, r, w)
					}
					for k, qs := range reps[i].Queues {
						if qs.Sent != qs.Received || qs.Sent != reps[0].Queues[k].Sent {
							t.Errorf("query %d run %d queue %d: sent %d, received %d; interp sent %d", qi, i, qs.Queue, qs.Sent, qs.Received, reps[0].Queues[k].Sent)
						}
					}
				}
				if reps[0].Records > 0 && rpa.NativeAvailable() && (reps[1].Native == 0 || exits[1] == 0) {
					t.Errorf("query %d: %d records, %d native, %d sample exits: the native path and its fallback should both run", qi, reps[1].Records, reps[1].Native, exits[1])
				}
				if reps[2].Native != 0 {
					t.Errorf("query %d: %d native records with ProfilerNoNative", qi, reps[2].Native)
				}
			}
		})
	}
}

func firstDiff(a, b []mq.Message) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("message %d: %x vs %x", i, a[i], b[i])
		}
	}
	return "(one is a prefix of the other)"
}

// TestEdgeQueryTransparent: the edge query of Figure 2a leaves output,
// exit status and instruction count unchanged in both modes.
func TestEdgeQueryTransparent(t *testing.T) {
	const edge = "for opBRANCH * every 256 collect pc res1 misc; send 1 stop;"
	for _, name := range corpus.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			image, err := corpus.ELF(name)
			if err != nil {
				t.Fatal(err)
			}
			args := corpus.Args(name, corpus.Small)
			ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args}})
			for _, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
				p, _ := rpa.Assemble(edge)
				s, err := rpa.Start(p, rpa.Options{Seed: 3}, 0)
				if err != nil {
					t.Fatal(err)
				}
				o := run(t, image, rvdyn.Options{Mode: mode, Profiler: s, Config: interp.Config{Args: args}})
				s.Close()
				if o.err != nil || o.code != ref.code || o.stdout != ref.stdout || o.insts != ref.insts || o.cpu != ref.cpu {
					t.Errorf("%v: exit %d (%v), %d instructions; without the query %d, %d", mode, o.code, o.err, o.insts, ref.code, ref.insts)
				}
				if r := s.Report(); r.Records == 0 || r.Queues[0].Received != r.Queues[0].Sent {
					t.Errorf("%v: %+v", mode, r)
				}
			}
		})
	}
}
