package mq_test

import (
	"fmt"

	"rvdyn/profhw/mq"
)

// A service thread tabulates the branch outcomes that a producer sends, as
// the edge-profiling application of sec. 6.2 does with its records.
func Example() {
	q, err := mq.NewQueue(0) // 128 slots
	if err != nil {
		panic(err)
	}
	defer q.Close()

	taken := map[uint64]int{} // branch pc -> taken count
	s := mq.Serve(q, func(m *mq.Message) {
		if m[1] != 0 {
			taken[m[0]]++
		}
	})
	for i := range uint64(1000) {
		q.Send(&mq.Message{0x10074, i % 4 / 3}) // pc, taken once in four
	}
	s.Stop() // drains everything sent before it
	st := q.Stats()
	fmt.Println(taken[0x10074], st.Sent, st.Received)
	// Output: 250 1000 1000
}

// A native producer writes a slot through the queue's address: record
// words first, then the ready word (the sequence number plus one), then the
// written count.
func ExampleQueue_Base() {
	q, err := mq.NewQueue(4)
	if err != nil {
		panic(err)
	}
	defer q.Close()
	n := uint64(6) // the next message's sequence number, from Base+OffWritten
	mask := uint64(q.Slots() - 1)
	slot := q.Base() + mq.OffSlots + uintptr(n&mask)*mq.SlotBytes
	fmt.Printf("message %d: record at Base+%d, ready word (%d) at Base+%d\n",
		n, slot-q.Base(), n+1, slot+mq.ReadyOffset-q.Base())
	fmt.Printf("written count at Base+%d, read status at Base+%d\n", mq.OffWritten, mq.OffReadStatus)
	// Output:
	// message 6: record at Base+256, ready word (7) at Base+312
	// written count at Base+64, read status at Base+0
}
