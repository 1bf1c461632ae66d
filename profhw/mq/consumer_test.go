package mq

import "testing"

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
