// The host-side collector in a run: Options.GC in, a gcassist.Collector answering the guest's heap host calls (and, in ModeRPA, the store-barrier query and its service thread) out.

package rvdyn

import (
	"fmt"
	"time"

	"rvdyn/gcassist"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// gcRun is the collector of one VM and, in ModeRPA, the relational
// profiler's store barrier feeding it.
type gcRun struct {
	c     *gcassist.Collector
	queue *mq.Queue
	svc   *mq.Service
	eng   *rpa.Engine
}

// startGC installs the collector of vm.opts.GC as the machine's host-call
// handler. In ModeRPA it also assembles gcassist.BarrierQuery (Figure 2c),
// maps queue 3, starts the store-barrier service thread and attaches the
// query engine to the machine.
func (vm *VM) startGC() error {
	o := vm.opts.GC
	if o.Mode == gcassist.ModeGuest && !o.Verify {
		return nil // nothing answers: the guest collects, exactly as before
	}
	g := &gcRun{c: gcassist.New(o)}
	if o.Mode == gcassist.ModeRPA {
		if vm.opts.Mode == ModeDynamo {
			return fmt.Errorf("gc mode rpa needs --mode=interp until the query engine runs in dynamo mode")
		}
		p, err := rpa.Assemble(gcassist.BarrierQuery)
		if err != nil {
			return err
		}
		layouts, _ := p.QueueLayouts()
		if g.queue, err = mq.NewQueue(0); err != nil {
			return err
		}
		if err := g.c.UseQueue(g.queue, layouts[gcassist.BarrierQueue]); err != nil {
			g.queue.Close()
			return err
		}
		qs := make([]*mq.Queue, rpa.MaxQueues)
		qs[gcassist.BarrierQueue] = g.queue
		if g.eng, err = rpa.NewEngine(p, rpa.Options{Queues: qs}); err != nil {
			g.queue.Close()
			return err
		}
		g.svc = mq.Serve(g.queue, g.c.BarrierMessage)
		g.eng.Attach(vm.m)
	}
	vm.m.SetHostCall(g.c)
	vm.gc = g
	return nil
}

// stopGC stops the marker and the barrier's service thread (after it has
// drained queue 3) and unmaps the queue.
func (vm *VM) stopGC() error {
	g := vm.gc
	if g == nil {
		return nil
	}
	err := g.c.Close()
	if g.svc != nil {
		g.svc.Stop()
		g.svc = nil
	}
	if g.queue != nil {
		g.queue.Close()
		g.queue = nil
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
