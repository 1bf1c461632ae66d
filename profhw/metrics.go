// Error and overhead of a software profile: ideal and sampled profiles in, the invariance-weighted error and the message overhead out (stratified 5.3).

package profhw

// An InvarianceFilter selects the tuples the value-profile error is computed
// over (stratified paper, section 5.3.1): a static instruction (pc) only if
// it executes at least MinExec times; a tuple only if it accounts for at
// least MinShare of its pc's executions ("sufficiently invariant"); and a
// pc only if its sufficiently invariant tuples together account for at least
// MinCoverage of its executions. The thresholds are applied to the ideal
// profile.
type InvarianceFilter struct {
	MinExec     uint64  // executions of a pc; paper: 1000
	MinShare    float64 // share of a tuple in its pc's executions; paper: 0.10
	MinCoverage float64 // share of a pc's executions covered by selected tuples; paper: 0.40
}

// PaperFilter is the filter of section 5.3.1.
var PaperFilter = InvarianceFilter{MinExec: 1000, MinShare: 0.10, MinCoverage: 0.40}

// An InvarianceError is the error of one profile for one profile kind.
type InvarianceError struct {
	// Error is e = sum over selected tuples v of f(v)/f * |I_i(v) - I_p(v)|,
	// a fraction in [0, 1]: I_i(v) = n_i(v)/n_i(pc) is the invariance in the
	// ideal profile and I_p(v) = n_p(v)/n_p(pc) the one the profiler
	// estimates (0 if it never reported pc).
	Error float64
	// Weight is f, the ideal executions of all selected tuples. Zero means
	// no tuple passed the filter and Error is 0 by convention.
	Weight uint64
	// Selected is the number of selected tuples.
	Selected int
}

// InvarianceErrors computes the error of section 5.3.1 of each profile in
// got against the ideal profile, per profile kind: out[i][k] is the error of
// got[i] over the selected tuples of kind k. The paper defines the metric
// for value profiles; we apply the same formula to edge and call-target
// profiles, where the "invariance" of <pc, target> is the share of pc's
// executions that go to target (the paper's section 5.7 reports an error for
// these profiles without restating it).
func InvarianceErrors(ideal *Profile, got []*Profile, f InvarianceFilter) [][NumKinds]InvarianceError {
	out := make([][NumKinds]InvarianceError, len(got))
	// Pass 1: sum, per pc, the ideal counts of sufficiently invariant tuples.
	covered := newTupleTable(256)
	ideal.Each(func(v Tuple, n uint64) {
		if shareOK(ideal, v, n, f) {
			covered.Add(Tuple{PC: v.PC}, n)
		}
	})
	// Pass 2: weight the invariance error of each selected tuple.
	sums := make([][NumKinds]float64, len(got))
	ideal.Each(func(v Tuple, n uint64) {
		if !shareOK(ideal, v, n, f) {
			return
		}
		npc := ideal.PCCount(v.PC)
		cov, _ := covered.Get(Tuple{PC: v.PC})
		if float64(cov) < f.MinCoverage*float64(npc) {
			return
		}
		k := v.Kind()
		ii := float64(n) / float64(npc)
		for i, p := range got {
			var ip float64
			if pn := p.PCCount(v.PC); pn > 0 {
				ip = float64(p.Count(v)) / float64(pn)
			}
			d := ii - ip
			if d < 0 {
				d = -d
			}
			sums[i][k] += float64(n) * d
			out[i][k].Weight += n
			out[i][k].Selected++
		}
	})
	for i := range out {
		for k := range out[i] {
			if w := out[i][k].Weight; w > 0 {
				out[i][k].Error = sums[i][k] / float64(w)
			}
		}
	}
	return out
}

func shareOK(ideal *Profile, v Tuple, n uint64, f InvarianceFilter) bool {
	npc := ideal.PCCount(v.PC)
	return npc >= f.MinExec && npc > 0 && float64(n) >= f.MinShare*float64(npc)
}

// CyclesPerMessage is the cost of one message to software in the overhead
// model of the stratified paper, section 5.3.2: 10-30 cycles to fold a
// message in plus under 3 cycles of interrupt cost amortized over at least
// 100 messages, taken as 30 in the worst case.
const CyclesPerMessage = 30

// Overhead returns the profiling overhead of section 5.3.2 as a fraction:
// cyclesPerMessage * messages / instructions. The paper divides by the
// simulated cycles of its 4-way machine; we divide by guest instructions
// retired (one cycle per instruction), since the interpreter has no timing
// model. It returns 0 if instructions is 0.
func Overhead(messages, instructions uint64, cyclesPerMessage float64) float64 {
	if instructions == 0 {
		return 0
	}
	return cyclesPerMessage * float64(messages) / float64(instructions)
}
