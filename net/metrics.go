// Prediction metrics: a path profile, a prediction scheme's captured flow and a hot threshold -> hit rate, noise, missed-opportunity cost, profiled flow (sections 3 and 5).

package net

import "fmt"

// DefaultHot is the paper's hot threshold: 0.1% of the total flow
// (section 5, Table 1), as a fraction.
const DefaultHot = 0.001

// A Scheme is a hot path prediction scheme (section 4).
type Scheme uint8

// The schemes.
const (
	SchemePathProfile Scheme = iota // path profile based prediction: one counter per path (section 4)
	SchemeNET                       // NET: one counter per path head, predict the next executing tail (section 4.1)
	// SchemeNETOnce is NET as the dispatcher runs it: once a head's
	// trace is compiled the head is no longer counted (its executions
	// enter the fragment), so each head predicts one path until a flush.
	SchemeNETOnce
	NumSchemes
)

var schemeNames = [NumSchemes]string{"path profile", "NET", "NET once"}

// String names the scheme.
func (s Scheme) String() string {
	if s < NumSchemes {
		return schemeNames[s]
	}
	return fmt.Sprintf("Scheme(%d)", uint8(s))
}

// MarshalText makes a Scheme appear by name in JSON.
func (s Scheme) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a name MarshalText wrote ("path profile", "NET",
// "NET once"), so that saved analyses can be read back (rvdyn reproduce
// --replot); any other text is an error.
func (s *Scheme) UnmarshalText(b []byte) error {
	for k, name := range schemeNames {
		if string(b) == name {
			*s = Scheme(k)
			return nil
		}
	}
	return fmt.Errorf("net: unknown prediction scheme %q", b)
}

// A Summary describes a profile as Tables 1 and 2 do.
type Summary struct {
	Paths      int     // distinct paths (#Paths)
	Heads      int     // distinct path heads (#Unique Path Heads, Table 2)
	Flow       uint64  // path executions (Flow)
	Hot        float64 // the hot threshold h as a fraction of Flow
	HotPaths   int     // |HotPath_h|
	HotFlow    uint64  // freq(HotPath_h)
	HotFlowPct float64 // freq(HotPath_h) / Flow * 100 (%Flow)
}

// Summarize computes the Table 1 and Table 2 numbers of prof with hot
// threshold hot (a fraction of the flow: a path is hot if
// freq(p) > hot*Flow, section 3's HotPath_h).
func Summarize(prof *Profile, hot float64) Summary {
	s := Summary{Paths: len(prof.Paths), Heads: len(prof.Heads), Flow: prof.Flow, Hot: hot}
	for i := range prof.Paths {
		if isHot(prof, PathID(i), hot) {
			s.HotPaths++
			s.HotFlow += prof.Paths[i].Freq
		}
	}
	s.HotFlowPct = pct(s.HotFlow, s.Flow)
	return s
}

func isHot(prof *Profile, p PathID, hot float64) bool {
	return float64(prof.Paths[p].Freq) > hot*float64(prof.Flow)
}

func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b) * 100
}

// A Result is one scheme's prediction quality at one prediction delay,
// the quantities of section 3 and Figures 2 to 4. Rates are percentages
// of the hot flow freq(HotPath_h), as in the paper; ProfiledFlow is a
// percentage of the total flow.
type Result struct {
	Scheme       Scheme
	Delay        int    // tau
	Predicted    int    // |P|: paths predicted hot
	PredictedHot int    // |P ∩ HotPath_h|
	Hits         uint64 // Hits(P): captured flow of predicted hot paths
	Noise        uint64 // Noise(P): captured flow of predicted cold paths
	MOC          uint64 // missed-opportunity cost: executions of predicted hot paths before their prediction
	HitRate      float64
	NoiseRate    float64
	MOCRate      float64
	ProfiledFlow float64 // flow not captured by any prediction (consumed by the prediction delays), % of Flow
	CounterSpace int     // counters the scheme needs: one per path, or one per head (section 5.2)
}

// PathProfileCaptured returns, per path, the flow path profile based
// prediction with delay tau captures (section 3): a path is predicted once
// it has executed tau times, and every later execution is captured, so a
// path with freq(p) > tau captures freq(p) - tau and the others nothing.
// The order of executions does not matter.
func PathProfileCaptured(prof *Profile, tau int) []uint64 {
	t := uint64(max(tau, 0))
	c := make([]uint64, len(prof.Paths))
	for i, p := range prof.Paths {
		if p.Freq > t {
			c[i] = p.Freq - t
		}
	}
	return c
}

// Score computes a scheme's Result from the flow it captured per path
// (captured[p] > 0 exactly for the predicted paths p; see
// PathProfileCaptured and NETPredictor). With Hot = HotPath_h and P the
// predicted set (section 3):
//
//	Hits      = captured flow of P ∩ Hot  (= freq(P∩Hot) - |P∩Hot|*tau for path profiles)
//	Noise     = captured flow of P - Hot  (= freq(P-Hot) - |P-Hot|*tau)
//	MOC       = freq(P∩Hot) - Hits        (= |P∩Hot|*tau)
//	HitRate   = Hits / freq(Hot) * 100,  NoiseRate = Noise / freq(Hot) * 100
//	Profiled  = (Flow - Hits - Noise) / Flow * 100   (section 5.1)
//
// For NET the captured flow of a predicted path is the executions of that
// path from its prediction on, which depends on when its head got hot,
// not on the path's own count; the general forms above reduce to the
// paper's formulas for path profile based prediction.
func Score(prof *Profile, s Scheme, tau int, captured []uint64, hot float64) Result {
	r := Result{Scheme: s, Delay: tau, CounterSpace: len(prof.Paths)}
	if s != SchemePathProfile {
		r.CounterSpace = len(prof.Heads)
	}
	var hotFlow uint64
	for i := range prof.Paths {
		f := prof.Paths[i].Freq
		h := isHot(prof, PathID(i), hot)
		if h {
			hotFlow += f
		}
		if i >= len(captured) || captured[i] == 0 {
			continue
		}
		r.Predicted++
		if h {
			r.PredictedHot++
			r.Hits += captured[i]
			r.MOC += f - captured[i]
		} else {
			r.Noise += captured[i]
		}
	}
	r.HitRate, r.NoiseRate, r.MOCRate = pct(r.Hits, hotFlow), pct(r.Noise, hotFlow), pct(r.MOC, hotFlow)
	r.ProfiledFlow = pct(prof.Flow-r.Hits-r.Noise, prof.Flow)
	return r
}
