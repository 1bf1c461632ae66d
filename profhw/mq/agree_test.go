package mq

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFastPathsAgree drives three queues of each size through the same
// random sequence of sends, receives and consumer stalls: one with the
// build's fast paths (assembly on amd64), one with the sync/atomic protocol
// and one with the native-producer emulation of native_test.go. Results and
// every byte of queue memory must agree after each step.
func TestFastPathsAgree(t *testing.T) {
	type impl struct {
		name string
		send func(q *Queue, m *Message) bool
		recv func(q *Queue, m *Message) bool
	}
	impls := []impl{
		{"fast", func(q *Queue, m *Message) bool { return sendFast(q.h, m) }, func(q *Queue, m *Message) bool { return recvFast(q.h, m) }},
		{"go", func(q *Queue, m *Message) bool { return sendGo(q.h, m) }, func(q *Queue, m *Message) bool { return recvGo(q.h, m) }},
		{"native", func(q *Queue, m *Message) bool { return nativeSend(q.Base(), m) }, func(q *Queue, m *Message) bool { return recvGo(q.h, m) }},
	}
	for _, slots := range []int{2, 8, 128} {
		qs := make([]*Queue, len(impls))
		for i := range impls {
			q, err := NewQueue(slots)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			qs[i] = q
		}
		rng := rand.New(rand.NewPCG(uint64(slots), 1))
		for step := range 20_000 {
			var m Message
			for i := range m {
				m[i] = rng.Uint64()
			}
			send := rng.IntN(3) > 0 // more sends than receives: the queue fills
			var ok0 bool
			var got0 Message
			for i, im := range impls {
				var ok bool
				var got Message
				if send {
					ok = im.send(qs[i], &m)
				} else {
					ok = im.recv(qs[i], &got)
				}
				if i == 0 {
					ok0, got0 = ok, got
					continue
				}
				if ok != ok0 || got != got0 {
					t.Fatalf("%d slots, step %d (send %v): %s gives %v %v, %s gives %v %v",
						slots, step, send, im.name, ok, got, impls[0].name, ok0, got0)
				}
				if !bytes.Equal(qs[i].mem, qs[0].mem) {
					t.Fatalf("%d slots, step %d (send %v): %s and %s leave different queue memory",
						slots, step, send, im.name, impls[0].name)
				}
			}
		}
		if st := qs[0].Stats(); st.Sent == 0 || st.Received == 0 || st.MaxOccupancy != uint64(slots) {
			t.Errorf("%d slots: sequence did not fill the queue: %+v", slots, st)
		}
	}
}
