// Run statistics: counters gathered by the dispatcher -> a table or JSON for the user.

package rvdyn

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"rvdyn/net"
)

// Stats describe one run. Instruction counts are exact: GuestInstructions
// is the same in every mode for the same program and input.
type Stats struct {
	Mode     string `json:"mode"`
	Delay    int    `json:"delay"`
	ExitCode int    `json:"exit_code"`

	GuestInstructions       uint64 `json:"guest_instructions"`       // retired guest instructions
	CacheInstructions       uint64 `json:"cache_instructions"`       // of which retired in native code
	InterpretedInstructions uint64 `json:"interpreted_instructions"` // of which interpreted (including recording)

	Traces            uint64                    `json:"traces"`             // traces recorded and compiled
	TraceInstructions uint64                    `json:"trace_instructions"` // guest instructions in them
	EndReasons        [net.NumEndReasons]uint64 `json:"-"`
	EndReasonCounts   map[string]uint64         `json:"trace_end_reasons"`
	TraceHeads        uint64                    `json:"trace_heads"`         // distinct candidates counted (NET counter space)
	Fragments         uint64                    `json:"fragments"`           // fragments inserted into the code cache
	TooLarge          uint64                    `json:"fragments_too_large"` // traces whose code did not fit in the empty cache (left interpreted)
	Quieted           uint64                    `json:"heads_interpreted"`   // trace heads given up: the trace ends at a system instruction too soon to pay
	CodeBytes         uint64                    `json:"code_bytes"`          // bytes of native code generated
	CacheExits        uint64                    `json:"cache_exits"`         // returns from native code to the dispatcher
	ExitsBranch       uint64                    `json:"exits_branch"`        // ... through an unlinked branch exit
	ExitsBudget       uint64                    `json:"exits_budget"`        // ... because the budget (poll point) tripped
	ExitsInterp       uint64                    `json:"exits_interp"`        // ... to interpret one instruction
	ExitsIndirect     uint64                    `json:"exits_indirect"`      // ... after an indirect jump missed the lookup table
	Links             uint64                    `json:"links"`               // exit stubs linked to fragments
	PhaseFlushes      uint64                    `json:"phase_flushes"`       // ... because the prediction rate jumped (a new phase)
	CapacityFlushes   uint64                    `json:"capacity_flushes"`    // ... because the cache was full
	FenceIFlushes     uint64                    `json:"fencei_flushes"`      // ... because of a fence.i after the guest rewrote compiled code
	BailedOutAt       uint64                    `json:"bailed_out_at"`       // guest instructions retired when rvdyn gave up optimizing (0: never)
	Flushes           uint64                    `json:"flushes"`             // code cache flushes
	Syscalls          uint64                    `json:"syscalls"`            // system calls made
	UnknownSyscalls   map[string]uint64         `json:"unknown_syscalls"`    // -ENOSYS answers, by number

	Wall           time.Duration `json:"-"`
	RecordTime     time.Duration `json:"-"`
	CompileTime    time.Duration `json:"-"`
	WallSeconds    float64       `json:"wall_seconds"`
	RecordSeconds  float64       `json:"record_seconds"`
	CompileSeconds float64       `json:"compile_seconds"`
}

// Stats returns the statistics of the run so far.
func (vm *VM) Stats() Stats {
	s := vm.stats
	s.Mode = vm.opts.Mode.String()
	s.Delay = vm.opts.Delay
	s.GuestInstructions = vm.m.Retired()
	s.InterpretedInstructions = s.GuestInstructions - s.CacheInstructions
	sc := vm.m.Syscalls()
	s.Syscalls = sc.Calls
	s.UnknownSyscalls = map[string]uint64{}
	for n, c := range sc.Unknown {
		s.UnknownSyscalls[fmt.Sprint(n)] = c
	}
	s.EndReasonCounts = map[string]uint64{}
	for r, c := range s.EndReasons {
		if c > 0 {
			s.EndReasonCounts[net.EndReason(r).String()] = c
		}
	}
	if vm.cache != nil {
		cs := vm.cache.Stats()
		s.Fragments, s.CodeBytes, s.Links, s.Flushes, s.CacheExits = cs.Fragments, cs.CodeBytes, cs.Links, cs.Flushes, cs.ExitsTaken
		ss := vm.sel.Stats()
		s.TraceHeads, s.Quieted = ss.Heads, ss.Quieted
	}
	s.WallSeconds = s.Wall.Seconds()
	s.RecordSeconds = s.RecordTime.Seconds()
	s.CompileSeconds = s.CompileTime.Seconds()
	return s
}

// CachePercent returns the share of guest instructions retired in native
// code, in percent.
func (s *Stats) CachePercent() float64 {
	if s.GuestInstructions == 0 {
		return 0
	}
	return 100 * float64(s.CacheInstructions) / float64(s.GuestInstructions)
}

// WriteTable writes the statistics as a readable two-column table.
func (s *Stats) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\t\n", k, v) }
	row("mode", s.Mode)
	if s.Mode == "dynamo" {
		row("prediction delay", s.Delay)
	}
	row("exit code", s.ExitCode)
	row("guest instructions", s.GuestInstructions)
	if s.Mode == "dynamo" {
		row("  from code cache", fmt.Sprintf("%d (%.2f%%)", s.CacheInstructions, s.CachePercent()))
		row("  interpreted", s.InterpretedInstructions)
		row("trace heads counted", s.TraceHeads)
		row("traces recorded", s.Traces)
		keys := make([]string, 0, len(s.EndReasonCounts))
		for k := range s.EndReasonCounts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			row("  ended by "+k, s.EndReasonCounts[k])
		}
		row("fragments", s.Fragments)
		if s.TooLarge > 0 {
			row("  too large for the cache", s.TooLarge)
		}
		if s.Quieted > 0 {
			row("heads left to the interpreter", s.Quieted)
		}
		row("code bytes", s.CodeBytes)
		row("links", s.Links)
		row("cache exits", s.CacheExits)
		row("  unlinked branch", s.ExitsBranch)
		row("  budget (poll)", s.ExitsBudget)
		row("  to interpreter", s.ExitsInterp)
		row("  indirect miss", s.ExitsIndirect)
		row("flushes", s.Flushes)
		row("  phase change", s.PhaseFlushes)
		row("  cache full", s.CapacityFlushes)
		row("  fence.i", s.FenceIFlushes)
		if s.BailedOutAt > 0 {
			row("bailed out at instruction", s.BailedOutAt)
		}
		row("record time", s.RecordTime.Round(time.Microsecond))
		row("compile time", s.CompileTime.Round(time.Microsecond))
	}
	row("system calls", s.Syscalls)
	for n, c := range s.UnknownSyscalls {
		row("  unknown syscall "+n, c)
	}
	row("wall time", s.Wall.Round(time.Microsecond))
	if s.Wall > 0 {
		row("guest MIPS", fmt.Sprintf("%.1f", float64(s.GuestInstructions)/s.Wall.Seconds()/1e6))
	}
	return tw.Flush()
}
