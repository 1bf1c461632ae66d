// Single step: one instruction -> guest state plus an Event describing it (hooks, trace recording).

package interp

// Step executes the one instruction at the current pc and returns the
// Event describing it (owned by the Machine, overwritten by the next Step).
// It returns a *Fault, leaving the state as before the instruction, if the
// instruction cannot complete; after the guest exits it does nothing and
// returns a nil Event.
func (m *Machine) Step() (*Event, error) {
	if m.exited {
		return nil, nil
	}
	x := &m.CPU.X
	pc := m.CPU.PC
	in, ok := m.InstAt(pc)
	if !ok {
		if pc&1 != 0 {
			return nil, &Fault{Kind: FaultMisaligned, PC: pc, Addr: pc}
		}
		return nil, &Fault{Kind: FaultFetch, PC: pc, Addr: pc}
	}
	e := &m.ev
	a, b := x[in.Rs1&31], x[in.Rs2&31]
	next := pc + in.Len()
	*e = Event{PC: pc, Inst: in, Class: in.Op.Class(), Next: next, Src1: a, Src2: b, Seq: m.retired}
	rd := &x[in.Rd&31]
	switch cls := e.Class; {
	case in.Op == OpIllegal:
		return nil, &Fault{Kind: FaultIllegal, PC: pc, Raw: in.Raw}
	case in.Op > OpEBREAK:
		if err := m.execExt(in, pc, e); err != nil {
			return nil, err
		}
	case in.Op == OpLUI:
		*rd = uint64(in.Imm)
		e.Value = *rd
	case in.Op == OpAUIPC:
		*rd = pc + uint64(in.Imm)
		e.Value = *rd
	case in.Op == OpJAL || in.Op == OpJALR:
		t := pc + uint64(in.Imm)
		if in.Op == OpJALR {
			t = (a + uint64(in.Imm)) &^ 1
		}
		*rd = next
		e.Next, e.Taken, e.Value = t, true, next
	case cls == ClassBranch:
		if BranchTaken(in.Op, a, b) {
			e.Next, e.Taken = pc+uint64(in.Imm), true
		}
	case cls == ClassLoad:
		addr := a + uint64(in.Imm)
		if !m.Mem.readOK(addr) && !m.Mem.SlowOK(addr, MemWidth(in.Op), AccR) {
			return nil, m.accessFault(FaultLoad, pc, addr, in.Raw)
		}
		var v uint64
		switch in.Op {
		case OpLB:
			v = uint64(int64(int8(m.Mem.load8(addr))))
		case OpLH:
			v = uint64(int64(int16(m.Mem.load16(addr))))
		case OpLW:
			v = uint64(int64(int32(m.Mem.load32(addr))))
		case OpLD:
			v = m.Mem.load64(addr)
		case OpLBU:
			v = uint64(m.Mem.load8(addr))
		case OpLHU:
			v = uint64(m.Mem.load16(addr))
		case OpLWU:
			v = uint64(m.Mem.load32(addr))
		}
		*rd = v
		e.Addr, e.Value = addr, v
	case cls == ClassStore:
		addr := a + uint64(in.Imm)
		if !m.Mem.writeOK(addr) && !m.Mem.SlowOK(addr, MemWidth(in.Op), AccW) {
			return nil, m.accessFault(FaultStore, pc, addr, in.Raw)
		}
		switch in.Op {
		case OpSB:
			b = uint64(uint8(b))
			m.Mem.store8(addr, uint8(b))
		case OpSH:
			b = uint64(uint16(b))
			m.Mem.store16(addr, uint16(b))
		case OpSW:
			b = uint64(uint32(b))
			m.Mem.store32(addr, uint32(b))
		case OpSD:
			m.Mem.store64(addr, b)
		}
		e.Addr, e.Value = addr, b
	case cls == ClassALU || cls == ClassMul:
		if in.Op >= OpADDI && in.Op <= OpSRAIW {
			b = uint64(in.Imm)
		}
		*rd, _ = ALU(in.Op, a, b)
		e.Value = *rd
	case in.Op == OpFENCEI:
		m.SyncText()
	case in.Op == OpECALL:
		e.Src1, e.Src2 = x[17], x[10]
		if !m.syscall() {
			e.Next = m.CPU.PC // the next instruction, or a handler's or a frame's pc
		}
		e.Value = x[10]
	case in.Op == OpEBREAK:
		return nil, &Fault{Kind: FaultBreakpoint, PC: pc, Raw: in.Raw}
	}
	x[0] = 0
	if in.Rd == 0 && e.Class != ClassStore && in.Op != OpECALL && !in.Op.IsFloat() {
		e.Value = 0
	}
	m.CPU.PC = e.Next
	m.retired++
	return e, nil
}

// runHooked is RunUntil with a hook attached: it steps one instruction at
// a time and reports the selected classes. Without stops or with the
// dispatcher's (the fast loop's sets), runHookedRuns serves it instead.
func (m *Machine) runHooked(budget uint64, stops StopSet) (Stop, error) {
	if stops == 0 || stops == StopsAll {
		return m.runHookedRuns(budget, stops)
	}
	for n := uint64(0); n < budget; n++ {
		e, err := m.Step()
		if err != nil {
			return StopBudget, err
		}
		if stop, ok := m.reportStep(e, stops); ok {
			return stop, nil
		}
	}
	return StopBudget, nil
}

// reportStep gives the hook the Event of an instruction Step retired if
// its class is selected, and reports whether the run stops after it (and
// with which Stop) for the stops in stops.
func (m *Machine) reportStep(e *Event, stops StopSet) (Stop, bool) {
	if m.hookMask.Has(e.Class) {
		m.hook.Event(e)
	}
	if m.exited {
		return StopExit, true
	}
	if stops&(StopOnBackward|StopOnMarked) != 0 && e.Taken {
		var mark uint8
		if off := e.Next - m.codeLo; off < 2*uint64(len(m.code)) {
			mark = m.marks[off>>1]
		}
		if stops&StopOnBackward != 0 && Backward(e.PC, e.Next) && mark&markQuiet == 0 {
			return StopBackward, true
		}
		if stops&StopOnMarked != 0 && mark&markEntry != 0 {
			return StopMarked, true
		}
	}
	if stops&StopOnFenceI != 0 && (e.Inst.Op == OpFENCEI || e.Inst.Op == OpECALL && len(m.changed) > 0) {
		return StopFenceI, true
	}
	return StopBudget, false
}

// What runHookedRuns does at an Op (Machine.hookRun).
const (
	hookStop = 1 + iota // its class is selected, or it is not decoded yet: single-stepped
	hookLast            // it may transfer control: the last of a straight run
)

// hookRunTable returns the hookRun table for a hook on mask.
func hookRunTable(mask ClassMask) *[256]uint8 {
	var t [256]uint8
	for op := range t {
		o := Op(op)
		switch {
		case o == OpIllegal || mask.Has(o.Class()):
			t[op] = hookStop
		case o.Class() == ClassBranch || o == OpJAL || o == OpJALR || o == OpECALL || o == OpEBREAK || o == OpFENCEI:
			t[op] = hookLast
		}
	}
	return &t
}

// runHookedRuns is runHooked for the fast loop's stop sets: an
// instruction of a selected class (a query's opBRANCH, say: one in five)
// is single-stepped and reported, and the straight run of unselected
// instructions up to the next one goes through the fast loop, a budget
// of its length. The run is found in the predecoded slots, from the pc
// to the first selected or undecoded instruction (excluded) or the first
// that may transfer control (included), so the fast loop executes
// exactly those instructions. Same state, Events, stops and faults as
// single-stepping, at the fast loop's cost for the unselected.
func (m *Machine) runHookedRuns(budget uint64, stops StopSet) (Stop, error) {
	t := m.hookRun
	var cd *uint64 // the Skipper's branch countdown, while it lets branches be skipped
	if m.skip != nil {
		cd = m.skip.SkipCountdown(ClassBranch)
	}
	for done := uint64(0); done < budget; {
		k := uint64(0)
		skipLast := false // the run ends with a selected branch the Skipper only counts down
		for off := m.CPU.PC - m.codeLo; done+k < budget && off < 2*uint64(len(m.code)) && m.CPU.PC&1 == 0; {
			in := &m.code[off>>1]
			what := t[in.Op]
			if what == hookStop {
				// A conditional branch the Skipper would only count
				// down runs in the fast loop too, as the run's last
				// (a run holds at most one, so a countdown above 1
				// cannot reach the sample in it).
				if cd != nil && *cd > 1 && in.Op >= OpBEQ && in.Op <= OpBGEU {
					k++
					skipLast = true
				}
				break
			}
			k++
			if what == hookLast {
				break
			}
			off += in.Len()
		}
		if k > 0 {
			before := m.retired
			stop, err := m.runFast(k, stops == StopsAll)
			ran := m.retired - before
			done += ran
			if skipLast && ran == k {
				*cd--
			}
			if err != nil || stop != StopBudget || m.exited {
				return stop, err
			}
			continue
		}
		e, err := m.stepSelected()
		if err != nil {
			return StopBudget, err
		}
		done++
		if stop, ok := m.reportStep(e, stops); ok {
			return stop, nil
		}
		if m.skip != nil {
			cd = m.skip.SkipCountdown(ClassBranch)
		}
	}
	return StopBudget, nil
}

// stepSelected is Step, with a conditional branch at a decoded slot (the
// edge query's instructions) executed here: its Event is Step's without
// Step's fetch and dispatch.
func (m *Machine) stepSelected() (*Event, error) {
	pc := m.CPU.PC
	off := pc - m.codeLo
	if pc&1 != 0 || off >= 2*uint64(len(m.code)) {
		return m.Step()
	}
	in := &m.code[off>>1]
	if in.Op < OpBEQ || in.Op > OpBGEU {
		return m.Step()
	}
	x := &m.CPU.X
	a, b := x[in.Rs1&31], x[in.Rs2&31]
	e := &m.ev
	*e = Event{PC: pc, Inst: *in, Class: ClassBranch, Next: pc + in.Len(), Src1: a, Src2: b, Seq: m.retired}
	if BranchTaken(in.Op, a, b) {
		e.Next, e.Taken = pc+uint64(in.Imm), true
	}
	m.CPU.PC = e.Next
	m.retired++
	return e, nil
}

// StepHooked is Step followed by the hook's Event call when the
// instruction's class is in the hook's mask: a run that single-steps
// (trace recording, the dispatcher completing an exit) reports to the
// profiler exactly as RunUntil does.
func (m *Machine) StepHooked() (*Event, error) {
	e, err := m.Step()
	if err == nil && e != nil && m.hook != nil && m.hookMask.Has(e.Class) {
		m.hook.Event(e)
	}
	return e, err
}
