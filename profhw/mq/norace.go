//go:build !race

// Builds without the race detector: queues in anonymous mappings.

package mq

// raceEnabled is false: queues live in anonymous mappings (see mapQueue).
const raceEnabled = false
