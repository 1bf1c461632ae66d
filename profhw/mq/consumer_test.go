package mq

import (
	"runtime"
	"testing"
	"time"
)

// TestConsumerCountsFullWakeup fills a queue before its service thread
// starts: the thread's first poll is a wake-up from the spin phase that
// finds every slot full, and its burst takes all the messages.
func TestConsumerCountsFullWakeup(t *testing.T) {
	q, err := NewQueue(8)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := range uint64(8) {
		m := seqMessage(i)
		q.Send(&m)
	}
	c := &checker{t: t}
	s := Serve(q, c.handle)
	s.Stop()
	got := s.Consumer()
	if got.Wakeups[WakeSpin] != 1 || got.WakeFull[WakeSpin] != 1 || got.BurstMessages[WakeSpin] != 8 || got.MaxBurst != 8 {
		t.Errorf("consumer stats %+v; want one wake-up from spinning, finding the queue full, a burst of 8", got)
	}
	if st := q.Stats(); st.Stalls != 0 || st.StallsAsleep != 0 {
		t.Errorf("queue stats %+v: no send stalled", st)
	}
	for p, want := range map[WakePhase]string{WakeSpin: "spin", WakeYield: "yield", WakeSleep: "sleep", 7: "WakePhase(?)"} {
		if p.String() != want {
			t.Errorf("WakePhase(%d) = %q, want %q", p, p, want)
		}
	}
}

// sleepyBackoff puts a service thread to sleep for an hour after two
// empty polls: only a producer's wake-up can make it drain in time.
var sleepyBackoff = Backoff{Spins: 1, SpinFor: time.Nanosecond, Yields: 1, MinSleep: time.Hour, MaxSleep: time.Hour}

// sleepingQueue returns a queue of 8 slots whose service thread (s,
// handing messages to c) has gone to sleep for an hour.
func sleepingQueue(t *testing.T) (q *Queue, c *checker, s *Service) {
	q, err := NewQueue(8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	c = &checker{t: t}
	s = ServeQueues([]*Queue{q}, func(_ int, m *Message) { c.handle(m) }, sleepyBackoff)
	for !q.asleep.Load() {
		runtime.Gosched()
	}
	return q, c, s
}

// TestStallWakesSleepingConsumer fills a queue behind a sleeping service
// thread as native code does (sendFast, which wakes nobody) and then
// stalls as native code does after its exit (WaitSpace): the stall must
// wake the consumer rather than wait out its hour-long sleep.
func TestStallWakesSleepingConsumer(t *testing.T) {
	q, c, s := sleepingQueue(t)
	for i := range uint64(8) {
		m := seqMessage(i)
		if !sendFast(q.h, &m) {
			t.Fatalf("message %d: queue full", i)
		}
	}
	done := make(chan struct{})
	go func() { q.WaitSpace(); close(done) }()
	<-done // unwoken, the thread sleeps an hour: the test binary's timeout fails the test
	s.Stop()
	st, cs := q.Stats(), s.Consumer()
	if st.Stalls != 1 || st.StallsAsleep != 1 || cs.WokenEarly < 1 || cs.WakeFull[WakeSleep] != 1 || c.next != 8 {
		t.Errorf("queue %+v, consumer %+v, handled %d: want one stall begun asleep, an early wake-up finding the queue full, 8 handled", st, cs, c.next)
	}
}

// TestHalfFullSendWakesSleepingConsumer sends from Go behind a sleeping
// service thread: the Send that fills half the queue wakes it, so twice
// the queue's size goes through (with at most a stall or two while the
// thread gets going) in much less than its hour-long sleep.
func TestHalfFullSendWakesSleepingConsumer(t *testing.T) {
	q, c, s := sleepingQueue(t)
	done := make(chan struct{})
	go func() {
		for i := range uint64(16) {
			m := seqMessage(i)
			q.Send(&m)
		}
		close(done)
	}()
	<-done // unwoken, the thread sleeps an hour: the test binary's timeout fails the test
	s.Stop()
	if cs := s.Consumer(); cs.WokenEarly < 1 || c.next != 16 {
		t.Errorf("consumer %+v, handled %d: want an early wake-up, 16 handled", cs, c.next)
	}
}
