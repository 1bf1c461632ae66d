package mq

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// rawWord is the word at addr, a raw address into queue memory, as emitted
// code sees it. The double conversion keeps vet's unsafeptr check, which
// cannot know the memory is outside the Go heap, quiet.
func rawWord(addr uintptr) *uint64 { return (*uint64)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))) }

// nativeSend is the native producer of the package doc, step by step,
// through Base and the exported offsets only; each access is one aligned
// 8-byte load or store, as the emitted MOVs will be (atomics here, so the
// race detector sees the same ordering the x86-TSO argument relies on). It
// returns false when the queue is full: the native producer's exit to the
// dispatcher.
func nativeSend(base uintptr, m *Message) bool {
	n := atomic.LoadUint64(rawWord(base + OffWritten))
	mask := atomic.LoadUint64(rawWord(base + OffMask))
	if n-atomic.LoadUint64(rawWord(base+OffCachedRead)) > mask {
		r := atomic.LoadUint64(rawWord(base + OffReadStatus))
		atomic.StoreUint64(rawWord(base+OffCachedRead), r)
		if n-r > mask {
			return false
		}
	}
	slot := base + OffSlots + uintptr(n&mask)*SlotBytes
	for i := range MsgWords {
		atomic.StoreUint64(rawWord(slot+uintptr(8*i)), m[i])
	}
	atomic.StoreUint64(rawWord(slot+ReadyOffset), n+1)
	atomic.StoreUint64(rawWord(base+OffWritten), n+1)
	return true
}

// TestNativeProtocolStress runs producers that follow the native protocol
// (mixed with Go Sends on the same queue, as a guest moves between fragments
// and the interpreter) against service threads, on several queues at once,
// and checks every queue delivers every message once, in order.
func TestNativeProtocolStress(t *testing.T) {
	perQueue := uint64(500_000)
	if testing.Short() {
		perQueue = 50_000
	}
	for _, tc := range []struct {
		name  string
		slots []int
		each  bool
	}{
		{"one thread, four queues", []int{2, 4, 128, 16}, false},
		{"thread per queue", []int{2, 128}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := make([]*Queue, len(tc.slots))
			cs := make([]*checker, len(tc.slots))
			for i, n := range tc.slots {
				q, err := NewQueue(n)
				if err != nil {
					t.Fatal(err)
				}
				qs[i], cs[i] = q, &checker{t: t}
			}
			handle := func(i int, m *Message) { cs[i].handle(m) }
			var s *Service
			if tc.each {
				s = ServeEach(qs, handle, Backoff{})
			} else {
				s = ServeQueues(qs, handle, Backoff{})
			}
			var wg sync.WaitGroup
			exits := make([]uint64, len(qs))
			for i, q := range qs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					base := q.Base()
					for k := uint64(0); k < perQueue; k++ {
						m := seqMessage(k)
						if k%1000 < 100 { // an interpreted stretch
							q.Send(&m)
							continue
						}
						for !nativeSend(base, &m) {
							exits[i]++
							q.WaitSpace()
						}
					}
				}()
			}
			wg.Wait()
			s.Stop()
			for i, q := range qs {
				st := q.Stats()
				if cs[i].next != perQueue || st.Sent != perQueue || st.Received != perQueue {
					t.Errorf("queue %d (%d slots): handled %d, stats %+v", i, q.Slots(), cs[i].next, st)
				}
				if st.MaxOccupancy > uint64(q.Slots()) {
					t.Errorf("queue %d: occupancy %d > %d slots", i, st.MaxOccupancy, q.Slots())
				}
				t.Logf("queue %d (%d slots): %d full exits, %+v", i, q.Slots(), exits[i], st)
				if err := q.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestStaleSlotIgnored plants ready words that a broken or late producer
// could leave behind (an earlier lap's sequence number, a bare 1) and checks
// the consumer takes none of them.
func TestStaleSlotIgnored(t *testing.T) {
	q, err := NewQueue(4)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var m Message
	for i := range uint64(6) { // message 5 sits in slot 1, lap 1
		mm := seqMessage(i)
		q.Send(&mm)
		if !q.Receive(&m) {
			t.Fatal("no message")
		}
	}
	base := q.Base()
	// Slot 2 expects message 6 (ready 7); slot 3 message 7 (ready 8).
	for _, stale := range []uint64{1, 3, 7 - 4, 7 + 4} {
		atomic.StoreUint64(rawWord(base+OffSlots+2*SlotBytes+ReadyOffset), stale)
		if q.Receive(&m) {
			t.Fatalf("ready word %d taken for message 6", stale)
		}
	}
	atomic.StoreUint64(rawWord(base+OffSlots+2*SlotBytes+ReadyOffset), 0)
	mm := seqMessage(6)
	q.Send(&mm)
	if !q.Receive(&m) || m != seqMessage(6) {
		t.Fatalf("message 6: got %v", m)
	}
}
