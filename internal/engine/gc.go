// The host-side collector in a run: Options.GC in, a gcassist.Collector answering the guest's heap host calls (and, in ModeRPA, the store-barrier query and its service thread) out.

package engine

import (
	"fmt"
	"time"

	"rvdyn/gcassist"
	"rvdyn/profhw/rpa"
)

// gcRun is the collector of one VM and, when the VM made it, the
// relational profiler session feeding its store barrier.
type gcRun struct {
	noEvents
	c       *gcassist.Collector
	session *rpa.Session // made by startGC (ModeRPA without Options.Profiler); closed by stop
}

// startGC installs the run's collector (Options.Collector, or one made
// from Options.GC) as the machine's host-call handler. In ModeRPA without
// a caller's session it starts one (gcassist.Collector.StartSession:
// Figure 2c's query, queue 3 to the collector) and makes it
// vm.opts.Profiler, which New then attaches in either mode.
func (vm *VM) startGC() error {
	c := vm.opts.Collector
	if c == nil {
		if vm.opts.GC.Mode == gcassist.ModeGuest {
			return nil // nothing answers: the guest collects, exactly as before
		}
		c = gcassist.New(vm.opts.GC)
	}
	g := &gcRun{c: c}
	if c.Options().Mode == gcassist.ModeRPA {
		if vm.opts.Profiler == nil {
			s, err := c.StartSession("", rpa.Options{}, 0)
			if err != nil {
				return err
			}
			g.session, vm.opts.Profiler = s, s
		} else if !c.HasBarrierQueue() {
			return fmt.Errorf("rvdyn: gc mode rpa with Options.Profiler: start the session with the collector's StartSession, so that queue 3 feeds its barrier")
		}
	}
	vm.m.SetHostCall(c)
	vm.gc = g
	vm.attach(g)
	return nil
}

// stop stops the marker, then closes the session startGC made (its
// service threads drain their queues).
func (g *gcRun) stop() error {
	err := g.c.Close()
	if g.session != nil {
		g.session.Close()
		g.session = nil
	}
	return err
}

// GCStats returns the host collector's statistics, and false when the run
// has no host collector (gcassist.ModeGuest).
func (vm *VM) GCStats() (gcassist.Stats, bool) {
	if vm.gc == nil {
		return gcassist.Stats{}, false
	}
	return vm.gc.c.Stats(), true
}

// fill puts the collector's statistics in a stats snapshot.
func (g *gcRun) fill(s *Stats) {
	st := g.c.Stats()
	s.GC = &st
}

// writeGCRows adds the collector's rows to the stats table.
func (s *Stats) writeGCRows(row func(string, any)) {
	g := s.GC
	if g == nil {
		return
	}
	if !g.Hosted {
		if g.Declined != "" {
			row("gc mode", fmt.Sprintf("%v (declined: %s)", g.Mode, g.Declined))
		} else {
			row("gc mode", "guest (its own collector)")
		}
		return
	}
	row("gc mode", g.Mode)
	row("gc collections", g.Collections)
	row("  stop-the-world", g.STWCollections)
	row("  forced finishes (stalls)", g.ForcedFinishes)
	row("  allocation failures", g.FullCollections)
	row("gc marked objects", g.MarkedObjects)
	row("gc freed objects", g.FreedObjects)
	row("gc freed bytes", g.FreedBytes)
	row("gc live bytes", g.LiveBytes)
	row("gc peak heap bytes", g.PeakHeapBytes)
	row("gc pauses", g.Pauses)
	row("  max", g.PauseMax.Round(time.Microsecond))
	row("  p99", g.PauseP99.Round(time.Microsecond))
	row("  total", g.PauseTotal.Round(time.Microsecond))
	switch g.Mode {
	case gcassist.ModeRPA:
		row("barrier messages (queue 3)", g.BarrierMessages)
		row("  queue high-water", g.QueueHighWater)
		row("  queue stalls", g.QueueStalls)
		row("  pause waiting for barrier", g.BarrierWait.Round(time.Microsecond))
	case gcassist.ModeSoft:
		row("barrier log entries", g.BarrierLogged)
		row("  log flushes", g.LogFlushes)
	}
}
