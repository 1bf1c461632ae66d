//go:build !race

// Builds without the race detector: false -> native queries available (see NativeAvailable).

package rpa

const raceEnabled = false
