package rpa

import (
	"strings"
	"sync/atomic"
	"testing"

	"rvdyn/profhw/mq"
)

// TestStartHandlers: a queue with a handler gets it instead of a PCTable;
// a handler for a queue nobody sends to, and mixed layouts on a
// table-read queue, are errors.
func TestStartHandlers(t *testing.T) {
	p, err := Assemble("for opSTORE * always collect pc; send 1 stop;\nfor opLOAD * always collect op3; send 3 stop;")
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Uint64
	s, err := Start(p, Options{Handlers: map[int]func(*mq.Message){3: func(m *mq.Message) { got.Add(m[0]) }}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tables[1] == nil || s.Tables[3] != nil || s.Queues[3] == nil {
		t.Fatalf("tables %v", s.Tables)
	}
	s.Queues[3].Send(&mq.Message{5})
	s.Queues[3].Send(&mq.Message{6})
	s.Close()
	if got.Load() != 11 {
		t.Errorf("handler saw %d, want 11", got.Load())
	}
	if _, err := Start(p, Options{Handlers: map[int]func(*mq.Message){2: func(*mq.Message) {}}}, 0); err == nil || !strings.Contains(err.Error(), "queue 2") {
		t.Errorf("handler for an unused queue: %v", err)
	}
	mixed, _ := Assemble("for opSTORE * always collect pc; send 1 stop;\nfor opLOAD * always collect op3; send 1 stop;")
	if _, err := Start(mixed, Options{}, 0); err == nil || !strings.Contains(err.Error(), "queue 1") {
		t.Errorf("mixed layouts: %v", err)
	}
	s, err = Start(mixed, Options{Handlers: map[int]func(*mq.Message){1: func(*mq.Message) {}}}, 0)
	if err != nil {
		t.Errorf("mixed layouts with a handler: %v", err)
	} else {
		s.Close()
	}
}
