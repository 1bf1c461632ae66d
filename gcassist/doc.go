// Package gcassist implements a host-side collector for a guest heap that
// follows the Scheme guest's heap contract (docs/heap-contract.md): a
// non-moving mark-sweep collector that marks concurrently with the guest on
// a service goroutine, with an incremental-update store barrier (Wilson's
// term, used by the relational profiling paper, sec. 5) fed either by the
// relational profiler's queue 3 (Figure 2c's query) or by the guest's own
// software barrier log.
//
// Data flows one way:
//
//	guest host calls (interp.HostCallHandler) --> Collector:
//	  ANNOUNCE   descriptor checked, heap taken over (answer 0)
//	  TRIGGER    start a cycle: roots snapshot at the safepoint, marker
//	             goroutine started (or, stop-the-world, a whole collection)
//	  SAFEPOINT  the guest answered the marker's request: final pause
//	             (drain the barrier, rescan roots, mark to the end), sweep,
//	             free lists written back
//	  FULL       allocation failed: finish, then collect stop-the-world
//	  LOG        the software barrier's log: shade every entry
//	queue 3 messages (rpa, Figure 2c) --BarrierMessage--> shade op1
//
// Modes (Mode): the guest's own collector (the host declines the heap),
// stop-the-world on the host, concurrent with the software barrier,
// concurrent with the relational profiler's barrier, and concurrent with
// no barrier at all, which is wrong on purpose: the tests show that it
// frees reachable objects. Options.Deterministic replaces the marker
// goroutine by a fixed number of marking steps at each guest safepoint, so
// that an interleaving of collector and guest is reproducible.
//
// Concurrency. The guest's goroutine stores into guest memory with plain
// 64-bit moves (interpreter and native code alike); the marker and the
// barrier goroutines read and mark with sync/atomic (interp.Memory
// LoadWord, CASWord). On x86-64 an aligned 8-byte access is single-copy
// atomic and TSO keeps each core's stores in program order, so a marker
// reads a slot's old or its new value, never a mix; a value it misses
// (the old one was read) was stored through REF_STORE and reaches the
// barrier. The guest writes headers only of blocks no marker can reach
// (free blocks and objects being allocated), so header CASes never race
// with a guest store. Everything that needs the heap to hold still
// (roots, sweep, free lists, top) happens inside a host call, on the
// guest's goroutine, after the marker goroutine has exited and the
// barrier goroutine has handled every message sent so far (a
// happens-before edge through the handled counter's atomic). Guest memory
// lies outside the Go heap, where the race detector does not look; the
// Go-side state (grey set, counters) is what -race checks.
//
// Differences from the paper: the paper's collector (its reference [13])
// runs on a service processor of a simulated chip; here it is a goroutine
// on a second core of a real machine, the store-barrier records come from
// a DBT's query engine rather than hardware, and the final pause rescans
// the roots (the guest's shadow stack is not barriered).
//
// Package gcassist imports interp (guest memory, host calls) and
// profhw/mq (the barrier's messages); it must not import the root package,
// fragment, codecache or net.
package gcassist
