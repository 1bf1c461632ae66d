// The experiment's sample-set families: where a family of sample sets came from (frequency, clock under rvdyn, clock of the native build) and the functions that take the time-based ones.

package placement

import "rvdyn/layout"

// ClockFunc runs image with argv under rvdyn with the time-based sampler
// attached and returns the samples mapped to guest pcs (the root
// package's VM.RunClockSampled; cmd/rvdyn supplies it) and how many
// samples fell outside the code cache.
type ClockFunc func(image []byte, argv []string) (set layout.SampleSet, unmapped float64, err error)

// NativeClockFunc runs the guest's native host build with argv under the
// time-based sampler and returns its samples by function symbol ("?"
// for PCs outside the program: the C library, the loader).
type NativeClockFunc func(guest string, argv []string) (map[string]uint64, error)

// A SetKind names where a family of sample sets came from.
type SetKind string

// The sample sets of the experiment.
const (
	// Frequency: one sample per Options.Period retired guest
	// instructions at a seeded random offset (exact; Options.Sample).
	Frequency SetKind = "frequency"
	// ClockRvdyn: cpu-clock samples of rvdyn running the guest, those in
	// the code cache mapped to guest pcs (Options.Clock).
	ClockRvdyn SetKind = "clock-rvdyn"
	// ClockNative: cpu-clock samples of the guest's native x86-64 build,
	// known only by function (Options.NativeClock; see layout.Program.FuncSampleSet).
	ClockNative SetKind = "clock-native"
)
