// Compiler options and statistics: where fragments are compiled (sync or on a service thread), the queue bound -> the counters a run reports.

package engine

import (
	"fmt"
	"time"
)

// A CompileMode says where fragments are compiled. The zero value is
// CompileSync.
type CompileMode uint8

const (
	// CompileSync compiles each trace on the main thread right after it
	// is recorded and inserts the fragment before the guest goes on: the
	// run is deterministic (the same fragments at the same instruction
	// counts every time), which tests rely on.
	CompileSync CompileMode = iota
	// CompileAsync hands each recorded trace to a service thread (a
	// goroutine) and lets the guest run on, in the interpreter or in other
	// fragments, while it is compiled; the dispatcher installs the
	// fragment at its next safe point. Output, exit status and retired
	// instruction counts are the same as CompileSync's; which fragments
	// exist when, and so the split between cached and interpreted
	// instructions, depends on timing.
	CompileAsync
)

// String returns the mode's command-line name.
func (c CompileMode) String() string {
	switch c {
	case CompileSync:
		return "sync"
	case CompileAsync:
		return "async"
	}
	return fmt.Sprintf("CompileMode(%d)", uint8(c))
}

// MarshalText makes a CompileMode appear by name in JSON.
func (c CompileMode) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a CompileMode by name (see ParseCompileMode).
func (c *CompileMode) UnmarshalText(b []byte) error {
	v, err := ParseCompileMode(string(b))
	if err == nil {
		*c = v
	}
	return err
}

// ParseCompileMode parses "sync" or "async".
func ParseCompileMode(s string) (CompileMode, error) {
	switch s {
	case "sync":
		return CompileSync, nil
	case "async":
		return CompileAsync, nil
	}
	return 0, fmt.Errorf("unknown compile mode %q (want sync or async)", s)
}

// DefaultCompileQueue is the default bound on traces queued for, or being
// compiled on, the service thread.
const DefaultCompileQueue = 8

// CompilerOptions select where fragments are compiled. The zero value
// compiles on the main thread (CompileSync).
type CompilerOptions struct {
	// Mode is CompileSync (default) or CompileAsync.
	Mode CompileMode
	// Queue bounds, under CompileAsync, the traces handed to the service
	// thread and not yet installed (0: DefaultCompileQueue). A trace
	// recorded while the queue is full is compiled on the main thread at
	// once, as under CompileSync, and counted as a queue-full event: the
	// recording is not wasted, and a compiler that falls behind makes the
	// run degrade to synchronous compilation rather than to
	// interpretation.
	Queue int
}

func (o CompilerOptions) queue() int {
	if o.Queue <= 0 {
		return DefaultCompileQueue
	}
	return o.Queue
}

// CompilerStats describe the service-thread compiler of a run (all zero
// under CompileSync but Mode). Every queued trace ends up in exactly one
// of Installed, Stale, Duplicate and Unfinished, or the run stops with
// its compile error.
type CompilerStats struct {
	Mode       CompileMode
	Queued     uint64 // traces handed to the service thread
	Installed  uint64 // of which installed into the code cache at a safe point
	Stale      uint64 // of which discarded: a flush came between recording and installation
	Duplicate  uint64 // of which discarded: the head had a fragment by then
	Unfinished uint64 // of which discarded: the run ended first
	QueueFull  uint64 // traces compiled on the main thread because the queue was full
	// ServiceTime is the time the service thread spent compiling,
	// WaitTime the time the main thread spent waiting for it (only when
	// the dispatcher stops, for the compile under way).
	ServiceTime, WaitTime time.Duration
}

// MarshalJSON writes the statistics as one JSON object with snake_case
// keys and durations in seconds.
func (c CompilerStats) MarshalJSON() ([]byte, error) {
	var o jsonObject
	o.add("mode", c.Mode)
	o.add("queued", c.Queued)
	o.add("installed", c.Installed)
	o.add("stale", c.Stale)
	o.add("duplicate", c.Duplicate)
	o.add("unfinished", c.Unfinished)
	o.add("queue_full", c.QueueFull)
	o.add("service_seconds", c.ServiceTime.Seconds())
	o.add("wait_seconds", c.WaitTime.Seconds())
	return o.bytes()
}
