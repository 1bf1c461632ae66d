// Queue-stall probe package: documentation only; the probe is TestProbe (run_test.go).

// Package stallprobe holds the measurement behind docs/rpa.md's "Queue
// stalls": it runs one guest in dynamo mode with the edge query of the
// relational-profiling paper's Figure 2a and prints the queue's counters
// and its service thread's (wake-ups by backoff phase, wake-ups that
// found the queue full, bursts, yields, sleeps). It is a test so that it
// builds with the module; it is skipped unless STALLPROBE_GUEST is set:
//
//	STALLPROBE_GUEST=scheme STALLPROBE_PERIOD=32 go test ./internal/stallprobe -run Probe -v -count=1
//
// STALLPROBE_SPINS, _YIELDS (counts) and _SPINFOR (a Go duration) set
// the service thread's mq.Backoff; STALLPROBE_NONATIVE=1 runs the query
// in Go after a sample exit instead of in the fragments.
package stallprobe
