// Memory limits: the guest memory (Env) the IR is checked and compiled against.

package ir

import "rvdyn/interp"

// Env describes the guest the code is compiled for: the memory limits every
// emitted load and store checks against (see interp.Memory). A load may
// access [ReadLo, GuardLo) and [GuardHi, MemSize), a store [WriteLo,
// GuardLo) and [GuardHi, MemSize); the guard gap [GuardLo, GuardHi) below
// the stack faults. GuardLo = GuardHi = 0 means no guard gap.
//
// The intervals are the most the fast path can ever cover: how much of
// them it covers now (the spans) the interpreter keeps in the header
// before guest memory, where native code reads it (interp.Memory), and
// what lies outside is decided by the access table. A constant address
// needs no check at all only below StaticHi (the program's image, which
// stays accessible until interp.Machine.EnvEpoch changes, and with it
// the Env).
type Env struct {
	ReadLo   uint64 // lowest address of the loads' fast interval
	WriteLo  uint64 // lowest address of the stores' fast interval
	MemSize  uint64 // size of the guest address space, at most 2 GiB
	GuardLo  uint64 // lowest address of the guard gap (the heap's limit)
	GuardHi  uint64 // end of the guard gap: the lowest stack address
	StaticHi uint64 // end of the pages from ReadLo and WriteLo that stay accessible (0: GuardLo)
	// [MapReadLo, MapReadHi) and [MapWriteLo, MapWriteHi) are the
	// mappings' intervals when the code was compiled
	// (interp.MapSpanOffsets; Lo 0: unknown): a hint only, for which
	// interval an access tries first.
	MapReadLo, MapReadHi, MapWriteLo, MapWriteHi uint64
}

// InMapped reports whether an access recorded at guest address a (a store
// if store) hit the mappings' interval (by the hint).
func (e Env) InMapped(a uint64, store bool) bool {
	lo, hi := e.MapReadLo, e.MapReadHi
	if store {
		lo, hi = e.MapWriteLo, e.MapWriteHi
	}
	return lo != 0 && a >= lo && a < hi
}

// EnvOf returns the Env of a loaded machine.
func EnvOf(m *interp.Machine) Env {
	lo, hi := m.Mem.Guard()
	rl, rh, wl, wh := m.MapRuns()
	return Env{ReadLo: m.Mem.ReadLo(), WriteLo: m.Mem.WriteLo(), MemSize: m.Mem.Size(), GuardLo: lo, GuardHi: hi, StaticHi: m.StaticHi(),
		MapReadLo: rl, MapReadHi: rh, MapWriteLo: wl, MapWriteHi: wh}
}

// Norm returns e with an absent guard gap placed at MemSize, where it is
// empty, so that [lo, GuardLo) and [GuardHi, MemSize) are always the two
// intervals, and an unset StaticHi at GuardLo.
func (e Env) Norm() Env {
	if e.GuardLo == 0 && e.GuardHi == 0 {
		e.GuardLo, e.GuardHi = e.MemSize, e.MemSize
	}
	if e.StaticHi == 0 {
		e.StaticHi = e.GuardLo
	}
	return e
}

// InStack reports whether guest address a lies in the stack interval
// [GuardHi, MemSize) of a normalized Env.
func (e Env) InStack(a uint64) bool { return a-e.GuardHi < e.MemSize-e.GuardHi }
