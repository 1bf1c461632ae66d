package mq

import (
	"testing"
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
	for _, slots := range []int{2, DefaultSlots} {
		q, err := NewQueue(slots)
		if err != nil {
			t.Fatal(err)
		}
		c := &checker{t: t}
		s := Serve(q, c.handle)
		for i := uint64(0); i < n; i++ {
			m := seqMessage(i)
			q.Send(&m)
		}
		s.Stop()
		if c.next != n {
			t.Errorf("%d slots: handled up to %d, sent %d", slots, c.next, n)
		}
		st := q.Stats()
		if st.Sent != n || st.Received != n || s.Handled() != n {
			t.Errorf("%d slots: stats %+v, handled %d", slots, st, s.Handled())
		}
		t.Logf("%d slots: %+v", slots, st)
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
