// Trace compiler driver: interp.Trace -> Code (IR from package ir, optimized by the passes, emitted by package amd64).

package fragment

import (
	"errors"

	"rvdyn/fragment/amd64"
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// Env describes the guest memory the code is compiled for; see ir.Env.
type Env = ir.Env

// EnvOf returns the Env of a loaded machine.
func EnvOf(m *interp.Machine) Env { return ir.EnvOf(m) }

// Refuses reports whether fragments leave the recorded instruction in to
// the interpreter although the recorder may record it: the few
// floating-point instructions ir.FloatCompiles refuses and the CSR
// accesses ir.CSRCompiles refuses. The dispatcher ends traces before
// them (net.Selector.Refuse).
func Refuses(in interp.Inst) bool {
	switch {
	case in.Op.IsFloat():
		return !ir.FloatCompiles(in)
	case in.Op >= interp.OpCSRRW && in.Op <= interp.OpCSRRCI:
		return !ir.CSRCompiles(in)
	}
	return false
}

// Refuses is Refuses under o: with NoFloat, every F, D and CSR
// instruction too, with NoAtomics every atomic. The dispatcher passes it
// to net.Selector.Refuse.
func (o Options) Refuses(in interp.Inst) bool {
	switch {
	case o.NoFloat && (in.Op.IsFloat() || in.Op >= interp.OpCSRRW && in.Op <= interp.OpCSRRCI):
		return true
	case o.NoAtomics && ir.IsAtomic(in.Op):
		return true
	}
	return Refuses(in)
}

// A Stub is one exit stub of a compiled fragment: where the guest goes
// on (exit.Record) and the stub's fields the code cache patches (see
// amd64.Stub).
type Stub = amd64.Stub

// A PCMap maps offsets in a fragment's code to guest pcs; see amd64.PCMap.
type PCMap = amd64.PCMap

// Code is a compiled fragment: position-independent machine code whose
// entry is at offset 0, and its exits.
type Code struct {
	Head       uint64 // guest pc of the trace head (the fragment's tag)
	Bytes      []byte
	Exits      []Stub // the first is the end of the trace
	GuestInsts int    // guest instructions on the recorded path
	SelfLoop   bool   // the trace ends at its own head: the back edge is a native loop
	// PCs maps offsets in Bytes to the guest pcs the code was emitted for
	// (for PC sampling and perf maps).
	PCs PCMap
	// Specialized counts the loads specialized on a profiled value
	// (Options.Values): each has a guard whose exit is marked Spec.
	Specialized int
	// LinkedEntry is the offset of the entry for link jumps and indirect
	// branch lookup hits (amd64.Code.LinkedEntry); the dispatcher enters
	// at offset 0.
	LinkedEntry int
	// Bulk is "fill" or "copy" when the self-loop is a byte fill or copy
	// whose iterations, all but the last, run as one REP STOSB or REP
	// MOVSB per entry, "copy to end" or "word fill to end" for glibc's
	// loops that run to an end pointer (REP MOVSB, REP STOSQ)
	// (amd64.Code.Bulk; Options.NoBulk), else empty.
	Bulk string
	// LoopHead is the offset in Bytes of the loop head the back edge
	// jumps to, aligned to amd64.LoopAlign (amd64.Code.LoopHead); -1 if
	// the fragment does not loop.
	LoopHead int
	ir       *ir.Func // the optimized IR, for WriteListing
}

// GuestPC returns the guest pc whose code is at offset off of Bytes, and
// false if off is outside the code.
func (c *Code) GuestPC(off int) (pc uint64, ok bool) { return c.PCs.GuestPC(off, len(c.Bytes)) }

// ErrEmptyTrace is returned for a trace with no instructions.
var ErrEmptyTrace = errors.New("fragment: empty trace")

// Compile translates a recorded trace into a fragment laid out along the
// recorded path: the trace is lowered to IR (package ir), optimized by
// the passes opts enables (passes.go), and emitted (package amd64). It
// returns ErrEmptyTrace for an empty trace; any other error means the
// assembler or the IR verifier failed, which is a bug.
func Compile(t *interp.Trace, env Env, opts Options) (*Code, error) {
	return CompileSampled(t, env, opts, nil)
}

// A Sampler names the instructions the relational profiler selects and
// their sampling countdowns in State.Countdown; see ir.Sampler.
type Sampler = ir.Sampler

// CompileSampled is Compile with the relational profiler's sampling
// decision emitted before every instruction sample selects (RPA sec.
// 3.4.2): native code decrements the instruction's countdown in
// State.Countdown and, when this execution is the sample, leaves through
// an ExitSample exit at the instruction so that the dispatcher runs it
// under the query engine. Fragments with no selected instruction are the
// same as Compile's. A nil sample is Compile.
func CompileSampled(t *interp.Trace, env Env, opts Options, sample Sampler) (*Code, error) {
	if len(t.Steps) == 0 {
		return nil, ErrEmptyTrace
	}
	f := ir.LowerSampled(t, env, sample)
	spec := ir.Specialize(f, opts.Values)
	if err := optimize(f, opts); err != nil {
		return nil, err
	}
	m, err := amd64.Compile(f, amd64.Options{NoRegAlloc: opts.NoRegAlloc, NoBPReg: opts.NoBPReg, NoLazySext: opts.NoLazySext, NoHomeRegs: opts.NoHomeRegs, NoFloatRegs: opts.NoFloatRegs, NoIBL: opts.NoIBL, NoBulk: opts.NoBulk, NoSelfExits: opts.NoSelfExits, NoLoopAlign: opts.NoLoopAlign, NoLazyNaN: opts.NoLazyNaN, NoHeadNaN: opts.NoHeadNaN, NoDecisionMerge: opts.NoDecisionMerge, NoStoreCombine: opts.NoStoreCombine, NoAVX: opts.NoAVX, NoBoxKnown: opts.NoBoxKnown, NoLazyFflags: opts.NoLazyFflags, NoBMI2: opts.NoBMI2, NoNarrowDiv: opts.NoNarrowDiv, NoBudgetReg: opts.NoBudgetReg, NoCountdownPack: opts.NoCountdownPack, PackedCountdownMax: opts.PackedCountdownMax, NoHeadSext: opts.NoHeadSext, CountdownHome: opts.CountdownHome, CountdownIndex: int64(opts.CountdownIndex)})
	if err != nil {
		return nil, err
	}
	return &Code{Head: t.Head, Bytes: m.Bytes, Exits: m.Exits, GuestInsts: len(t.Steps), SelfLoop: f.Loops, PCs: m.PCs, LinkedEntry: m.LinkedEntry, Bulk: m.Bulk, LoopHead: m.LoopHead, Specialized: spec, ir: f}, nil
}
