// The time-based sampler's histogram key: a host PC and the epoch it was sampled in.

package layout

// A ClockKey is one bucket of the time-based sampler's histogram: the
// interrupted user-mode PC and the epoch the sampler was in
// (ClockSampler.SetEpoch), laid out as the eBPF program writes it (two
// little-endian 64-bit words, PC first).
type ClockKey struct {
	IP    uint64
	Epoch uint64
}
