package mq

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkThroughput measures messages per second through one queue of
// the default size, from one Go producer to one service thread.
func BenchmarkThroughput(b *testing.B) {
	for _, slots := range []int{2, DefaultSlots} {
		b.Run(map[int]string{2: "slots=2", DefaultSlots: "slots=128"}[slots], func(b *testing.B) {
			q, err := NewQueue(slots)
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			var sum uint64
			s := Serve(q, func(m *Message) { sum += m[0] })
			b.ReportAllocs()
			m := Message{1, 2, 3, 4, 5, 6, 7}
			t0 := time.Now()
			for b.Loop() {
				q.Send(&m)
			}
			s.Stop()
			el := time.Since(t0)
			st := q.Stats()
			b.ReportMetric(float64(st.Received)/el.Seconds(), "msgs/s")
			b.ReportMetric(float64(st.Stalls)/float64(st.Sent), "stalls/msg")
		})
	}
}

// BenchmarkSendNotFull is the producer's cost per Send when the queue is
// never full. The consumer's side is played inline: once per lap the read
// status jumps to everything written (the ready words need no clearing, as
// each lap stores a new sequence number), so the producer only ever takes
// the fast path plus one read-status reload per lap.
func BenchmarkSendNotFull(b *testing.B) {
	q, err := NewQueue(DefaultSlots)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	b.ReportAllocs()
	m := Message{1, 2, 3, 4, 5, 6, 7}
	i := 0
	for b.Loop() {
		q.Send(&m)
		if i++; i == DefaultSlots {
			atomic.StoreUint64(&q.h.readStatus, atomic.LoadUint64(&q.h.written))
			i = 0
		}
	}
	if st := q.Stats(); st.Stalls != 0 {
		b.Fatalf("stalled: %+v", st)
	}
}
