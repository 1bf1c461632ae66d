package mq

import (
	"testing"
	"unsafe"
)

// TestLayout pins the queue layout that emitted code hard-codes.
func TestLayout(t *testing.T) {
	var h header
	var s slot
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"readStatus", unsafe.Offsetof(h.readStatus), OffReadStatus},
		{"maxOccupancy", unsafe.Offsetof(h.maxOccupancy), OffMaxOccupancy},
		{"written", unsafe.Offsetof(h.written), OffWritten},
		{"cachedRead", unsafe.Offsetof(h.cachedRead), OffCachedRead},
		{"mask", unsafe.Offsetof(h.mask), OffMask},
		{"stalls", unsafe.Offsetof(h.stalls), OffStalls},
		{"stallNs", unsafe.Offsetof(h.stallNs), OffStallNs},
		{"sizeof header", unsafe.Sizeof(h), OffSlots},
		{"sizeof slot", unsafe.Sizeof(s), SlotBytes},
		{"ready word", uintptr(unsafe.Pointer(&s[ReadyWord])) - uintptr(unsafe.Pointer(&s[0])), ReadyOffset},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, emitted code uses %d", tc.name, tc.got, tc.want)
		}
	}
	// The numbers themselves are the contract, not just their agreement.
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"MsgWords", MsgWords, 7}, {"SlotBytes", SlotBytes, 64}, {"ReadyOffset", ReadyOffset, 56},
		{"OffReadStatus", OffReadStatus, 0}, {"OffMaxOccupancy", OffMaxOccupancy, 8},
		{"OffWritten", OffWritten, 64}, {"OffCachedRead", OffCachedRead, 72}, {"OffMask", OffMask, 80},
		{"OffStalls", OffStalls, 88}, {"OffStallNs", OffStallNs, 96}, {"OffSlots", OffSlots, 128},
		{"MaxSlots", MaxSlots, 128},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	q, err := NewQueue(8)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if q.Base()%64 != 0 {
		t.Errorf("Base %#x is not cache-line aligned", q.Base())
	}
	if got := *(*uint64)(unsafe.Add(unsafe.Pointer(&q.mem[0]), OffMask)); got != 7 {
		t.Errorf("mask word = %d, want 7", got)
	}
}
