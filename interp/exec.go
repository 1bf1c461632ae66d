// The fast interpreter loop: predecoded instructions and a StopSet -> guest state, no allocation, no hooks.

package interp

// A Stop says why a run of the interpreter returned without an error.
type Stop uint8

// The stop reasons. The last three happen only when the StopSet of the
// run asks for them.
const (
	StopExit     Stop = iota // the guest exited
	StopBudget               // the instruction budget ran out
	StopBackward             // a taken backward branch or jump (StopOnBackward); PC is its target
	StopMarked               // a control transfer landed on a marked pc (StopOnMarked)
	StopFenceI               // a fence.i retired, or a system call unmapped or re-protected code (StopOnFenceI): translated code must be dropped
)

var stopNames = [...]string{"exit", "budget", "backward branch", "marked target", "fence.i"}

// String names the stop reason.
func (s Stop) String() string {
	if int(s) < len(stopNames) {
		return stopNames[s]
	}
	return "Stop(?)"
}

// A StopSet selects the events at which RunUntil returns before its
// budget runs out, besides the guest's exit. The zero value selects none:
// plain interpretation. The interpreter only detects the events; which
// of them matter is the caller's rule (package net's trace selector asks
// for StopOnBackward, the dispatcher adds StopOnMarked and StopOnFenceI).
type StopSet uint8

// The events a StopSet can select.
const (
	// StopOnBackward stops right after a taken branch or jump that is
	// Backward, unless its target is Quiet; the run returns StopBackward
	// with PC at the target.
	StopOnBackward StopSet = 1 << iota
	// StopOnMarked stops right after a taken control transfer lands on a
	// pc set with Mark (a fragment entry); the run returns StopMarked.
	StopOnMarked
	// StopOnFenceI stops right after a fence.i retires, and after a
	// system call that took code away (see TextChanged); the run
	// returns StopFenceI.
	StopOnFenceI

	// StopsAll selects every stop, the dispatcher's set. The fast loop
	// serves it and the empty set; any other set single-steps.
	StopsAll = StopOnBackward | StopOnMarked | StopOnFenceI
)

// Backward reports whether a taken control transfer from pc to target
// goes backward: to an address at or below its own. It is the one
// definition of the test, shared by both interpreter loops and by package
// net's trace-head rule and path profiler.
func Backward(pc, target uint64) bool { return target <= pc }

// Run interprets the guest until it exits (nil), faults (*Fault), or
// retires limit more instructions (ErrLimit; limit 0 means no limit).
func (m *Machine) Run(limit uint64) error {
	budget := limit
	if limit == 0 {
		budget = ^uint64(0)
	}
	for !m.exited {
		start := m.retired
		stop, err := m.RunUntil(min(budget, 1<<24), 0)
		if err != nil {
			return err
		}
		budget -= m.retired - start
		if stop == StopBudget && budget == 0 {
			return ErrLimit
		}
	}
	return nil
}

// RunUntil interprets at most budget instructions and stops early, right
// after the instruction concerned, at the events stops selects: the
// points where the dispatcher counts trace heads, enters the code cache
// and drops stale code. The fast loop serves no stops and StopsAll; a
// hook, or any other set, runs the single-step loop.
func (m *Machine) RunUntil(budget uint64, stops StopSet) (Stop, error) {
	if m.exited {
		return StopExit, nil
	}
	if m.hook != nil || stops != 0 && stops != StopsAll {
		return m.runHooked(budget, stops)
	}
	return m.runFast(budget, stops == StopsAll)
}

// runFast is the interpreter loop proper. It takes one bool, not a
// StopSet, on purpose: the loop's code layout is tuned, and testing set
// bits on each taken transfer moved the code enough to cost 5-13% on the
// interpreter benchmarks, though it added no work to the paths they run.
func (m *Machine) runFast(budget uint64, dispatch bool) (stop Stop, err error) {
	x := &m.CPU.X
	pc := m.CPU.PC
	code := m.code
	marks := m.marks
	lo := m.codeLo
	mem := m.Mem
	n := budget
	stop = StopBudget

loop:
	for n > 0 {
		off := pc - lo
		if off >= uint64(len(code))*2 {
			err = &Fault{Kind: FaultFetch, PC: pc, Addr: pc}
			break
		}
		in := &code[off>>1]
		n--
		var target uint64
		switch in.Op {
		case OpADDI:
			x[in.Rd&31] = x[in.Rs1&31] + uint64(in.Imm)
		case OpADD:
			x[in.Rd&31] = x[in.Rs1&31] + x[in.Rs2&31]
		case OpLD:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.readOK(a) && !mem.SlowOK(a, 8, AccR) {
				n++
				err = m.memFault(FaultLoad, pc, a, in)
				break loop
			}
			x[in.Rd&31] = mem.load64(a)
		case OpSD:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.writeOK(a) && !mem.SlowOK(a, 8, AccW) {
				n++
				err = m.memFault(FaultStore, pc, a, in)
				break loop
			}
			mem.store64(a, x[in.Rs2&31])
		case OpLW:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.readOK(a) && !mem.SlowOK(a, 4, AccR) {
				n++
				err = m.memFault(FaultLoad, pc, a, in)
				break loop
			}
			x[in.Rd&31] = uint64(int64(int32(mem.load32(a))))
		case OpSW:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.writeOK(a) && !mem.SlowOK(a, 4, AccW) {
				n++
				err = m.memFault(FaultStore, pc, a, in)
				break loop
			}
			mem.store32(a, uint32(x[in.Rs2&31]))
		case OpBEQ, OpBNE, OpBLT, OpBGE, OpBLTU, OpBGEU:
			var t bool
			a, b := x[in.Rs1&31], x[in.Rs2&31]
			switch in.Op {
			case OpBEQ:
				t = a == b
			case OpBNE:
				t = a != b
			case OpBLT:
				t = int64(a) < int64(b)
			case OpBGE:
				t = int64(a) >= int64(b)
			case OpBLTU:
				t = a < b
			default:
				t = a >= b
			}
			if !t {
				break
			}
			target = pc + uint64(in.Imm)
			goto transfer
		case OpJAL:
			// Offsets are even and pcs are even: the target is aligned.
			target = pc + uint64(in.Imm)
			x[in.Rd&31] = pc + in.Len()
			goto transfer
		case OpJALR:
			target = (x[in.Rs1&31] + uint64(in.Imm)) &^ 1
			x[in.Rd&31] = pc + in.Len()
			goto transfer
		case OpLUI:
			x[in.Rd&31] = uint64(in.Imm)
		case OpAUIPC:
			x[in.Rd&31] = pc + uint64(in.Imm)
		case OpLB, OpLH, OpLBU, OpLHU, OpLWU:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.readOK(a) && !mem.SlowOK(a, MemWidth(in.Op), AccR) {
				n++
				err = m.memFault(FaultLoad, pc, a, in)
				break loop
			}
			switch in.Op {
			case OpLB:
				x[in.Rd&31] = uint64(int64(int8(mem.load8(a))))
			case OpLH:
				x[in.Rd&31] = uint64(int64(int16(mem.load16(a))))
			case OpLBU:
				x[in.Rd&31] = uint64(mem.load8(a))
			case OpLHU:
				x[in.Rd&31] = uint64(mem.load16(a))
			default:
				x[in.Rd&31] = uint64(mem.load32(a))
			}
		case OpSB, OpSH:
			a := x[in.Rs1&31] + uint64(in.Imm)
			if !mem.writeOK(a) && !mem.SlowOK(a, MemWidth(in.Op), AccW) {
				n++
				err = m.memFault(FaultStore, pc, a, in)
				break loop
			}
			if in.Op == OpSB {
				mem.store8(a, uint8(x[in.Rs2&31]))
			} else {
				mem.store16(a, uint16(x[in.Rs2&31]))
			}
		case OpSLTI:
			x[in.Rd&31] = b2u(int64(x[in.Rs1&31]) < in.Imm)
		case OpSLTIU:
			x[in.Rd&31] = b2u(x[in.Rs1&31] < uint64(in.Imm))
		case OpXORI:
			x[in.Rd&31] = x[in.Rs1&31] ^ uint64(in.Imm)
		case OpORI:
			x[in.Rd&31] = x[in.Rs1&31] | uint64(in.Imm)
		case OpANDI:
			x[in.Rd&31] = x[in.Rs1&31] & uint64(in.Imm)
		case OpSLLI:
			x[in.Rd&31] = x[in.Rs1&31] << (in.Imm & 63)
		case OpSRLI:
			x[in.Rd&31] = x[in.Rs1&31] >> (in.Imm & 63)
		case OpSRAI:
			x[in.Rd&31] = uint64(int64(x[in.Rs1&31]) >> (in.Imm & 63))
		case OpADDIW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] + uint64(in.Imm))
		case OpSLLIW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] << (in.Imm & 31))
		case OpSRLIW:
			x[in.Rd&31] = sext32(uint64(uint32(x[in.Rs1&31]) >> (in.Imm & 31)))
		case OpSRAIW:
			x[in.Rd&31] = uint64(int64(int32(x[in.Rs1&31]) >> (in.Imm & 31)))
		case OpSUB:
			x[in.Rd&31] = x[in.Rs1&31] - x[in.Rs2&31]
		case OpSLL:
			x[in.Rd&31] = x[in.Rs1&31] << (x[in.Rs2&31] & 63)
		case OpSLT:
			x[in.Rd&31] = b2u(int64(x[in.Rs1&31]) < int64(x[in.Rs2&31]))
		case OpSLTU:
			x[in.Rd&31] = b2u(x[in.Rs1&31] < x[in.Rs2&31])
		case OpXOR:
			x[in.Rd&31] = x[in.Rs1&31] ^ x[in.Rs2&31]
		case OpSRL:
			x[in.Rd&31] = x[in.Rs1&31] >> (x[in.Rs2&31] & 63)
		case OpSRA:
			x[in.Rd&31] = uint64(int64(x[in.Rs1&31]) >> (x[in.Rs2&31] & 63))
		case OpOR:
			x[in.Rd&31] = x[in.Rs1&31] | x[in.Rs2&31]
		case OpAND:
			x[in.Rd&31] = x[in.Rs1&31] & x[in.Rs2&31]
		case OpADDW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] + x[in.Rs2&31])
		case OpSUBW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] - x[in.Rs2&31])
		case OpSLLW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] << (x[in.Rs2&31] & 31))
		case OpSRLW:
			x[in.Rd&31] = sext32(uint64(uint32(x[in.Rs1&31]) >> (x[in.Rs2&31] & 31)))
		case OpSRAW:
			x[in.Rd&31] = uint64(int64(int32(x[in.Rs1&31]) >> (x[in.Rs2&31] & 31)))
		case OpMUL:
			x[in.Rd&31] = x[in.Rs1&31] * x[in.Rs2&31]
		case OpMULW:
			x[in.Rd&31] = sext32(x[in.Rs1&31] * x[in.Rs2&31])
		case OpMULH, OpMULHSU, OpMULHU, OpDIV, OpDIVU, OpREM, OpREMU, OpDIVW, OpDIVUW, OpREMW, OpREMUW:
			x[in.Rd&31], _ = ALU(in.Op, x[in.Rs1&31], x[in.Rs2&31])
		case OpFENCE:
		case OpFENCEI:
			// Rewritten code becomes visible to fetch here; a dispatch
			// run stops so that the dispatcher can drop fragments built
			// from it.
			pc += in.Len() // before SyncText, which may clear *in
			m.SyncText()   // clears dropped pages in place: code stays valid
			x[0] = 0
			if dispatch {
				stop = StopFenceI
				break loop
			}
			continue
		case OpECALL:
			m.CPU.PC = pc
			if m.syscall() {
				stop = StopExit
				pc += 4
				break loop
			}
			pc = m.CPU.PC // the next instruction, or a handler's or a frame's pc
			if dispatch && len(m.changed) > 0 {
				// munmap, mprotect or mmap took code away (in may
				// be cleared now): the dispatcher drops what was
				// built from it, as after a fence.i.
				stop = StopFenceI
				break loop
			}
			x[0] = 0
			continue
		case OpEBREAK:
			n++
			err = &Fault{Kind: FaultBreakpoint, PC: pc, Raw: in.Raw}
			break loop
		default: // OpIllegal, a slot not decoded yet, or A, F, D, CSR
			if in.Op > OpEBREAK {
				m.pending = budget - n - 1 // retired in this run before it (rdinstret)
				err = m.execExt(*in, pc, nil)
				m.pending = 0
				if err != nil {
					n++ // a faulting instruction does not retire
					break loop
				}
				x[0] = 0
				pc += in.Len()
				continue
			}
			n++
			if m.decodeRun(off) {
				continue // fetch again, decoded
			}
			if !m.isExec(pc) {
				err = &Fault{Kind: FaultFetch, PC: pc, Addr: pc}
			} else {
				err = &Fault{Kind: FaultIllegal, PC: pc, Raw: in.Raw}
			}
			break loop
		}
		x[0] = 0
		// The fall-through is a branch, not in.Len()'s arithmetic: the
		// next pc then does not wait for the load of Raw (the predictor
		// learns each program's mix of lengths), which cost 15-20% of
		// the interpreter's time as a data dependence.
		if in.Raw&3 != 3 {
			pc += 2
			continue
		}
		pc += 4
		continue

	transfer:
		x[0] = 0
		if dispatch {
			var mark uint8
			if t := target - lo; t < uint64(len(code))*2 {
				mark = marks[t>>1]
			}
			if Backward(pc, target) && mark&markQuiet == 0 {
				pc = target
				stop = StopBackward
				break
			}
			if mark&markEntry != 0 {
				pc = target
				stop = StopMarked
				break
			}
		}
		pc = target
	}
	m.CPU.PC = pc
	m.retired += budget - n
	return stop, err
}

func (m *Machine) memFault(k FaultKind, pc, addr uint64, in *Inst) error {
	return m.accessFault(k, pc, addr, in.Raw)
}
