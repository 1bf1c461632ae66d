// Path profiler: the interpreter's branch and jump events -> interprocedural forward paths with their frequencies (section 3).

package net

import (
	"math/bits"

	"rvdyn/interp"
)

// A PathID numbers a distinct path of a Profile, in order of first
// execution from 0.
type PathID uint32

// A HeadID numbers a distinct path head of a Profile, in order of first
// execution from 0.
type HeadID uint32

// A Path is one interprocedural forward path (section 3): it starts at a
// path head and extends up to and including the next taken backward
// branch or jump. It is identified by its start address and a 128-bit
// signature of its taken control transfers (section 2's bit tracing
// signature, see Profiler).
type Path struct {
	Start     uint64    // guest address of the head
	Head      HeadID    // the head's number
	Sig       [2]uint64 // hash of the taken (pc, target) transfers on the path, in order
	Transfers uint32    // taken transfers on the path, including the one that ends it
	Freq      uint64    // executions: freq(p)
}

// A Profile is a path profile (section 2): every distinct path executed
// and its frequency. Flow is freq of all paths, i.e. the number of path
// executions.
type Profile struct {
	Paths []Path   // by PathID
	Heads []uint64 // head addresses by HeadID
	Flow  uint64
	// Order lists every path execution in order (only with
	// Profiler.KeepOrder; 4 bytes per execution).
	Order []PathID
}

// A PathSink consumes path executions as they complete, in program order.
// The NET predictor (NETPredictor) is one: it needs the order, not just
// the frequencies.
type PathSink interface {
	PathExecuted(p PathID, h HeadID)
}

// pathKey identifies a path exactly up to 128-bit hash collisions.
type pathKey struct {
	start  uint64
	h0, h1 uint64
	n      uint32
}

// A Profiler is an interp.Hook that cuts the run into paths and counts
// them. Attach it with mask ClassBranch|ClassJump (see Attach).
//
// A path ends at a taken control transfer whose target is at or below its
// own pc (a backward branch, jump, call or return); the next path starts at
// that target, its head (section 3). Section 3 also ends a path at the
// return that matches a (forward) call made on the path; no extra check is
// needed for that: the callee lies above the call, so reaching a return
// below the return address takes a backward transfer, which already ended
// the path.
//
// Identification: given its start address, a path is determined by the
// list of its taken transfers (pc, target): they say which conditional
// branches were taken (the others fell through) and where each indirect
// jump went, the same information as section 2's history bits and
// indirect target list. The Profiler hashes that list into two
// independent 64-bit hashes and keys a path by (start, hash, length). A
// collision needs two paths from one head with equal length and equal
// 128-bit hashes: about n^2/2^129 for n paths, negligible (tests compare
// against exact keys).
type Profiler struct {
	// KeepOrder makes the Profile record every execution in order.
	KeepOrder bool
	// Sinks receive each path execution as it completes.
	Sinks []PathSink

	prof  Profile
	index map[pathKey]PathID
	heads map[uint64]HeadID

	started bool
	start   uint64
	head    HeadID
	h0, h1  uint64
	n       uint32
}

// NewProfiler returns a profiler whose first path starts at pc (the
// program's entry, which therefore also counts as a head).
func NewProfiler(pc uint64, sinks ...PathSink) *Profiler {
	p := &Profiler{Sinks: sinks, index: make(map[pathKey]PathID), heads: make(map[uint64]HeadID)}
	p.begin(pc)
	return p
}

// Attach installs p as m's hook for the events it needs (conditional
// branches and jumps). Runs stay on the interpreter's hooked loop until
// the hook is removed with m.SetHook(0, nil).
func (p *Profiler) Attach(m *interp.Machine) {
	m.SetHook(interp.MaskOf(interp.ClassBranch, interp.ClassJump), p)
}

// Seeds of the two signature hashes.
const (
	sigSeed0 = 0x9e3779b97f4a7c15
	sigSeed1 = 0xc2b2ae3d27d4eb4f
)

// mix is the 64-bit finaliser of SplitMix64: a bijection with full
// avalanche, so different inputs rarely collide after combining.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Event consumes one retired branch or jump (interp.Hook).
func (p *Profiler) Event(e *interp.Event) {
	if !e.Taken {
		return
	}
	// Fold (pc, target) into both hashes; the position is implied by the
	// chaining (rotate, then add a mixed word).
	x := e.PC<<1 ^ bits.RotateLeft64(e.Next, 32)
	p.h0 = bits.RotateLeft64(p.h0, 23) + mix(x^sigSeed0)
	p.h1 = bits.RotateLeft64(p.h1, 41) ^ mix(x+sigSeed1)
	p.n++
	if headAfter(e.PC, e.Next) {
		p.end()
		p.begin(e.Next)
	}
}

// begin opens a path at head pc.
func (p *Profiler) begin(pc uint64) {
	h, ok := p.heads[pc]
	if !ok {
		h = HeadID(len(p.prof.Heads))
		p.heads[pc] = h
		p.prof.Heads = append(p.prof.Heads, pc)
	}
	p.started, p.start, p.head = true, pc, h
	p.h0, p.h1, p.n = sigSeed0, sigSeed1, 0
}

// end closes the open path and counts it.
func (p *Profiler) end() {
	k := pathKey{p.start, p.h0, p.h1, p.n}
	id, ok := p.index[k]
	if !ok {
		id = PathID(len(p.prof.Paths))
		p.index[k] = id
		p.prof.Paths = append(p.prof.Paths, Path{Start: p.start, Head: p.head, Sig: [2]uint64{p.h0, p.h1}, Transfers: p.n})
	}
	p.prof.Paths[id].Freq++
	p.prof.Flow++
	if p.KeepOrder {
		p.prof.Order = append(p.prof.Order, id)
	}
	for _, s := range p.Sinks {
		s.PathExecuted(id, p.head)
	}
	p.started = false
}

// Finish closes the path open when the run stopped (the guest exited in
// the middle of it; it counts as one execution) and returns the profile.
// The profiler must not be used afterwards.
func (p *Profiler) Finish() *Profile {
	if p.started {
		p.end()
	}
	return &p.prof
}
