// Cache policies: the prediction rate and cache share per window of guest instructions -> phase-change flushes and bail-out.

package codecache

import "fmt"

// DefaultPolicy returns the policy parameters that the zero fields of a
// PolicyOptions stand for.
func DefaultPolicy() PolicyOptions {
	return PolicyOptions{Window: 1 << 24, PhaseFactor: 4, PhaseMinBurst: 16, BailShare: 0.5, BailWindows: 8, ThrashWindows: 4, ThrashFlushes: 32}
}

// PolicyOptions tune the code cache's reactions to program behaviour,
// after section 6.1 of Duesterwald and Bala, "Software Profiling for Hot
// Path Prediction: Less is More" (ASPLOS 2000; Dynamo's
// flushing heuristic) and Dynamo's bail-out. The prediction rate is
// measured in windows of Window retired guest instructions. The zero value
// of every field means its default:
//
//	field          default     meaning
//	NoPhaseFlush   false       the phase-change flush is on
//	FullPhaseFlush false       it keeps the fragments built in the window that showed the new phase
//	NoBailout      false       bailing out to the interpreter is on
//	NoCutFlush     false       the flush after a fast interval is cut short is on
//	CutRecord      false       that flush compiles the cache's traces again instead of recording them afresh
//	Window         16M         guest instructions per measuring window
//	PhaseFactor    4           a new phase builds more than this times the usual fragments per window...
//	PhaseMinBurst  16          ...and at least this many (doubled after each flush whose fragments come back: Policy.Regret)
//	BailShare      0.5         bail out below this share of instructions run in the cache...
//	BailWindows    8           ...in this many consecutive windows
//	ThrashWindows  4           or after this many consecutive windows each with a capacity flush
//	ThrashFlushes  32          or at once when one window has had this many capacity flushes
type PolicyOptions struct {
	// NoPhaseFlush disables the phase-change flush.
	NoPhaseFlush bool
	// FullPhaseFlush makes the phase-change flush empty the whole cache
	// at every phase change (`--disable phase-keep`).
	// Dynamo flushes as the prediction rate rises, so the new phase's
	// traces are predicted after the flush; a Policy sees the rise only
	// when the window that holds it closes, by when the new phase's
	// traces are built. So by default the dispatcher keeps the fragments
	// built since that window opened (Fragment.Built >= WindowStart's
	// value before the Tick) and removes the older ones, the outcome of
	// a flush at the window's start; this flag restores the whole-cache
	// flush at the window's end, which throws the new phase's traces
	// away with the noise and builds them again.
	FullPhaseFlush bool
	// NoBailout disables bailing out to the interpreter.
	NoBailout bool
	// NoCutFlush disables the flush after a munmap or mprotect cut a
	// fast interval of guest memory short (Policy.Cut; `--disable
	// cut-flush`).
	NoCutFlush bool
	// CutRecord makes the flush after a cut empty the cache and let
	// prediction start afresh, the traces recorded again (`--disable
	// cut-retranslate`). By default the dispatcher compiles the traces
	// of the fragments in the cache again, against the new layout, and
	// records nothing: the traces stay the ones the program's hot paths
	// chose, not those of the moment after the cut.
	CutRecord bool
	// Window is the measuring window, in guest instructions.
	Window uint64
	// PhaseFactor and PhaseMinBurst define a "sudden and sharp increase
	// in the prediction rate" (the paper gives no numbers): a window that
	// creates at least PhaseMinBurst fragments and more than PhaseFactor
	// times the running average of earlier windows starts a new phase,
	// and the cache is flushed so that the fragments of the old phase
	// (phase-induced noise) go. The traces of the new phase are then
	// predicted afresh.
	PhaseFactor   float64
	PhaseMinBurst int
	// BailShare and BailWindows define a program whose fragments are not
	// reused: if fewer than BailShare of the instructions of BailWindows
	// consecutive windows ran in the code cache, rvdyn gives up
	// optimizing and interprets the rest of the run (Dynamo bails out to
	// native execution for such programs, e.g. go and gcc in the paper).
	BailShare   float64
	BailWindows int
	// ThrashWindows defines a code cache too small for the program's
	// working set: if each of ThrashWindows consecutive windows had to
	// flush the full cache, rvdyn bails out as above. Such a run keeps a
	// high cache share, but re-records and recompiles its traces over and
	// over, and can run many times slower than the interpreter (the
	// Scheme guest in a 16 KiB cache: 410 s against 13.8 s interpreted).
	ThrashWindows int
	// ThrashFlushes bails out at once, without waiting for the window to
	// close, when this many capacity flushes came in one window: a cache
	// that small for the working set makes the guest retire instructions
	// so slowly that ThrashWindows windows take minutes (the fft guest,
	// every head compiled at once, in a 16 KiB cache: 1,452 flushes and
	// 10 s in its first 5M instructions, 200 times the interpreter's
	// time). A flush every half a million instructions or more often
	// throws fragments away before their reuse pays for them.
	ThrashFlushes int
}

// withDefaults returns o with every zero field set to its default.
func (o PolicyOptions) withDefaults() PolicyOptions {
	d := DefaultPolicy()
	if o.Window == 0 {
		o.Window = d.Window
	}
	if o.PhaseFactor == 0 {
		o.PhaseFactor = d.PhaseFactor
	}
	if o.PhaseMinBurst == 0 {
		o.PhaseMinBurst = d.PhaseMinBurst
	}
	if o.BailShare == 0 {
		o.BailShare = d.BailShare
	}
	if o.BailWindows == 0 {
		o.BailWindows = d.BailWindows
	}
	if o.ThrashWindows == 0 {
		o.ThrashWindows = d.ThrashWindows
	}
	if o.ThrashFlushes == 0 {
		o.ThrashFlushes = d.ThrashFlushes
	}
	return o
}

// A Decision is what a Policy asks the dispatcher to do.
type Decision uint8

// The decisions.
const (
	KeepGoing  Decision = iota // nothing to do
	PhaseFlush                 // a new phase began: flush the cache
	BailOut                    // optimizing does not pay: flush the cache and interpret the rest of the run
)

var decisionNames = [...]string{"keep going", "phase flush", "bail out"}

// String names the decision.
func (d Decision) String() string {
	if int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return fmt.Sprintf("Decision(%d)", uint8(d))
}

// A Policy applies PolicyOptions over one run: the dispatcher calls Tick
// whenever it regains control, and the policy closes windows as
// instructions accumulate. It watches how many traces are built, not
// which code is hot: that is package net's business.
type Policy struct {
	o           PolicyOptions
	windowEnd   uint64  // retired count at which the current window closes
	fragsAtOpen uint64  // fragments built when the window opened
	cacheAtOpen uint64  // cache instructions when the window opened
	fullAtOpen  uint64  // capacity flushes when the window opened
	avg         float64 // running average of fragments per window (EMA, 1/4)
	windows     int     // windows closed since the start or the last phase flush
	lowShare    int     // consecutive windows with a low cache share
	thrashing   int     // consecutive windows with a capacity flush
	minBurst    float64 // PhaseMinBurst, doubled by each premature phase flush (Regret)
	backoffs    int     // phase flushes found premature
	cutSeen     uint64  // interval cuts answered (Cut)
	cutNext     uint64  // retired count before which Cut flushes no more
	cutGap      uint64  // the spacing after the next cut flush, doubled by each
}

// NewPolicy returns a policy at the start of a run.
func NewPolicy(o PolicyOptions) *Policy {
	o = o.withDefaults()
	return &Policy{o: o, windowEnd: o.Window, minBurst: float64(o.PhaseMinBurst), cutGap: max(o.Window/16, 1)}
}

// Cut is called at the dispatcher's safe point with the run's retired
// instructions, the count of fast-interval cuts so far
// (interp.Machine.IntervalCuts) and whether the cache is empty, and
// reports whether to answer the cuts since the last answer. A munmap or
// mprotect that cuts the heap's or the stack's interval short, or takes
// pages from the mappings' interval, leaves compiled code correct but
// testing its intervals in the order its recording found (an array that
// glibc mapped, reached through cold code once the mapping below it is
// unmapped); the dispatcher then compiles again, against the new layout,
// the fragments whose code it changes (or, with CutRecord, flushes the
// cache and lets them be recorded again). The first cut flushes at once, and each flush
// doubles the instructions before the next (from Window/16), so a
// program that maps and unmaps all the time pays a few flushes, not one
// per munmap; a cut while the cache is empty (a dynamic loader mapping
// libraries at start-up) costs nothing and uses none of that spacing.
// This flush is ours: Dynamo's cache holds no assumption about the
// guest's memory layout.
func (p *Policy) Cut(retired, cuts uint64, empty bool) bool {
	if p.o.NoCutFlush || cuts == p.cutSeen || retired < p.cutNext {
		return false
	}
	p.cutSeen = cuts
	if empty {
		return false
	}
	p.cutNext = retired + p.cutGap
	p.cutGap *= 2
	return true
}

// Regret reports how a phase flush turned out: of the removed fragments,
// rebuilt had their heads predicted and compiled again within a window.
// When that is a quarter or more, the old phase's paths were still in
// use (phases that share their hot code, like the Scheme guest's
// programs sharing its evaluator: a third to a half of what its flushes
// remove comes back in the first window), and the flush cost more
// recompiles than the noise it removed was worth (noise costs nothing
// while the cache has room). The policy then doubles the burst a phase
// change needs from now on. This back-off is ours: the paper flushes on
// every detected phase change.
func (p *Policy) Regret(removed, rebuilt int) {
	if removed > 0 && 4*rebuilt >= removed {
		p.minBurst *= 2
		p.backoffs++
	}
}

// Backoffs returns how many phase flushes Regret found premature.
func (p *Policy) Backoffs() int { return p.backoffs }

// WindowStart returns the retired guest instruction count at which the
// current window opened.
func (p *Policy) WindowStart() uint64 { return p.windowEnd - p.o.Window }

// Tick is called with the counts of the run so far: retired guest
// instructions, traces built (the paper's prediction activity),
// instructions run in the cache and capacity flushes. It decides when a
// window closes, or at once when the window's capacity flushes reach
// ThrashFlushes, and KeepGoing otherwise.
func (p *Policy) Tick(retired, traces, cache, full uint64) Decision {
	if !p.o.NoBailout && full-p.fullAtOpen >= uint64(p.o.ThrashFlushes) {
		return BailOut // thrashing: ThrashFlushes
	}
	if retired < p.windowEnd {
		return KeepGoing
	}
	built := float64(traces - p.fragsAtOpen)
	share := float64(cache-p.cacheAtOpen) / float64(retired-(p.windowEnd-p.o.Window))
	p.windowEnd = retired + p.o.Window
	flushed := full > p.fullAtOpen
	p.fragsAtOpen, p.cacheAtOpen, p.fullAtOpen = traces, cache, full
	p.windows++

	d := KeepGoing
	if !p.o.NoPhaseFlush && p.windows > 2 && built >= p.minBurst && built > p.o.PhaseFactor*p.avg {
		d = PhaseFlush
	}
	p.avg = 0.75*p.avg + 0.25*built
	if share < p.o.BailShare && p.windows > 1 {
		p.lowShare++
	} else {
		p.lowShare = 0
	}
	if flushed {
		p.thrashing++
	} else {
		p.thrashing = 0
	}
	if !p.o.NoBailout && (p.lowShare >= p.o.BailWindows || p.thrashing >= p.o.ThrashWindows) {
		return BailOut
	}
	if d == PhaseFlush {
		p.windows, p.avg = 0, built
	}
	return d
}
