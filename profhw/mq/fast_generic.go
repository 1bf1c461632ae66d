//go:build !amd64 || race || purego

// Producer and consumer fast paths in Go with sync/atomic: one message ->
// one slot (send), one slot -> one message (receive). Race builds (and the purego tag) use these
// so the race detector checks the protocol; amd64 builds use assembly.

package mq

import (
	"sync/atomic"
	"unsafe"
)

// slotAt is slot i of the queue at h.
func slotAt(h *header, i uint64) *slot {
	return (*slot)(unsafe.Add(unsafe.Pointer(h), OffSlots+uintptr(i)*SlotBytes))
}

// sendFast writes message m into the queue at h and returns true, or
// returns false without writing if the queue is full even after reloading
// the read status. See the package doc for the protocol.
func sendFast(h *header, m *Message) bool {
	n := atomic.LoadUint64(&h.written)
	mask := h.mask
	if n-h.cachedRead > mask {
		h.cachedRead = atomic.LoadUint64(&h.readStatus)
		if n-h.cachedRead > mask {
			return false
		}
	}
	s := slotAt(h, n&mask)
	*(*Message)(unsafe.Pointer(s)) = *m
	atomic.StoreUint64(&s[ReadyWord], n+1)
	atomic.StoreUint64(&h.written, n+1)
	return true
}

// recvFast copies the next message to m and frees its slot, or returns
// false if it is not there yet. See the package doc for the protocol.
func recvFast(h *header, m *Message) bool {
	r := atomic.LoadUint64(&h.readStatus) // only this consumer writes it
	s := slotAt(h, r&h.mask)
	if atomic.LoadUint64(&s[ReadyWord]) != r+1 {
		return false
	}
	*m = *(*Message)(unsafe.Pointer(s))
	// Occupancy now, counting this message, whose slot is not yet freed.
	// Written may still lag the ready word by one store.
	w := max(atomic.LoadUint64(&h.written), r+1)
	if occ := w - r; occ > atomic.LoadUint64(&h.maxOccupancy) {
		atomic.StoreUint64(&h.maxOccupancy, occ)
	}
	atomic.StoreUint64(&s[ReadyWord], 0)
	atomic.StoreUint64(&h.readStatus, r+1)
	return true
}
