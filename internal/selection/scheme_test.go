// The head queue's protocol, and parsing scheme names.

package selection

import (
	"strings"
	"sync"
	"testing"
)

// TestHeadQueue hands heads from a producer goroutine to the consumer
// through a small queue that fills up, and checks that every head arrives
// once, in order. Run with -race: the slots are plain words ordered only
// by the head and tail atomics.
func TestHeadQueue(t *testing.T) {
	q := newHeadQueue(8)
	const n = 20000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := uint64(1); i <= n; {
			if q.push(i) {
				i++
			}
		}
	}()
	for want := uint64(1); want <= n; {
		pc, ok := q.pop()
		if !ok {
			continue
		}
		if pc != want {
			t.Fatalf("popped %d, want %d", pc, want)
		}
		want++
	}
	wg.Wait()
	if _, ok := q.pop(); ok {
		t.Fatal("queue not empty after the last head")
	}
	for i := range 8 {
		if !q.push(uint64(i)) {
			t.Fatalf("push %d into an empty queue of 8 failed", i)
		}
	}
	if q.push(99) {
		t.Fatal("push into a full queue succeeded")
	}
}

func TestParseKind(t *testing.T) {
	for s := range NumKinds {
		got, err := ParseKind(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseKind(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseKind("hot"); err == nil || !strings.Contains(err.Error(), "compressor") {
		t.Errorf("ParseKind(hot): %v", err)
	}
}
