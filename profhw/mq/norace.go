//go:build !race

package mq

// raceEnabled is false: queues live in anonymous mappings (see mapQueue).
const raceEnabled = false
