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
// a time and reports the selected classes.
func (m *Machine) runHooked(budget uint64, stops StopSet) (Stop, error) {
	for n := uint64(0); n < budget; n++ {
		e, err := m.Step()
		if err != nil {
			return StopBudget, err
		}
		if m.hookMask.Has(e.Class) {
			m.hook.Event(e)
		}
		if m.exited {
			return StopExit, nil
		}
		if stops&(StopOnBackward|StopOnMarked) != 0 && e.Taken {
			var mark uint8
			if off := e.Next - m.codeLo; off < 2*uint64(len(m.code)) {
				mark = m.marks[off>>1]
			}
			if stops&StopOnBackward != 0 && Backward(e.PC, e.Next) && mark&markQuiet == 0 {
				return StopBackward, nil
			}
			if stops&StopOnMarked != 0 && mark&markEntry != 0 {
				return StopMarked, nil
			}
		}
		if stops&StopOnFenceI != 0 && (e.Inst.Op == OpFENCEI || e.Inst.Op == OpECALL && len(m.changed) > 0) {
			return StopFenceI, nil
		}
	}
	return StopBudget, nil
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
