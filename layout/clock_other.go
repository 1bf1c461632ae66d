//go:build !linux

// Time-based PC sampling where there is no perf_event or eBPF: every constructor says so.

package layout

import "errors"

// ErrClockUnavailable: the time-based sampler needs Linux.
var ErrClockUnavailable = errors.New("layout: time-based sampler unavailable (needs Linux perf_event and eBPF)")

// DefaultHz is the paper's sampling rate (section 3.1).
const DefaultHz = 1000

// MaxHz is the highest sampling rate NewClockSampler would accept.
const MaxHz = 100000

// A ClockSampler is unavailable on this system.
type ClockSampler struct{}

// NewClockSampler returns ErrClockUnavailable.
func NewClockSampler(hz int) (*ClockSampler, error) { return nil, ErrClockUnavailable }

// Attach returns ErrClockUnavailable.
func (s *ClockSampler) Attach(tid int) error { return ErrClockUnavailable }

// AttachThread returns ErrClockUnavailable.
func (s *ClockSampler) AttachThread() error { return ErrClockUnavailable }

// Stop does nothing.
func (s *ClockSampler) Stop() {}

// Counts returns ErrClockUnavailable.
func (s *ClockSampler) Counts() (map[uint64]uint64, error) { return nil, ErrClockUnavailable }

// EpochCounts returns ErrClockUnavailable.
func (s *ClockSampler) EpochCounts() (map[ClockKey]uint64, error) { return nil, ErrClockUnavailable }

// SetEpoch returns ErrClockUnavailable.
func (s *ClockSampler) SetEpoch(e uint64) error { return ErrClockUnavailable }

// Reset returns ErrClockUnavailable.
func (s *ClockSampler) Reset() error { return ErrClockUnavailable }

// Close does nothing.
func (s *ClockSampler) Close() error { return nil }
