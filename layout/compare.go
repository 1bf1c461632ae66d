// Profile comparison: a statistical and a complete basic-block profile -> the chi-square statistic (the paper's Table 5) and key matching scores (Figure 4).

package layout

import (
	"math"
	"math/rand/v2"
	"sort"
)

// ChiTrials is the number of "trials" both profiles are normalized to
// before the chi-square test (the paper's section 4.2.2: "the data sets
// are normalized so that they all appear to include the same number of
// trials"; it does not give its number). The statistic grows linearly
// with it, so only values computed with the same ChiTrials compare.
const ChiTrials = 1e6

// ChiSquare returns the chi-square goodness-of-fit statistic of observed
// against expected (the complete profile), both scaled to ChiTrials:
// the sum over blocks with an expected count of (O-E)^2/E. Blocks the
// complete profile never executed have no expected count; observed
// weight on them (impossible when both profiles come from the same input)
// is returned as stray, a share of the observed total. An empty observed
// profile (no samples) fits nothing: chi2 is +Inf, never the 0 of a
// perfect fit; an empty expected profile leaves the statistic undefined
// (NaN).
func ChiSquare(observed, expected Profile) (chi2, stray float64) {
	to, te := observed.Total(), expected.Total()
	switch {
	case te == 0:
		return math.NaN(), 0
	case to == 0:
		return math.Inf(1), 0
	}
	for i, e := range expected {
		o := observed[i] / to * ChiTrials
		if e == 0 {
			stray += observed[i] / to
			continue
		}
		e = e / te * ChiTrials
		chi2 += (o - e) * (o - e) / e
	}
	return chi2, stray
}

// GoodMatch is the paper's "good match" reference profile: every block
// count of the complete profile scaled by a random real uniform in
// [1, 10), standing for the difference a block's CPI makes between a
// time-based and a frequency-based profile.
func GoodMatch(complete Profile, seed uint64) Profile {
	r := rand.New(rand.NewPCG(seed, 1))
	p := make(Profile, len(complete))
	for i, c := range complete {
		p[i] = c * (1 + 9*r.Float64())
	}
	return p
}

// Expected is the paper's "expected" reference profile: GoodMatch with
// every block whose complete count is below 2% of the largest set to
// zero, standing for blocks a statistical profile never samples.
func Expected(complete Profile, seed uint64) Profile {
	p := GoodMatch(complete, seed)
	var top float64
	for _, c := range complete {
		top = max(top, c)
	}
	for i, c := range complete {
		if c < 0.02*top {
			p[i] = 0
		}
	}
	return p
}

// KeyMatch is Wall's key matching (the paper's section 4.2.3): blocks
// are ranked by weight in each profile (ties by address), and f(n) is
// the number of blocks in the top n of both. It returns f(1..n) for n up
// to the number of blocks the reference profile executed (or max, if
// smaller and positive).
func KeyMatch(reference, other Profile, max int) []int {
	ra, rb := rank(reference), rank(other)
	n := 0
	for _, w := range reference {
		if w > 0 {
			n++
		}
	}
	if max > 0 && max < n {
		n = max
	}
	inA := make([]bool, len(reference))
	inB := make([]bool, len(reference))
	f := make([]int, n)
	score := 0
	for k := range n {
		a, b := ra[k], rb[k]
		inA[a], inB[b] = true, true
		if a == b {
			score++
		} else {
			if inB[a] {
				score++
			}
			if inA[b] {
				score++
			}
		}
		f[k] = score
	}
	return f
}

// rank returns block indices by decreasing weight, ties by index.
func rank(p Profile) []int {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return p[idx[i]] > p[idx[j]] })
	return idx
}
