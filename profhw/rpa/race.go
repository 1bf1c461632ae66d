//go:build race

// Race builds: true -> native queries off (see NativeAvailable).

package rpa

const raceEnabled = true
