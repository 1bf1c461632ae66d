// Profiles: messages (or every tuple, for the perfect profiler) in, per-tuple and per-pc counts out.

package profhw

// A Profile is a table of tuple counts and per-pc counts. It plays two
// roles. As a Sink it is the profiling software of the stratified paper
// (section 2.2): it folds each (tuple, count) message into the profile and
// counts the messages, which is what the overhead model charges for. As a
// Compressor (Feed) it is the perfect profiler, the "ideal profile" of
// section 5.3.1, which "accumulates all generated events, rather than just
// the samples": every tuple counts once. Counts are exact 64-bit integers.
//
// The zero value is not usable; use NewProfile.
type Profile struct {
	tuples   *tupleTable
	pcs      *tupleTable // keyed by Tuple{PC: pc}
	messages uint64
	total    uint64
}

// NewProfile returns an empty profile.
func NewProfile() *Profile {
	return &Profile{tuples: newTupleTable(1024), pcs: newTupleTable(256)}
}

// Message folds a message into the profile.
func (p *Profile) Message(t Tuple, count uint64) {
	p.tuples.Add(t, count)
	p.pcs.Add(Tuple{PC: t.PC}, count)
	p.messages++
	p.total += count
}

// Feed counts every tuple of ts once: the perfect profiler.
func (p *Profile) Feed(ts []Tuple) {
	for i := range ts {
		p.tuples.Add(ts[i], 1)
		p.pcs.Add(Tuple{PC: ts[i].PC}, 1)
	}
	p.total += uint64(len(ts))
}

// Reset empties the profile.
func (p *Profile) Reset(seed uint64) {
	p.tuples.Reset()
	p.pcs.Reset()
	p.messages, p.total = 0, 0
}

// Count returns n(v): the occurrences of tuple v in the profile.
func (p *Profile) Count(v Tuple) uint64 { n, _ := p.tuples.Get(v); return n }

// PCCount returns n(pc): the occurrences of all tuples whose first word is
// pc (the tagged pc, so profiles of different kinds never mix).
func (p *Profile) PCCount(pc uint64) uint64 { n, _ := p.pcs.Get(Tuple{PC: pc}); return n }

// Messages returns the number of messages folded in (0 for a perfect
// profile).
func (p *Profile) Messages() uint64 { return p.messages }

// Total returns the sum of all counts.
func (p *Profile) Total() uint64 { return p.total }

// Distinct returns the number of distinct tuples.
func (p *Profile) Distinct() int { return p.tuples.Len() }

// Each calls fn for every tuple and its count, in a deterministic order.
func (p *Profile) Each(fn func(v Tuple, n uint64)) { p.tuples.Each(fn) }
