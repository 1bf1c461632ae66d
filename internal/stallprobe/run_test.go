// Queue-stall probe: a guest, the edge query's sampling period and a service-thread backoff in; one dynamo-mode run's queue and consumer counters (mq.Stats, mq.ConsumerStats) out, as a line of JSON.

package stallprobe

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// TestProbe runs the probe the package doc describes.
func TestProbe(t *testing.T) {
	guest := os.Getenv("STALLPROBE_GUEST")
	if guest == "" {
		t.Skip("STALLPROBE_GUEST not set")
	}
	rate := os.Getenv("STALLPROBE_PERIOD")
	if rate == "" {
		rate = "32"
	}
	native := os.Getenv("STALLPROBE_NONATIVE") == ""
	img, err := corpus.ELF(guest)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rpa.Assemble(fmt.Sprintf("for opBRANCH * every %s collect pc misc; send 1 stop;", rate))
	if err != nil {
		t.Fatal(err)
	}
	var o rpa.Options
	fmt.Sscan(os.Getenv("STALLPROBE_SPINS"), &o.Backoff.Spins)
	fmt.Sscan(os.Getenv("STALLPROBE_YIELDS"), &o.Backoff.Yields)
	if d, err := time.ParseDuration(os.Getenv("STALLPROBE_SPINFOR")); err == nil {
		o.Backoff.SpinFor = d
	}
	s, err := rpa.Start(p, o, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := rvdyn.Options{Config: interp.Config{Args: corpus.Args(guest, corpus.Small)}, Profiler: s, ProfilerNoNative: !native}
	vm, err := rvdyn.New(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Run(); err != nil {
		t.Fatal(err)
	}
	st := vm.Stats()
	vm.Close()
	s.Close()
	r := s.Report()
	b, _ := json.MarshalIndent(r.Queues, "", " ")
	fmt.Println(guest, rate, "native", native, "wall", st.Wall, strings.ReplaceAll(string(b), "\n", " "))
}
