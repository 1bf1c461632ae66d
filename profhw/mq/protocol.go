// The queue protocol in Go with sync/atomic: one message -> one slot
// (sendGo), one slot -> one message (recvGo). Race and purego builds run
// these; amd64 builds run the same steps in assembly (fast_amd64.s), and
// TestFastPathsAgree diffs the two.

package mq

import (
	"sync/atomic"
	"unsafe"
)

// slotAt is slot i of the queue at h.
func slotAt(h *header, i uint64) *slot {
	return (*slot)(unsafe.Add(unsafe.Pointer(h), OffSlots+uintptr(i)*SlotBytes))
}

// sendGo writes message m into the queue at h and returns true, or
// returns false without writing if the queue is full even after reloading
// the read status. See the package doc for the protocol.
func sendGo(h *header, m *Message) bool {
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

// recvGo copies the next message to m and frees its slot, or returns
// false if it is not there yet. See the package doc for the protocol.
func recvGo(h *header, m *Message) bool {
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
