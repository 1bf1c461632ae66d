package mq

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkThroughput measures messages per second through one queue, from
// one Go producer to one service thread, and the CPU time both threads
// spend per message (cpu-ns/msg, counting the idle service thread's polls).
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
			t0, c0 := time.Now(), cpuTime(b)
			for b.Loop() {
				q.Send(&m)
			}
			s.Stop()
			el, cpu := time.Since(t0), cpuTime(b)-c0
			st := q.Stats()
			b.ReportMetric(float64(st.Received)/el.Seconds(), "msgs/s")
			b.ReportMetric(float64(cpu)/float64(st.Received), "cpu-ns/msg")
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
	c0 := cpuTime(b)
	for b.Loop() {
		q.Send(&m)
		if i++; i == DefaultSlots {
			atomic.StoreUint64(&q.h.readStatus, atomic.LoadUint64(&q.h.written))
			i = 0
		}
	}
	st := q.Stats()
	b.ReportMetric(float64(cpuTime(b)-c0)/float64(st.Sent), "cpu-ns/op")
	if st.Stalls != 0 {
		b.Fatalf("stalled: %+v", st)
	}
}

// cpuTime is the CPU time the process has used (user+system). On a machine
// shared with other jobs it is a steadier cost than wall time: a benchmark
// thread that waits for a core is not charged for the wait.
func cpuTime(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
