// Cache policies: the prediction rate and cache share per window -> phase-change flushes and bail-out.

package rvdyn

// DefaultPolicy returns the default cache policy parameters.
func DefaultPolicy() Policy {
	return Policy{Window: 1 << 24, PhaseFactor: 4, PhaseMinBurst: 16, BailShare: 0.5, BailWindows: 8, ThrashWindows: 4}
}

// Policy tunes the code cache's reactions to program behaviour, after
// section 6.1 of papers/net-hot-path-prediction.txt (Dynamo's flushing
// heuristic) and Dynamo's bail-out. The prediction rate is measured in
// windows of Window retired guest instructions. A zero field takes its
// value from DefaultPolicy.
type Policy struct {
	// NoPhaseFlush disables the phase-change flush.
	NoPhaseFlush bool
	// NoBailout disables bailing out to the interpreter.
	NoBailout bool
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
}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	if p.Window == 0 {
		p.Window = d.Window
	}
	if p.PhaseFactor == 0 {
		p.PhaseFactor = d.PhaseFactor
	}
	if p.PhaseMinBurst == 0 {
		p.PhaseMinBurst = d.PhaseMinBurst
	}
	if p.BailShare == 0 {
		p.BailShare = d.BailShare
	}
	if p.BailWindows == 0 {
		p.BailWindows = d.BailWindows
	}
	if p.ThrashWindows == 0 {
		p.ThrashWindows = d.ThrashWindows
	}
	return p
}

// monitor applies a Policy: the dispatcher calls tick whenever it regains
// control, and the monitor closes windows as instructions accumulate.
type monitor struct {
	p           Policy
	windowEnd   uint64  // retired count at which the current window closes
	fragsAtOpen uint64  // fragments built when the window opened
	cacheAtOpen uint64  // cache instructions when the window opened
	fullAtOpen  uint64  // capacity flushes when the window opened
	avg         float64 // running average of fragments per window (EMA, 1/4)
	windows     int     // windows closed since the start or the last flush
	lowShare    int     // consecutive windows with a low cache share
	thrashing   int     // consecutive windows with a capacity flush
}

// decision is what the monitor asks the dispatcher to do.
type decision uint8

const (
	keepGoing decision = iota
	phaseFlush
	bailOut
)

func newMonitor(p Policy) *monitor {
	p = p.withDefaults()
	return &monitor{p: p, windowEnd: p.Window}
}

// tick is called with the retired instruction count, traces predicted
// (the paper's prediction activity), instructions run in the cache and
// capacity flushes so far.
func (mo *monitor) tick(retired, frags, cache, full uint64) decision {
	if retired < mo.windowEnd {
		return keepGoing
	}
	built := float64(frags - mo.fragsAtOpen)
	share := float64(cache-mo.cacheAtOpen) / float64(retired-(mo.windowEnd-mo.p.Window))
	mo.windowEnd = retired + mo.p.Window
	flushed := full > mo.fullAtOpen
	mo.fragsAtOpen, mo.cacheAtOpen, mo.fullAtOpen = frags, cache, full
	mo.windows++

	d := keepGoing
	if !mo.p.NoPhaseFlush && mo.windows > 2 && built >= float64(mo.p.PhaseMinBurst) && built > mo.p.PhaseFactor*mo.avg {
		d = phaseFlush
	}
	mo.avg = 0.75*mo.avg + 0.25*built
	if share < mo.p.BailShare && mo.windows > 1 {
		mo.lowShare++
	} else {
		mo.lowShare = 0
	}
	if flushed {
		mo.thrashing++
	} else {
		mo.thrashing = 0
	}
	if !mo.p.NoBailout && (mo.lowShare >= mo.p.BailWindows || mo.thrashing >= mo.p.ThrashWindows) {
		return bailOut
	}
	if d == phaseFlush {
		mo.windows, mo.avg = 0, built
	}
	return d
}
