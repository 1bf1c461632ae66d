// Path profile based selection in the dispatcher: recorded forward paths in, one counter per distinct path, and the path to compile once its own counter exceeds the delay out (NET paper sections 4 and 6).

package net

import (
	"fmt"
	"strings"

	"rvdyn/interp"
)

// A Predict names the hot path prediction scheme the dispatcher uses
// online. The zero value is NET.
type Predict uint8

// The online prediction schemes.
const (
	// PredictNET is NET (section 4.1): one counter per trace head; when it
	// exceeds the delay, the next executing tail from the head is recorded
	// and compiled.
	PredictNET Predict = iota
	// PredictPath is path profile based prediction (section 4), run online
	// as the paper's Dynamo comparison does (section 6, Figure 5): every
	// forward path executed from a trace head while interpreting is
	// recorded (the profiling cost is paid in the run: the interpreter
	// steps instruction by instruction through a recording instead of
	// running freely) and counted by its own counter; a path is compiled
	// once its counter exceeds the delay.
	PredictPath
	NumPredicts
)

var predictNames = [NumPredicts]string{"net", "path"}

// String returns the scheme's command-line name: "net" or "path".
func (p Predict) String() string {
	if p < NumPredicts {
		return predictNames[p]
	}
	return fmt.Sprintf("Predict(%d)", uint8(p))
}

// ParsePredict parses "net" or "path" (any case).
func ParsePredict(s string) (Predict, error) {
	for p, n := range predictNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Predict(p), nil
		}
	}
	return 0, fmt.Errorf("unknown prediction scheme %q (want net or path)", s)
}

// onlinePath identifies a recorded path: its head and a 64-bit FNV-1a hash of
// the pcs it executed and where it ended. Two distinct paths from one head
// sharing a hash would share a counter; that can only change which of
// them is compiled first, never what the compiled code does (the trace
// compiled is always the one just recorded).
type onlinePath struct{ head, sig uint64 }

func onlinePathOf(t *interp.Trace) onlinePath {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for range 8 {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	for _, s := range t.Steps {
		mix(s.PC)
	}
	mix(t.End)
	return onlinePath{t.Head, h}
}

// countPath counts one execution of the recorded path t and reports
// whether its counter now exceeds the delay (path profile prediction,
// section 4: a path is predicted after it executed tau times). Like a
// head's, the counter restarts after a prediction.
func (s *Selector) countPath(t *interp.Trace) bool {
	k := onlinePathOf(t)
	n, seen := s.paths[k]
	if !seen {
		s.stats.Paths++
	}
	s.stats.Profiled++
	n++
	if n > s.tau {
		s.paths[k] = 0
		s.stats.Predictions++
		return true
	}
	s.paths[k] = n
	return false
}

// Predict returns the selector's online scheme.
func (s *Selector) Predict() Predict { return s.predict }
