// Package mq implements the message queues and service threads of the
// relational profiling architecture (Heil and Smith, "Relational
// Profiling", MICRO 2000,
// sec. 3.4.2): the query engine (the producer) writes 7-word profile records
// into fixed-size slots of a queue in shared memory, and a service thread
// (a goroutine, the consumer) polls the slot's ready word, copies the
// record, clears the ready word and publishes how many messages it has read
// in the buffer-read-status word, which the producer reads periodically to
// learn whether space is free.
//
// Layering: mq imports nothing from rvdyn. The query engine (profhw/rpa)
// produces into it from Go (interpreter mode) and from x86-64 code emitted
// into fragments (native producer); the consumers (edge profiling, the
// concurrent collector's store barriers, sec. 5) read from it. The queue
// memory is mapped outside the Go heap, so native code writes it through a
// raw address (Base) and holds no Go pointer.
//
// # Layout (a contract with emitted code; pinned by TestLayout)
//
// One queue is one anonymous mapping:
//
//	offset                          written by   word
//	0   OffReadStatus               consumer     buffer read status: messages read so far
//	8   OffMaxOccupancy             consumer     high-water mark of messages in the queue
//	64  OffWritten                  producer     messages written so far (the sequence counter)
//	72  OffCachedRead               producer     the producer's last copy of the read status
//	80  OffMask                     NewQueue     slots-1 (read-only afterwards)
//	88  OffStalls                   producer     Sends that found the queue full
//	96  OffStallNs                  producer     nanoseconds spent stalled
//	128 OffSlots                    both         slots, SlotBytes (64) each, one cache line:
//	       words 0..6 the record (Message), word 7 (ReadyOffset 56) the ready word
//
// Consumer and producer words sit on different cache lines, and each slot is
// one cache line, so the two sides share a line only when they hand a slot
// over.
//
// # Protocol
//
// Messages are numbered from 0 in the order they are sent; message n goes to
// slot n & mask. Where the paper marks a full slot with a nonzero ready
// word, we store the lap-qualified sequence number n+1 (never 0): the
// consumer, expecting message r, takes slot r & mask only when its ready
// word equals r+1. A slot left over from an earlier lap, or a store that
// lands in the wrong slot, never equals the expected value, so it can be
// neither mistaken for a new message nor taken twice (no ABA).
//
// Producer, for message n (single producer: the guest thread):
//
//  1. If n - CachedRead == slots (full in the cached view), reload
//     CachedRead from ReadStatus (the paper's "examined periodically": the
//     shared word is read once per lap, not once per message). If still
//     full, stall: wait until ReadStatus moves, counting the stall.
//  2. Write record words 0..6 of slot n & mask.
//  3. Write the ready word: n+1. This store comes last.
//  4. Write Written = n+1.
//
// Consumer, expecting message r (single consumer: one service thread):
//
//  1. Load the ready word of slot r & mask; if it is not r+1, nothing is
//     there yet.
//  2. Copy record words 0..6.
//     Then load Written to update MaxOccupancy (statistics only; nothing
//     depends on Written for correctness).
//  3. Clear the ready word (store 0), as the paper does; with sequence
//     numbers in the ready word this is not needed for correctness, but it
//     keeps an empty slot recognisable in a dump.
//  4. Store ReadStatus = r+1, releasing the slot to the producer.
//
// Go memory model. The ready word, the read status and every header counter
// are accessed only with sync/atomic; the record words are plain loads and
// stores. The producer's record stores are sequenced before its atomic store
// of the ready word; the consumer's atomic load that observes n+1
// synchronizes with that store, so the record stores happen before the
// consumer's record loads. Likewise the consumer's record loads happen
// before its atomic store of ReadStatus, which synchronizes with the
// producer's atomic load that observes it, which is sequenced before the
// producer overwrites the slot. Every access to a record word is therefore
// ordered by happens-before: there is no data race. The race detector
// ignores memory outside the Go heap, so race builds place the queue in the
// Go heap and use the sync/atomic paths (protocol.go); there it checks
// this argument on every slot access (a consumer that copies the record
// before it checks the ready word is reported).
//
// By default the Go side uses these sync/atomic paths on every platform.
// An alternative, built with the mqasm tag on amd64, runs the same steps
// as assembly with plain MOVs (fast_amd64.s), exactly what emitted code
// does: under x86-TSO a plain store is a release store and a plain load an
// acquire load, and it saves the XCHG that atomic.StoreUint64 compiles to
// (a full fence that waits for the slot's cache line). Measured
// (BenchmarkSendNotFull, loaded machine): about 5 CPU-ns per Send with
// mqasm against about 17 with sync/atomic; TestFastPathsAgree diffs the
// two byte for byte. The default stays with sync/atomic so the Go memory
// model argument above covers the Go side as written.
//
// x86-TSO, for the native producer. Emitted code uses plain MOV stores:
// words 0..6, then the ready word, then Written. x86-64 does not reorder a
// store with older stores, so once the consumer sees the ready word the
// record is visible; no fence is needed. On the consumer side (Go, atomic
// loads are plain MOVs on amd64) loads are not reordered with older loads,
// so the record loads that follow the ready-word load see the record. The
// producer's reload of ReadStatus is a load, and stores are not reordered
// with older loads, so the overwrite of a released slot cannot pass the
// load that found it free; the consumer's copy loads are not reordered with
// its later ReadStatus store. A native producer must:
//
//   - compute the slot as Base + OffSlots + (n & mask)*SlotBytes with
//     n = [Base+OffWritten] and mask = [Base+OffMask];
//   - test for space with n - [Base+OffCachedRead] < slots, and on failure
//     reload [Base+OffReadStatus] into OffCachedRead and test again;
//   - if the queue is still full, not spin: exit to the dispatcher with a
//     queue-full reason (the Go collector cannot stop a thread that spins in
//     native code, and the consumer may be waiting for exactly that stop),
//     and let Go call WaitSpace, which stalls, counts and returns;
//   - write words 0..6, then n+1 to the ready word, then n+1 to OffWritten,
//     each a single aligned 8-byte MOV.
//
// # Where this differs from the paper
//
//   - Ready word holds the sequence number n+1 instead of a flag (see above).
//   - The query engine is software, so a full queue stalls by waiting in
//     Go (Send, WaitSpace) rather than stalling a pipeline; stalls and their
//     time are counted, and no message is ever dropped.
//   - Service threads are goroutines that poll with backoff (Backoff): a few
//     spins, Interval (10µs) apart so that polling does not pull the line
//     the producer writes next to the consumer's core on every message
//     (back to back for a producer that would fill half the queue within
//     an interval), then runtime.Gosched, then sleeps doubling up to
//     MaxSleep, so an idle service thread does not hold a core. The cost
//     is latency: a message waits up to Interval while the thread spins,
//     and after an idle spell up to MaxSleep (default 200µs) plus timer
//     slack; under load the thread never sleeps.
//   - The paper's queue holds up to 128 messages; so does this one (MaxSlots),
//     and the slot count must be a power of two between 2 and 128.
//
// Invariants: exactly one producer and one consumer per queue at a time; a
// message is delivered exactly once and in order; Send never drops.
package mq
