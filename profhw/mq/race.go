//go:build race

// Race builds: queues in the Go heap, where the race detector sees them.

package mq

// raceEnabled places queues in the Go heap, where the race detector sees
// every slot access (it ignores mapped memory); see mapQueue.
const raceEnabled = true
