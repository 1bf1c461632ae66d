package mq

import (
	"errors"
	"testing"
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
