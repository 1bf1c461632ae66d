package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/internal/selection"
	"rvdyn/interp"
	"rvdyn/net"
)

// selectRun runs guest name at its small size in dynamo mode with o.
func selectRun(t *testing.T, name string, o Options) Stats {
	t.Helper()
	image, err := corpus.ELF(name)
	if err != nil {
		t.Fatal(err)
	}
	o.Args = corpus.Args(name, corpus.Small)
	vm, err := New(image, o)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if _, err := vm.Run(); err != nil {
		t.Fatal(err)
	}
	return vm.Stats()
}

// TestSelectSchemes checks what each scheme reports: its name, a counter
// space, traces compiled; the compressor needs fewer counters than NET
// has heads; the rpa scheme's selection leaves the main thread through
// the relational profiler's queue.
func TestSelectSchemes(t *testing.T) {
	stats := map[selection.Kind]Stats{}
	for s := range selection.NumKinds {
		st := selectRun(t, "sieve", Options{Select: selection.Options{Scheme: s, RPASync: true}})
		if st.Select != s || st.SelectCounters == 0 || st.Traces == 0 {
			t.Errorf("%v: select %v, counters %d, traces %d", s, st.Select, st.SelectCounters, st.Traces)
		}
		stats[s] = st
	}
	if c, n := stats[selection.Compressor].SelectCounters, stats[selection.NET].SelectCounters; c >= n {
		t.Errorf("compressor counter table %d entries, NET %d heads: want fewer", c, n)
	}
	if p := stats[selection.RPA].Profiler; p == nil || p.Records == 0 || len(p.Queues) != 1 || p.Queues[0].Received != p.Queues[0].Sent {
		t.Errorf("rpa: profiler report %+v", p)
	}
	if st := selectRun(t, "sieve", Options{NET: net.Options{Predict: net.PredictPath}}); st.Select != selection.Path {
		t.Errorf("--predict=path runs scheme %v", st.Select)
	}
	image, _ := corpus.ELF("sieve")
	for _, o := range []selection.Options{{Scheme: selection.Compressor, Compressor: "H[Q1]2"}, {Scheme: selection.RPA, RPAPeriod: 1 << 20}} {
		if vm, err := New(image, Options{Select: o}); err == nil {
			vm.Close()
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestRPASyncDeterministic: with RPASync the traces the service thread's
// selection compiles are the same from run to run.
func TestRPASyncDeterministic(t *testing.T) {
	o := Options{Select: selection.Options{Scheme: selection.RPA, RPASync: true}}
	a, b := selectRun(t, "qsort", o), selectRun(t, "qsort", o)
	if a.Traces != b.Traces || a.CacheInstructions != b.CacheInstructions || a.CacheExits != b.CacheExits {
		t.Errorf("two synchronous rpa runs differ: traces %d/%d, cache instructions %d/%d, exits %d/%d",
			a.Traces, b.Traces, a.CacheInstructions, b.CacheInstructions, a.CacheExits, b.CacheExits)
	}
}

// TestTraceMetrics scores a run's compiled traces and checks the result
// against the offline predictor's one-trace-per-head NET on the same
// guest, which differs only by heads at exit targets.
func TestTraceMetrics(t *testing.T) {
	st := selectRun(t, "sieve", Options{Select: selection.Options{Metrics: true}})
	m := st.TraceMetrics
	if m == nil || m.Error != "" || !m.Match {
		t.Fatalf("trace metrics %+v", m)
	}
	if m.Compiled != int(st.Traces) || m.ExactHeads == 0 || m.ExactHeads > m.Compiled || m.Predicted > m.Compiled {
		t.Errorf("compiled %d (traces %d), exact heads %d, predicted %d", m.Compiled, st.Traces, m.ExactHeads, m.Predicted)
	}
	if m.HitRate <= 50 || m.HitRate > 100 || m.ProfiledFlow < 0 || m.ProfiledFlow >= 50 {
		t.Errorf("hit rate %.2f%%, profiled flow %.2f%%: not a working selection", m.HitRate, m.ProfiledFlow)
	}
	b, err := json.Marshal(st)
	if err != nil || !strings.Contains(string(b), `"trace_metrics":{"delay":50`) {
		t.Errorf("JSON %s: %v", b, err)
	}
	var sb strings.Builder
	if err := st.WriteTable(&sb); err != nil || !strings.Contains(sb.String(), "missed-opportunity cost") {
		t.Errorf("table:\n%s\n%v", sb.String(), err)
	}
	image, _ := corpus.ELF("sieve")
	run, err := net.RunGuest(net.Guest{Image: image, Config: interp.Config{Args: corpus.Args("sieve", corpus.Small)}}, []int{50}, net.DefaultHot)
	if err != nil {
		t.Fatal(err)
	}
	off := run.Analysis.Find(net.SchemeNETOnce, 50)
	if off.Predicted > m.Predicted {
		t.Errorf("offline NET (once per head) predicted %d paths, the dispatcher %d: exit-target heads only add", off.Predicted, m.Predicted)
	}
}

// TestRPAFreeRunning runs the rpa scheme without RPASync, the service
// thread racing the dispatcher (run it with -race): the traces may differ
// from run to run, the instruction count may not.
func TestRPAFreeRunning(t *testing.T) {
	ref := selectRun(t, "qsort", Options{Mode: ModeInterp})
	for range 2 {
		st := selectRun(t, "qsort", Options{Select: selection.Options{Scheme: selection.RPA}})
		if st.GuestInstructions != ref.GuestInstructions || st.ExitCode != ref.ExitCode || st.Traces == 0 {
			t.Errorf("free-running rpa: %d instructions (interp %d), exit %d, %d traces", st.GuestInstructions, ref.GuestInstructions, st.ExitCode, st.Traces)
		}
	}
}
