// Time-based sample sets in the experiment: rvdyn-hosted runs (guest pcs) and native runs (samples by function) -> sample sets over the guest's text.

package layout

// ClockFunc runs image with argv under rvdyn with the time-based sampler
// attached and returns the samples mapped to guest pcs (the root
// package's VM.RunClockSampled; cmd/rvdyn supplies it) and how many
// samples fell outside the code cache.
type ClockFunc func(image []byte, argv []string) (set SampleSet, unmapped float64, err error)

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
	// known only by function (Options.NativeClock; see FuncSampleSet).
	ClockNative SetKind = "clock-native"
)

// FuncSampleSet turns samples by function name into a sample set over
// p's text: a function's samples are spread evenly over its
// instructions, since a native build's PCs say which function ran but
// not which of the guest's blocks (the two instruction sets have no
// common addresses). Names p lacks (host library code, functions the
// host compiler inlined or the guest build lacks) are returned as
// unmapped.
func (p *Program) FuncSampleSet(funcs map[string]uint64) (set SampleSet, unmapped float64) {
	byName := make(map[string]int, len(p.Procs))
	for i, q := range p.Procs {
		byName[q.Name] = i
	}
	set = SampleSet{}
	for name, n := range funcs {
		i, ok := byName[name]
		if !ok || p.Procs[i].Size < 4 {
			unmapped += float64(n)
			continue
		}
		q := p.Procs[i]
		per := float64(n) / float64(q.Size/4)
		for a := q.Addr; a+4 <= q.Addr+q.Size; a += 4 {
			set[a] += per
		}
	}
	return set, unmapped
}
