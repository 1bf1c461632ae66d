// The Monte Carlo experiment of Figure 4: stream length, sampling rate and sampler list in, the mean error of each sampler's estimate of one tuple's frequency out (stratified 3.3).

package hwprofile

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"rvdyn/profhw"
)

// MonteCarloOptions parameterizes MonteCarlo. Zero fields take the paper's
// values (stratified section 3.3, Figure 4).
type MonteCarloOptions struct {
	// Samplers in the papers' notation; default R_r, P_r, CR_r, H[P_r]_n,
	// H[R_r]_n, H[CR_r]_n with r = Rate and n = Substreams.
	Samplers   []string
	Rate       uint64  // r; paper: 10
	Substreams int     // n; default 2048 (the paper does not give n for Figure 4)
	Sizes      []int   // stream lengths N; paper: 1000 to 20000 (we step by 1000)
	Trials     int     // experiments per N; paper: 2500
	Share      float64 // t/N, the share of the tuple p; paper: 0.3
	// Distinct is the number of distinct tuples the other (1-Share)N
	// elements are drawn from, uniformly; 0 means every other element is a
	// distinct random tuple. The paper does not say.
	Distinct int
	// Estimator is how software estimates t from the messages of a
	// sampler with a counter (CR_r, H[CR_r]_n); see CountEstimator.
	Estimator CountEstimator
	Seed      uint64
	Workers   int // goroutines; 0 means GOMAXPROCS
}

// A CountEstimator is how software turns the messages of a sampler with a
// counter into an estimate of t, the occurrences of a tuple p.
type CountEstimator uint8

const (
	// EstimateRatio (the default) uses what the counter tells software,
	// the exact length of the (sub)stream, as the paper's reasoning does
	// (section 3.1: "CR_r has access to the same information as P_r";
	// footnote 1: stratification helps "when the size of the
	// subpopulations is known"): EST = L * k_p / k, with L the sum of the
	// counts of the k messages of p's substream (the whole stream for
	// CR_r), k_p of which carry p. This is the textbook stratified
	// estimator [22].
	EstimateRatio CountEstimator = iota
	// EstimateSum is the rule as section 3.3 words it: EST = the sum of
	// the counts of the messages that carry p. With a message's count
	// being the elements since the previous sample, this credits p with
	// the gaps before its samples, and CR_r comes out worse than R_r (the
	// variance of EST grows from N f(1-f)(r-1) for P_r to about
	// N f(1-f)(2r-1), f = t/N), contradicting the paper's Figure 4.
	EstimateSum
)

// ParseCountEstimator parses "ratio" or "sum".
func ParseCountEstimator(s string) (CountEstimator, error) {
	switch s {
	case "ratio":
		return EstimateRatio, nil
	case "sum":
		return EstimateSum, nil
	}
	return 0, fmt.Errorf("profhw: unknown estimator %q (want ratio or sum): %w", s, profhw.ErrConfig)
}

// String returns "ratio" or "sum".
func (e CountEstimator) String() string {
	if e == EstimateSum {
		return "sum"
	}
	return "ratio"
}

// An MCRow is the mean error of one sampler at one stream length.
type MCRow struct {
	Sampler   string  `json:"sampler"`    // paper notation, e.g. "H[P10]2048"
	N         int     `json:"n"`          // stream length
	MeanError float64 `json:"mean_error"` // fraction
}

func (o *MonteCarloOptions) defaults() {
	if o.Rate == 0 {
		o.Rate = 10
	}
	if o.Substreams == 0 {
		o.Substreams = 2048
	}
	if len(o.Samplers) == 0 {
		r, n := o.Rate, o.Substreams
		o.Samplers = []string{
			fmt.Sprintf("R%d", r), fmt.Sprintf("P%d", r), fmt.Sprintf("CR%d", r),
			fmt.Sprintf("H[P%d]%d", r, n), fmt.Sprintf("H[R%d]%d", r, n), fmt.Sprintf("H[CR%d]%d", r, n),
		}
	}
	if len(o.Sizes) == 0 {
		for n := 1000; n <= 20000; n += 1000 {
			o.Sizes = append(o.Sizes, n)
		}
	}
	if o.Trials == 0 {
		o.Trials = 2500
	}
	if o.Share == 0 {
		o.Share = 0.3
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// MonteCarlo runs the experiment of the stratified paper, section 3.3: for
// each stream length N, Trials times, it randomly permutes a sequence of N
// tuples holding t = Share*N copies of a tuple p, feeds the same stream to
// every sampler, and estimates t from the sampler's messages: for samplers
// without a counter, EST = i*r with i the messages that carry p; for those
// with a counter, by Estimator. The error of a trial is the paper's
// ERR = |t - EST| / EST (as a fraction; 1 if EST is 0), and a row holds its
// mean over the trials. Rows come sampler by sampler, N ascending.
//
// The result is a pure function of the options: every trial has its own
// seed, and per-trial errors are summed in trial order whatever the number
// of workers. The error wraps ErrConfig for a sampler it cannot parse or
// that is not a compressor.
func MonteCarlo(o MonteCarloOptions) ([]MCRow, error) {
	o.defaults()
	if o.Share <= 0 || o.Share > 1 {
		return nil, fmt.Errorf("profhw: Monte Carlo share %v not in (0, 1]: %w", o.Share, profhw.ErrConfig)
	}
	cfgs := make([]profhw.Config, len(o.Samplers))
	for i, s := range o.Samplers {
		c, err := profhw.ParseConfig(s)
		if err != nil {
			return nil, err
		}
		if c.Kind == profhw.ConfigInterval {
			return nil, fmt.Errorf("profhw: Monte Carlo: %s is not a sampler: %w", s, profhw.ErrConfig)
		}
		cfgs[i] = c
	}
	maxN := 0
	for _, n := range o.Sizes {
		if n < 1 {
			return nil, fmt.Errorf("profhw: Monte Carlo stream length %d: %w", n, profhw.ErrConfig)
		}
		maxN = max(maxN, n)
	}
	errs := make([]float32, len(o.Sizes)*o.Trials*len(cfgs)) // [size][trial][sampler]
	var next atomic.Int64
	jobs := int64(len(o.Sizes) * o.Trials)
	var wg sync.WaitGroup
	var buildErr error
	var once sync.Once
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := profhw.Tuple{PC: 0x10078, Val: 0x2a}
			sinks := make([]mcSink, len(cfgs))
			comps := make([]profhw.Compressor, len(cfgs))
			for i, c := range cfgs {
				sinks[i].p = p
				sinks[i].ratio = o.Estimator == EstimateRatio && c.Sampler == profhw.SamplerCountedRandom && c.Kind == profhw.ConfigSampler
				comp, err := c.NewCompressor(profhw.DeriveSeed(o.Seed, c.SeedLabel()), &sinks[i])
				if err != nil {
					once.Do(func() { buildErr = err })
					return
				}
				if s, ok := comp.(*profhw.Stratified); ok {
					sinks[i].hash = s.Hash()
					sinks[i].hp = s.Hash().Index(p)
				}
				comps[i] = comp
			}
			stream := make([]profhw.Tuple, maxN)
			pool := make([]profhw.Tuple, o.Distinct)
			for {
				j := next.Add(1) - 1
				if j >= jobs {
					return
				}
				si, trial := int(j)/o.Trials, int(j)%o.Trials
				n := o.Sizes[si]
				r := profhw.NewRNG(profhw.DeriveSeed(o.Seed, fmt.Sprintf("mc/%d/%d", n, trial)))
				t := mcStream(stream[:n], pool, p, o.Share, &r)
				for i, c := range comps {
					c.Reset(r.Uint64())
					sinks[i].reset()
					c.Feed(stream[:n])
					est := sinks[i].estimate()
					e := 1.0
					if est > 0 {
						e = math.Abs(float64(t)-est) / est
					}
					errs[(si*o.Trials+trial)*len(cfgs)+i] = float32(e)
				}
			}
		}()
	}
	wg.Wait()
	if buildErr != nil {
		return nil, buildErr
	}
	var rows []MCRow
	for i, c := range cfgs {
		for si, n := range o.Sizes {
			var sum float64
			for trial := 0; trial < o.Trials; trial++ {
				sum += float64(errs[(si*o.Trials+trial)*len(cfgs)+i])
			}
			rows = append(rows, MCRow{Sampler: c.String(), N: n, MeanError: sum / float64(o.Trials)})
		}
	}
	return rows, nil
}

// mcStream fills s with t = round(share*len(s)) copies of p and other
// tuples, randomly permuted, and returns t. If pool is not empty the other
// tuples are drawn from it (after filling it with random tuples).
func mcStream(s, pool []profhw.Tuple, p profhw.Tuple, share float64, r *profhw.RNG) uint64 {
	t := int(share*float64(len(s)) + 0.5)
	for i := range pool {
		pool[i] = profhw.MakeTuple(profhw.KindNone, r.Uint64()&^3, r.Uint64())
	}
	for i := range s {
		switch {
		case i < t:
			s[i] = p
		case len(pool) > 0:
			s[i] = pool[r.Below(uint64(len(pool)))]
		default:
			s[i] = profhw.MakeTuple(profhw.KindNone, r.Uint64()&^3, r.Uint64())
		}
	}
	for i := len(s) - 1; i > 0; i-- {
		j := r.Below(uint64(i + 1))
		s[i], s[j] = s[j], s[i]
	}
	return uint64(t)
}

// mcSink is the software side of one Monte Carlo sampler: it keeps what
// the estimators need about p and p's substream.
type mcSink struct {
	p     profhw.Tuple
	ratio bool
	hash  *profhw.Hash // the splitter's hash, nil if not stratified
	hp    uint32       // p's substream
	pSum  uint64       // counts of the messages that carry p
	pMsgs uint64       // messages that carry p
	sum   uint64       // counts of all messages of p's substream
	msgs  uint64       // messages of p's substream
}

func (s *mcSink) reset() { s.pSum, s.pMsgs, s.sum, s.msgs = 0, 0, 0, 0 }

func (s *mcSink) Message(t profhw.Tuple, count uint64) {
	if s.ratio && s.hash != nil && s.hash.Index(t) != s.hp {
		return
	}
	s.sum += count
	s.msgs++
	if t == s.p {
		s.pSum += count
		s.pMsgs++
	}
}

func (s *mcSink) estimate() float64 {
	if !s.ratio {
		return float64(s.pSum)
	}
	if s.msgs == 0 {
		return 0
	}
	return float64(s.sum) * float64(s.pMsgs) / float64(s.msgs)
}

// SamplerClass returns the equivalence class of Figure 4 that the sampler
// named in notation belongs to: 0 for {R_r, H[R_r]_n} (worst), 1 for
// {P_r, CR_r} (middle), 2 for {H[P_r]_n, H[CR_r]_n} (best), and -1 for
// anything else (tagged, two-level, interval profilers).
func SamplerClass(notation string) int {
	c, err := profhw.ParseConfig(notation)
	if err != nil || c.Kind != profhw.ConfigSampler || c.Assoc > 0 {
		return -1
	}
	switch {
	case c.Sampler == profhw.SamplerRandom:
		return 0
	case c.Substreams == 0:
		return 1
	}
	return 2
}

// CheckOrdering checks the paper's finding on Monte Carlo rows: at every
// N, every sampler of a better class (SamplerClass) has a lower mean error
// than every sampler of a worse class. It returns one line per violation,
// or nil if the ordering holds everywhere.
func CheckOrdering(rows []MCRow) []string {
	byN := map[int][]MCRow{}
	var ns []int
	for _, r := range rows {
		if _, ok := byN[r.N]; !ok {
			ns = append(ns, r.N)
		}
		byN[r.N] = append(byN[r.N], r)
	}
	var bad []string
	for _, n := range ns {
		rs := byN[n]
		for _, a := range rs {
			for _, b := range rs {
				ca, cb := SamplerClass(a.Sampler), SamplerClass(b.Sampler)
				if ca >= 0 && cb >= 0 && ca < cb && a.MeanError <= b.MeanError {
					bad = append(bad, fmt.Sprintf("N=%d: %s (%.4f) is not worse than %s (%.4f)",
						n, a.Sampler, a.MeanError, b.Sampler, b.MeanError))
				}
			}
		}
	}
	return bad
}
