package gcassist_test

// The collector on the Scheme guest, driven by the interpreter alone (no
// root package): every mode's answer, the barrier-less mode's failure,
// declined descriptors, and, under -race, the Go side of the concurrent
// protocol (marker, barrier service thread, guest goroutine).

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/gcassist"
	"rvdyn/interp"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

type result struct {
	out   string
	code  int
	err   error
	stats gcassist.Stats
}

// runScheme runs the Scheme guest with args and stdin under a collector
// with opts; in ModeRPA it wires Figure 2c's query to the collector
// through queue 3 and a service thread, as the root package does.
func runScheme(t *testing.T, opts gcassist.Options, stdin string, args ...string) result {
	t.Helper()
	image, err := corpus.ELF("scheme")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	m, err := interp.Load(image, interp.Config{Args: append([]string{"scheme"}, args...), Stdout: &out, Stdin: strings.NewReader(stdin)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := gcassist.New(opts)
	m.SetHostCall(c)
	if opts.Mode == gcassist.ModeRPA {
		p, err := rpa.Assemble(gcassist.BarrierQuery)
		if err != nil {
			t.Fatal(err)
		}
		layouts, _ := p.QueueLayouts()
		q, err := mq.NewQueue(0)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		if err := c.UseQueue(q, layouts[gcassist.BarrierQueue]); err != nil {
			t.Fatal(err)
		}
		qs := make([]*mq.Queue, rpa.MaxQueues)
		qs[gcassist.BarrierQueue] = q
		eng, err := rpa.NewEngine(p, rpa.Options{Queues: qs})
		if err != nil {
			t.Fatal(err)
		}
		svc := mq.Serve(q, c.BarrierMessage)
		defer svc.Stop()
		eng.Attach(m)
	}
	runErr := m.Run(0)
	if runErr == nil {
		runErr = m.HostError()
	}
	if err := c.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return result{out.String(), m.ExitCode(), runErr, c.Stats()}
}

func mutateSource(t *testing.T) string {
	b, err := os.ReadFile("../testdata/gc_mutate.scm")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModes: gcbench (an allocation-heavy benchmark) gives its expected
// answer under every mode, with at least 10 host collections.
func TestModes(t *testing.T) {
	ref := runScheme(t, gcassist.Options{}, "", "gcbench", "small")
	if ref.err != nil || ref.code != 0 || !strings.HasSuffix(ref.out, " ok\n") || ref.stats.Hosted {
		t.Fatalf("guest collector: exit %d, %v, %q, hosted %v", ref.code, ref.err, ref.out, ref.stats.Hosted)
	}
	for _, m := range []gcassist.Mode{gcassist.ModeSTW, gcassist.ModeSoft, gcassist.ModeRPA} {
		for _, det := range []bool{false, true} {
			if det && (!m.Concurrent() || raceBuild) {
				continue
			}
			o := runScheme(t, gcassist.Options{Mode: m, Deterministic: det, Interval: 16 << 10, Poison: true, Verify: true}, "", "-poison", "gcbench", "small")
			if o.err != nil || o.code != 0 || o.out != ref.out {
				t.Errorf("%v deterministic %v: exit %d, %v, %q; want %q", m, det, o.code, o.err, o.out, ref.out)
			}
			if o.stats.Collections < 10 || o.stats.FreedObjects == 0 {
				t.Errorf("%v deterministic %v: %d collections, %d objects freed", m, det, o.stats.Collections, o.stats.FreedObjects)
			}
			if m == gcassist.ModeRPA && o.stats.BarrierMessages == 0 || m == gcassist.ModeSoft && o.stats.BarrierLogged == 0 {
				t.Errorf("%v: no barrier traffic: %+v", m, o.stats)
			}
		}
	}
}

// TestNoBarrierLosesObjects: the mutation pattern frees a reachable
// object when nothing reports the stores; the barriers keep it.
func TestNoBarrierLosesObjects(t *testing.T) {
	src := mutateSource(t)
	o := runScheme(t, gcassist.Options{Mode: gcassist.ModeNone, Deterministic: true, Interval: 8 << 10, Verify: true}, src, "-")
	var lost *gcassist.LostObjectError
	if !errors.As(o.err, &lost) || o.code != 134 {
		t.Fatalf("no barrier: exit %d, %v; want a LostObjectError", o.code, o.err)
	}
	for _, m := range []gcassist.Mode{gcassist.ModeSoft, gcassist.ModeRPA} {
		o := runScheme(t, gcassist.Options{Mode: m, Interval: 8 << 10, Verify: true}, src, "-")
		if o.err != nil || o.out != "2001000\n" {
			t.Errorf("%v: exit %d, %v, %q", m, o.code, o.err, o.out)
		}
	}
}

// TestStress collects at every 7th allocation (the guest's -gc-every),
// so cycles start and end at nearly every safepoint.
func TestStress(t *testing.T) {
	if raceBuild {
		t.Skip("the stop-the-world paths have no concurrency to check")
	}
	ref := runScheme(t, gcassist.Options{}, "", "deriv", "small")
	for _, m := range []gcassist.Mode{gcassist.ModeSTW, gcassist.ModeSoft} {
		o := runScheme(t, gcassist.Options{Mode: m, Poison: true, Verify: true}, "", "-gc-every", "7", "-poison", "deriv", "small")
		if o.err != nil || o.out != ref.out || o.stats.Collections < 100 {
			t.Errorf("%v: exit %d, %v, %q, %d collections", m, o.code, o.err, o.out, o.stats.Collections)
		}
	}
}

// TestDeclined: ModeGuest leaves the announcement -ENOSYS, and so does a
// collector for a descriptor it cannot read; the guest collects itself.
func TestDeclined(t *testing.T) {
	o := runScheme(t, gcassist.Options{Mode: gcassist.ModeGuest}, "", "tak", "small")
	if o.err != nil || o.stats.Hosted || o.stats.Collections != 0 {
		t.Errorf("guest mode: %v, %+v", o.err, o.stats)
	}
	// A machine whose a0 at the announcement is no descriptor.
	image, _ := corpus.ELF("scheme")
	m, err := interp.Load(image, interp.Config{Args: []string{"scheme", "tak", "small"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := gcassist.New(gcassist.Options{Mode: gcassist.ModeSTW})
	m.CPU.X[10] = 8 // the null page
	if r, handled, err := c.HostCall(m, gcassist.HCHeapAnnounce); handled || err != nil || r != 0 {
		t.Errorf("bad descriptor: %d %v %v", r, handled, err)
	}
	if s := c.Stats(); s.Hosted || !strings.Contains(s.Declined, "not in guest memory") {
		t.Errorf("bad descriptor: %+v", s)
	}
}

func TestParseMode(t *testing.T) {
	for _, n := range []string{"guest", "stw", "soft", "rpa", "none"} {
		m, err := gcassist.ParseMode(n)
		if err != nil || m.String() != n {
			t.Errorf("%s: %v %v", n, m, err)
		}
	}
	if _, err := gcassist.ParseMode("fast"); err == nil {
		t.Error("ParseMode accepted fast")
	}
}
