package mq

import (
	"sync/atomic"
	"testing"
	"time"
)

// checker verifies that a queue delivers 0, 1, 2, ... in order, each once.
type checker struct {
	t    *testing.T
	next uint64
	bad  int
}

func (c *checker) handle(m *Message) {
	if m[0] != c.next || m[6] != ^c.next || m[3] != c.next*3 {
		if c.bad < 5 {
			c.t.Errorf("got message %d (%v), want %d", m[0], m, c.next)
		}
		c.bad++
		c.next = m[0]
	}
	c.next++
}

func seqMessage(i uint64) Message { return Message{i, 1, 2, i * 3, 4, 5, ^i} }

func TestServeInOrder(t *testing.T) {
	n := uint64(1_000_000)
	if testing.Short() {
		n = 100_000
	}
	// The default polls Interval apart; -1 polls back to back.
	for _, interval := range []time.Duration{0, -1} {
		for _, slots := range []int{2, DefaultSlots} {
			q, err := NewQueue(slots)
			if err != nil {
				t.Fatal(err)
			}
			c := &checker{t: t}
			s := ServeQueues([]*Queue{q}, func(_ int, m *Message) { c.handle(m) }, Backoff{Interval: interval})
			for i := uint64(0); i < n; i++ {
				m := seqMessage(i)
				q.Send(&m)
			}
			s.Stop()
			if c.next != n {
				t.Errorf("interval %v, %d slots: handled up to %d, sent %d", interval, slots, c.next, n)
			}
			st := q.Stats()
			if st.Sent != n || st.Received != n || s.Handled() != n {
				t.Errorf("interval %v, %d slots: stats %+v, handled %d", interval, slots, st, s.Handled())
			}
			t.Logf("interval %v, %d slots: %+v", interval, slots, st)
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStopDrains stops a service right after the last Send, with a handler
// slower than the producer, and checks nothing sent before Stop is lost.
func TestStopDrains(t *testing.T) {
	q, err := NewQueue(0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	c := &checker{t: t}
	s := Serve(q, func(m *Message) {
		for range 200 { // slow consumer: the queue is full at Stop
			_ = m[0] * m[1]
		}
		c.handle(m)
	})
	const n = 10_000
	for i := range uint64(n) {
		m := seqMessage(i)
		q.Send(&m)
	}
	s.Stop()
	if c.next != n {
		t.Errorf("handled %d of %d before Stop returned", c.next, n)
	}
	s.Stop() // idempotent
}

// TestStopIdle checks that Stop wakes a sleeping service thread at once and
// that messages sent after a long idle spell are still delivered.
func TestStopIdle(t *testing.T) {
	q, err := NewQueue(0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var got atomic.Uint64
	s := Serve(q, func(m *Message) { got.Add(m[0]) })
	time.Sleep(30 * time.Millisecond) // well past spinning and yielding
	m := Message{7}
	q.Send(&m)
	deadline := time.Now().Add(5 * time.Second)
	for got.Load() != 7 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got.Load() != 7 {
		t.Fatal("message sent to an idle service thread was not handled")
	}
	time.Sleep(30 * time.Millisecond)
	t0 := time.Now()
	s.Stop()
	if d := time.Since(t0); d > 100*time.Millisecond {
		t.Errorf("Stop of an idle service took %v", d)
	}
}

func TestOneConsumerPerQueue(t *testing.T) {
	q, err := NewQueue(0)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	s := Serve(q, func(*Message) {})
	defer s.Stop()
	defer func() {
		if recover() == nil {
			t.Error("a second service thread on one queue did not panic")
		}
	}()
	Serve(q, func(*Message) {})
}

func TestBackoffDefaults(t *testing.T) {
	if got := (Backoff{}).withDefaults(); got != DefaultBackoff {
		t.Errorf("zero Backoff = %+v, want %+v", got, DefaultBackoff)
	}
	got := Backoff{Spins: 1, MinSleep: time.Second, MaxSleep: time.Millisecond}.withDefaults()
	if got.Spins != 1 || got.Yields != DefaultBackoff.Yields || got.MinSleep != time.Millisecond {
		t.Errorf("withDefaults = %+v", got)
	}
	if got.Interval != DefaultBackoff.Interval || DefaultBackoff.Interval <= 0 {
		t.Errorf("zero Interval became %v, want the default %v (> 0)", got.Interval, DefaultBackoff.Interval)
	}
	if got := (Backoff{Interval: -1}).withDefaults().Interval; got != -1 {
		t.Errorf("Interval -1 (back to back) became %v", got)
	}
}
