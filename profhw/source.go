// The event source: a guest ELF in, run by the interpreter, a stream of value, edge and call-target tuples out (stratified 2.1).

package profhw

import (
	"errors"
	"fmt"
	"io"

	"rvdyn/interp"
)

// GuestSource runs a guest program under the interpreter and turns its
// retired instructions into tuples, the selector of the stratified paper
// (section 2.1, "selection by opcode"):
//
//	value profile  <pc, loaded value>      every load
//	edge profile   <pc, next pc>           every conditional branch (taken
//	                                       or not), jal and jalr
//	call profile   <pc, call target>       every jal/jalr that writes ra or
//	                                       t0 (interp.Inst.IsCall)
//
// Each tuple is tagged with its Kind (see Tuple), so any set of profiles can
// be collected at once and told apart ("Simultaneous profiling"); a call is
// then both an edge and a call tuple, as the paper's selector would report
// it to two profiling applications.
//
// The hook sees every retired instruction (not only the selected classes)
// so that each tuple carries the exact instruction count the overhead model
// needs.
type GuestSource struct {
	Image           []byte    // the guest ELF file
	Args            []string  // argv, Args[0] the program name
	Env             []string  // envp
	Stdin           io.Reader // nil reads as end of file
	Stdout, Stderr  io.Writer // nil discards
	Kinds           KindSet   // profiles to emit; empty means value
	MaxInstructions uint64    // stop after this many instructions; 0 = run to exit

	// After Run: the guest's exit status, and whether the run was cut
	// short by MaxInstructions.
	ExitCode int
	Limited  bool
}

// Run loads and runs the guest, emitting its tuples. A guest fault stops
// the stream and is returned (as *interp.Fault, wrapped) after the tuples
// before it were emitted; reaching MaxInstructions is not an error.
func (g *GuestSource) Run(emit func(Batch) error) (uint64, error) {
	kinds := g.Kinds
	if kinds == 0 {
		kinds = KindSet(0).With(KindValue)
	}
	m, err := interp.Load(g.Image, interp.Config{
		Args: g.Args, Env: g.Env, Stdin: g.Stdin, Stdout: g.Stdout, Stderr: g.Stderr,
	})
	if err != nil {
		return 0, fmt.Errorf("profhw: loading guest: %w", err)
	}
	defer m.Close()
	h := &selector{
		value: kinds.Has(KindValue), edge: kinds.Has(KindEdge), call: kinds.Has(KindCall),
		ts: make([]Tuple, 0, BatchSize+2), rs: make([]uint64, 0, BatchSize+2), emit: emit,
	}
	all := interp.ClassMask(1<<interp.NumClasses - 1)
	m.SetHook(all, h)
	runErr := m.Run(g.MaxInstructions)
	m.SetHook(0, nil)
	h.flush()
	g.ExitCode, g.Limited = m.ExitCode(), errors.Is(runErr, interp.ErrLimit)
	if h.err != nil {
		return h.retired, h.err
	}
	if runErr != nil && !g.Limited {
		return h.retired, fmt.Errorf("profhw: guest stopped: %w", runErr)
	}
	return max(h.retired, m.Retired()), nil
}

// selector is the interp.Hook that builds tuples.
type selector struct {
	value, edge, call bool
	retired           uint64
	ts                []Tuple
	rs                []uint64
	emit              func(Batch) error
	err               error
}

func (s *selector) Event(e *interp.Event) {
	s.retired++
	switch e.Class {
	case interp.ClassLoad:
		if s.value {
			s.add(MakeTuple(KindValue, e.PC, e.Value))
		}
	case interp.ClassBranch, interp.ClassJump:
		if s.edge {
			s.add(MakeTuple(KindEdge, e.PC, e.Next))
		}
		if s.call && e.Inst.IsCall() {
			s.add(MakeTuple(KindCall, e.PC, e.Next))
		}
	default:
		return
	}
	if len(s.ts) >= BatchSize {
		s.flush()
	}
}

func (s *selector) add(t Tuple) {
	s.ts = append(s.ts, t)
	s.rs = append(s.rs, s.retired)
}

// flush emits the pending tuples. After the first error from emit the
// selector drops tuples (a hook cannot stop the machine) and Run returns
// the error.
func (s *selector) flush() {
	if len(s.ts) > 0 && s.err == nil {
		s.err = s.emit(Batch{Tuples: s.ts, Retired: s.rs})
	}
	s.ts, s.rs = s.ts[:0], s.rs[:0]
}
