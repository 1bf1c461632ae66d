// Hardware cost model of the relational profiler (sec. 4, 6.1-6.3): the positions of profiled instructions in a real instruction stream and the paper's resource parameters in; profile network and buffer occupancy, dispatch stalls and cycles per sample out. A model, not a measurement.

package rpa

import (
	"container/heap"
	"sort"
)

// HWConfig is the profiling hardware and processor the cost model
// (HWModel) simulates. The resource parameters are the paper's (sec. 4,
// 6.1, 6.2); the processor is reduced to two numbers, IPC and Flight,
// which are our assumptions (the paper simulates an 8-wide out-of-order
// core, Table 5, and reports an IPC "a little above two", sec. 6.2).
type HWConfig struct {
	// Networks is the number of profile networks: one is held by each
	// profiled instruction from dispatch to retirement (sec. 4). The
	// paper's unrestricted runs have 32; sec. 6.2 varies 1 to 4.
	Networks int
	// Buffers is the number of 32-byte profile buffers: one is held by
	// each profiled instruction from dispatch until its query completes.
	// Unrestricted: 32; sec. 6.2: 8.
	Buffers int
	// QuerySlots is how many queries the query engine runs at once (4:
	// the barrel-and-slot pipeline), and QueryStages the cycles between
	// two instructions of one query (4: one per query per round).
	QuerySlots, QueryStages int
	// IPC is the dispatch rate, instructions per cycle, when nothing
	// stalls; Flight the cycles from dispatch to retirement of every
	// instruction. Our assumptions.
	IPC    float64
	Flight float64
	// Cheap models sec. 6.3's cheap profiles: records that hold only
	// retirement-time information allocate a buffer but no network (for
	// the edge and store-barrier queries, every record: pc, branch
	// outcome, store operands and address).
	Cheap bool
}

// PaperHW returns the configuration of the paper's unrestricted runs
// (Figure 7: 32 networks, 32 buffers) with our processor assumptions
// (IPC 2, Flight 32 cycles: a 128-entry window half full at IPC 2 holds
// an instruction about that long).
func PaperHW() HWConfig {
	return HWConfig{Networks: 32, Buffers: 32, QuerySlots: 4, QueryStages: 4, IPC: 2, Flight: 32}
}

// An HWEvent is one profiled instruction: its position in the retired
// instruction stream (0-based) and the query instructions its query ran.
type HWEvent struct {
	Seq   uint64
	Insts int
}

// HWResult is what the model computes for one event stream.
type HWResult struct {
	Config       HWConfig
	Instructions uint64  // length of the instruction stream
	Samples      int     // profiled instructions
	Cycles       float64 // total cycles, stalls included
	StallCycles  float64 // cycles dispatch waited for a network or buffer
	Stalls       int     // profiled instructions that waited
	// BuffersAtLeast[x] and NetworksAtLeast[x] are the percentage of
	// cycles in which at least x buffers (networks) were in use
	// (Figure 7's histograms); index 0 is 100.
	BuffersAtLeast, NetworksAtLeast []float64
}

// StallPercent is the percentage of cycles dispatch was stalled (Figure
// 8a's quantity).
func (r HWResult) StallPercent() float64 { return 100 * r.StallCycles / r.Cycles }

// SlowdownPercent is the stall cycles over the cycles without stalls:
// the slow-down if no stall were hidden. The model has no out-of-order
// window; the paper found about half of its dispatch stalls hidden by
// it (sec. 6.2), so this is an upper bound on Figure 8b's quantity.
func (r HWResult) SlowdownPercent() float64 {
	return 100 * r.StallCycles / (r.Cycles - r.StallCycles)
}

// InstructionsPerSample and CyclesPerSample are Table 6's quantities.
func (r HWResult) InstructionsPerSample() float64 {
	return float64(r.Instructions) / float64(r.Samples)
}

// CyclesPerSample is the model's cycles per profiled instruction.
func (r HWResult) CyclesPerSample() float64 { return r.Cycles / float64(r.Samples) }

// times is a min-heap of release times.
type times []float64

func (h times) Len() int           { return len(h) }
func (h times) Less(i, j int) bool { return h[i] < h[j] }
func (h times) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *times) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *times) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// release pops the times at or before t.
func (h *times) release(t float64) {
	for h.Len() > 0 && (*h)[0] <= t {
		heap.Pop(h)
	}
}

// An interval is a resource held over [from, to) cycles.
type interval struct{ from, to float64 }

// HWModel runs the cost model over events (sorted by Seq) in a stream of
// n instructions: instruction i dispatches at i/IPC plus the stalls so
// far; a profiled instruction takes a network (unless Cheap) and a buffer
// at dispatch, stalling dispatch (and every later instruction) until both
// are free; it frees the network at retirement (dispatch + Flight), when
// its query waits for one of QuerySlots engine slots and runs for
// QueryStages cycles per query instruction; the buffer is freed when the
// query completes.
func HWModel(cfg HWConfig, events []HWEvent, n uint64) HWResult {
	var nets, bufs, slots times
	for range cfg.QuerySlots {
		slots = append(slots, 0)
	}
	var netIv, bufIv []interval
	res := HWResult{Config: cfg, Instructions: n, Samples: len(events)}
	stall := 0.0
	for _, ev := range events {
		td := float64(ev.Seq)/cfg.IPC + stall
		nets.release(td)
		bufs.release(td)
		t := td
		if !cfg.Cheap && nets.Len() >= cfg.Networks {
			t = max(t, nets[0])
		}
		if bufs.Len() >= cfg.Buffers {
			t = max(t, bufs[0])
		}
		if t > td {
			res.Stalls++
			stall += t - td
			td = t
			nets.release(td)
			bufs.release(td)
		}
		retire := td + cfg.Flight
		if !cfg.Cheap {
			heap.Push(&nets, retire)
			netIv = append(netIv, interval{td, retire})
		}
		start := max(retire, slots[0])
		end := start + float64(cfg.QueryStages*max(ev.Insts, 1))
		slots[0] = end
		heap.Fix(&slots, 0)
		heap.Push(&bufs, end)
		bufIv = append(bufIv, interval{td, end})
	}
	res.StallCycles = stall
	res.Cycles = float64(n)/cfg.IPC + stall
	res.BuffersAtLeast = atLeast(bufIv, res.Cycles)
	res.NetworksAtLeast = atLeast(netIv, res.Cycles)
	return res
}

// atLeast returns, for x = 0.., the percentage of [0, total) cycles in
// which at least x of the intervals overlap.
func atLeast(ivs []interval, total float64) []float64 {
	type edge struct {
		t float64
		d int
	}
	es := make([]edge, 0, 2*len(ivs))
	for _, iv := range ivs {
		es = append(es, edge{iv.from, 1}, edge{min(iv.to, total), -1})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].t < es[j].t || es[i].t == es[j].t && es[i].d < es[j].d })
	var at []float64 // at[k]: cycles with exactly k in use
	level, last := 0, 0.0
	for _, e := range es {
		for len(at) <= level {
			at = append(at, 0)
		}
		at[level] += e.t - last
		last, level = e.t, level+e.d
	}
	for len(at) <= level {
		at = append(at, 0)
	}
	at[level] += total - last
	out := make([]float64, len(at))
	sum := 0.0
	for k := len(at) - 1; k >= 0; k-- {
		sum += at[k]
		out[k] = 100 * sum / total
	}
	return out
}
