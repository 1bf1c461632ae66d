package mq

import (
	"errors"
	"testing"
	"time"
)

func TestNewQueueSizes(t *testing.T) {
	for _, tc := range []struct {
		slots, want int
		ok          bool
	}{
		{0, DefaultSlots, true}, {2, 2, true}, {4, 4, true}, {128, 128, true},
		{1, 0, false}, {3, 0, false}, {-2, 0, false}, {100, 0, false}, {256, 0, false},
	} {
		q, err := NewQueue(tc.slots)
		if !tc.ok {
			if !errors.Is(err, ErrSize) {
				t.Errorf("NewQueue(%d) error = %v, want ErrSize", tc.slots, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("NewQueue(%d): %v", tc.slots, err)
		}
		if q.Slots() != tc.want {
			t.Errorf("NewQueue(%d).Slots() = %d, want %d", tc.slots, q.Slots(), tc.want)
		}
		if err := q.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

func TestSendReceive(t *testing.T) {
	q, err := NewQueue(4)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var m Message
	if q.Receive(&m) {
		t.Fatal("Receive on an empty queue returned true")
	}
	for lap := uint64(0); lap < 5; lap++ {
		for i := uint64(0); i < 4; i++ {
			q.Send(&Message{lap, i, 2, 3, 4, 5, 6})
		}
		for i := uint64(0); i < 4; i++ {
			if !q.Receive(&m) || m != (Message{lap, i, 2, 3, 4, 5, 6}) {
				t.Fatalf("lap %d message %d: got %v", lap, i, m)
			}
		}
		if q.Receive(&m) {
			t.Fatal("Receive after draining returned true")
		}
	}
	st := q.Stats()
	if st.Sent != 20 || st.Received != 20 || st.Stalls != 0 || st.MaxOccupancy != 4 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestStallCounted(t *testing.T) {
	q, err := NewQueue(2)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := range uint64(2) {
		m := seqMessage(i)
		q.Send(&m)
	}
	if st := q.Stats(); st.Stalls != 0 || st.Sent != 2 {
		t.Fatalf("before the stall: %+v", st)
	}
	done := make(chan struct{})
	go func() {
		m := seqMessage(2)
		q.Send(&m) // full: must wait, not drop
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("Send into a full queue returned without waiting")
	default:
	}
	if st := q.Stats(); st.Sent != 2 {
		t.Fatalf("while stalled: %+v", st)
	}
	var m Message
	if !q.Receive(&m) || m != seqMessage(0) {
		t.Fatalf("got %v", m)
	}
	<-done
	st := q.Stats()
	if st.Sent != 3 || st.Received != 1 || st.Stalls != 1 || st.StallNs < uint64(10*time.Millisecond) || st.MaxOccupancy != 2 {
		t.Errorf("after the stall: %+v", st)
	}
	for _, want := range []uint64{1, 2} {
		if !q.Receive(&m) || m != seqMessage(want) {
			t.Fatalf("message %d: got %v", want, m)
		}
	}
}

func TestMaxOccupancy(t *testing.T) {
	q, err := NewQueue(16)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var m Message
	for _, burst := range []int{3, 9, 5} {
		for range burst {
			q.Send(&m)
		}
		for q.Receive(&m) {
		}
	}
	if st := q.Stats(); st.MaxOccupancy != 9 || st.Stalls != 0 {
		t.Errorf("Stats = %+v, want MaxOccupancy 9", st)
	}
}

func TestClose(t *testing.T) {
	q, err := NewQueue(4)
	if err != nil {
		t.Fatal(err)
	}
	m := seqMessage(0)
	q.Send(&m)
	s := Serve(q, func(*Message) {})
	if err := q.Close(); !errors.Is(err, ErrServing) {
		t.Errorf("Close while served = %v, want ErrServing", err)
	}
	s.Stop()
	if err := q.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := q.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	if st := q.Stats(); st.Sent != 1 || st.Received != 1 {
		t.Errorf("Stats after Close = %+v", st)
	}
	if q.Receive(&m) {
		t.Error("Receive after Close returned true")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Send after Close did not panic")
			}
		}()
		q.Send(&m)
	}()
}
