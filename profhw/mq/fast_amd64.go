//go:build amd64 && mqasm && !race && !purego

// Producer and consumer fast paths on amd64: one message -> one slot (send),
// one slot -> one message (receive), in assembly (fast_amd64.s).

package mq

// sendFast is the native producer of the package doc, in assembly with
// plain MOVs, as emitted code will do it: it writes message m into the
// queue at h and returns true, or returns false without writing if the
// queue is full even after reloading the read status. Plain stores are
// release stores under x86-TSO, where the XCHG that atomic.StoreUint64
// compiles to would also drain the store buffer and wait for the slot's
// cache line on every message. The race detector cannot see into
// assembly, so race builds use the sync/atomic version (protocol.go).
//
//go:noescape
func sendFast(h *header, m *Message) bool

// recvFast is Receive's consumer step in assembly with plain MOVs: if the
// next slot's ready word holds the expected sequence number, copy the
// record to m, update the occupancy high-water mark, clear the ready word,
// publish the read status and return true.
//
//go:noescape
func recvFast(h *header, m *Message) bool
