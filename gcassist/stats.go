// Collector statistics: counters kept during the run in, a Stats snapshot (counts, bytes, pause times) out.

package gcassist

import (
	"slices"
	"time"
)

// Stats are a collector's counters. Bytes include object headers; times
// are wall-clock durations on the guest's goroutine.
type Stats struct {
	Mode     Mode   `json:"mode"`
	Hosted   bool   `json:"hosted"`             // the guest's heap announcement was accepted
	Declined string `json:"declined,omitempty"` // why it was not, if it was not

	Collections     uint64 `json:"collections"`      // cycles completed, all kinds
	STWCollections  uint64 `json:"stw_collections"`  // of them, collected whole in one pause
	ForcedFinishes  uint64 `json:"forced_finishes"`  // triggers that found marking still on: the guest waited for the collector (a stall)
	FullCollections uint64 `json:"full_collections"` // allocation failures answered
	SafepointCalls  uint64 `json:"safepoint_calls"`  // guest answers to the request word

	MarkedObjects uint64 `json:"marked_objects"` // objects shaded, all cycles
	LiveBytes     uint64 `json:"live_bytes"`     // live after the last sweep
	FreedObjects  uint64 `json:"freed_objects"`  // objects the sweeps freed
	FreedBytes    uint64 `json:"freed_bytes"`
	PeakHeapBytes uint64 `json:"peak_heap_bytes"` // highest top - heap_start seen at a cycle's start

	Pauses     int           `json:"pauses"` // host calls that stopped the guest for the collector (log flushes not included)
	PauseTotal time.Duration `json:"pause_total_ns"`
	PauseMax   time.Duration `json:"pause_max_ns"`
	PauseP99   time.Duration `json:"pause_p99_ns"`

	BarrierMessages uint64        `json:"barrier_messages"` // queue 3 messages handled (ModeRPA)
	BarrierLogged   uint64        `json:"barrier_logged"`   // software barrier log entries (ModeSoft)
	LogFlushes      uint64        `json:"log_flushes"`      // full logs handed over (ModeSoft)
	BarrierWait     time.Duration `json:"barrier_wait_ns"`  // pause time spent waiting for the barrier goroutine
	QueueHighWater  uint64        `json:"queue_high_water"` // queue 3's most messages at once
	QueueStalls     uint64        `json:"queue_stalls"`     // sends to queue 3 that found it full
}

// Stats returns a snapshot of the counters. Call it from the guest's
// goroutine, or after the run.
func (c *Collector) Stats() Stats {
	s := c.stats
	s.MarkedObjects = c.markedObjects.Load()
	s.BarrierMessages = c.handled.Load()
	if c.queue != nil {
		q := c.queue.Stats()
		s.QueueHighWater, s.QueueStalls = q.MaxOccupancy, q.Stalls
	}
	s.Pauses = len(c.pauses)
	if len(c.pauses) > 0 {
		p := slices.Clone(c.pauses)
		slices.Sort(p)
		for _, d := range p {
			s.PauseTotal += d
		}
		s.PauseMax = p[len(p)-1]
		s.PauseP99 = p[(len(p)*99)/100] // nearest rank, always < len(p)
	}
	return s
}
