// Extensions beyond RV64IM: a decoded CSR, atomic or memory instruction of F/D -> guest state; arithmetic in fexec.go.

package interp

import (
	"fmt"
	"time"
)

// The CSRs a user-mode Linux process may access (ISA manual, "Control and
// Status Register Listing"); any other is an illegal instruction, as
// under Linux.
const (
	CSRFflags  = 0x001 // accrued floating-point exception flags
	CSRFrm     = 0x002 // dynamic rounding mode
	CSRFcsr    = 0x003 // frm and fflags together
	CSRCycle   = 0xc00 // cycle counter (read-only)
	CSRTime    = 0xc01 // real-time clock (read-only)
	CSRInstret = 0xc02 // instructions retired (read-only)
)

// CSRName returns the name of a CSR, e.g. "fflags", or its number in hex.
func CSRName(csr uint16) string {
	switch csr {
	case CSRFflags:
		return "fflags"
	case CSRFrm:
		return "frm"
	case CSRFcsr:
		return "fcsr"
	case CSRCycle:
		return "cycle"
	case CSRTime:
		return "time"
	case CSRInstret:
		return "instret"
	}
	return fmt.Sprintf("0x%03x", csr)
}

// TimebaseHz is the frequency of the time CSR: 10 MHz, the timebase of
// qemu's virt board and of most RISC-V Linux systems, so that a program
// dividing rdtime by it gets seconds.
const TimebaseHz = 10_000_000

// csrRead returns the value of a CSR, false if the guest may not read it.
// cycle is defined as instret (a model of one cycle per instruction: it
// keeps every mode's answer the same); time is the host's monotonic clock
// at TimebaseHz; instret is the exact count of instructions retired before
// this one.
func (m *Machine) csrRead(csr uint16) (uint64, bool) {
	switch csr {
	case CSRFflags:
		return m.CPU.FCSR & 0x1f, true
	case CSRFrm:
		return m.CPU.FCSR >> 5 & 7, true
	case CSRFcsr:
		return m.CPU.FCSR & 0xff, true
	case CSRCycle, CSRInstret:
		return m.retired + m.pending, true
	case CSRTime:
		return uint64(time.Since(bootTime).Nanoseconds()) / (1e9 / TimebaseHz), true
	}
	return 0, false
}

// bootTime is the origin of the time CSR.
var bootTime = time.Now()

// csrWrite writes a CSR, false if the guest may not write it (the
// counters are read-only). Bits beyond the CSR's fields are dropped.
func (m *Machine) csrWrite(csr uint16, v uint64) bool {
	switch csr {
	case CSRFflags:
		m.CPU.FCSR = m.CPU.FCSR&^0x1f | v&0x1f
	case CSRFrm:
		m.CPU.FCSR = m.CPU.FCSR&0x1f | (v&7)<<5
	case CSRFcsr:
		m.CPU.FCSR = v & 0xff
	default:
		return false
	}
	return true
}

// execExt executes an instruction outside RV64IM at pc: a CSR access, an
// atomic, or an F or D instruction. It fills e (the hook's Event; nil in
// the fast loop) beyond what Step set, and returns a *Fault, leaving the
// state as before, if the instruction cannot complete. The caller moves
// the pc on.
func (m *Machine) execExt(in Inst, pc uint64, e *Event) error {
	x := &m.CPU.X
	switch op := in.Op; {
	case op >= OpCSRRW && op <= OpCSRRCI:
		return m.execCSR(in, pc, e)
	case op >= OpLRW && op <= OpAMOMAXUD:
		return m.execAtomic(in, pc, e)
	case op == OpFLW || op == OpFLD:
		addr := x[in.Rs1&31] + uint64(in.Imm)
		if !m.Mem.readOK(addr) && !m.Mem.SlowOK(addr, MemWidth(op), AccR) {
			return m.accessFault(FaultLoad, pc, addr, in.Raw)
		}
		v := m.Mem.load64(addr)
		if op == OpFLW {
			v = box(m.Mem.load32(addr))
		}
		m.CPU.F[in.Rd&31] = v
		if e != nil {
			e.Addr, e.Value = addr, v
		}
	case op == OpFSW || op == OpFSD:
		addr := x[in.Rs1&31] + uint64(in.Imm)
		if !m.Mem.writeOK(addr) && !m.Mem.SlowOK(addr, MemWidth(op), AccW) {
			return m.accessFault(FaultStore, pc, addr, in.Raw)
		}
		v := m.CPU.F[in.Rs2&31]
		if op == OpFSW {
			v = uint64(uint32(v)) // fsw stores the low 32 bits whatever the boxing
			m.Mem.store32(addr, uint32(v))
		} else {
			m.Mem.store64(addr, v)
		}
		if e != nil {
			e.Addr, e.Value, e.Src2 = addr, v, m.CPU.F[in.Rs2&31]
		}
	default:
		return m.execFloat(in, pc, e)
	}
	return nil
}

// execCSR executes a Zicsr instruction. As the ISA specifies, csrrs and
// csrrc with rs1 = x0 (or a zero immediate) do not write the CSR, so that
// reading a read-only counter is legal and writing one is not.
func (m *Machine) execCSR(in Inst, pc uint64, e *Event) error {
	x := &m.CPU.X
	csr := uint16(in.Imm)
	src := uint64(in.Rs1) // the immediate forms
	if in.Op <= OpCSRRC {
		src = x[in.Rs1&31]
	}
	illegal := &Fault{Kind: FaultIllegal, PC: pc, Raw: in.Raw}
	write := in.Op == OpCSRRW || in.Op == OpCSRRWI || in.Rs1 != 0
	// No CSR here has a read side effect, so reading even where the ISA
	// says csrrw does not (rd = x0) changes nothing.
	old, ok := m.csrRead(csr)
	if !ok {
		return illegal
	}
	if write {
		v := src
		switch in.Op {
		case OpCSRRS, OpCSRRSI:
			v = old | src
		case OpCSRRC, OpCSRRCI:
			v = old &^ src
		}
		if !m.csrWrite(csr, v) {
			return illegal
		}
	}
	x[in.Rd&31] = old
	if e != nil {
		e.Value = old
	}
	return nil
}

// execAtomic executes an A-extension instruction. There is one hart, so
// every AMO is a plain read-modify-write and aq/rl order nothing further.
// lr sets a reservation on its address; sc succeeds (writes 0) only if the
// reservation is still held for the same address, and clears it either
// way (an sc without a matching lr fails and writes 1). A store by the
// same hart does not break the reservation (the ISA allows either; the
// Linux kernel's own LR/SC loops never depend on it). The address must be
// naturally aligned (otherwise SIGBUS, as Linux delivers for a misaligned
// AMO).
func (m *Machine) execAtomic(in Inst, pc uint64, e *Event) error {
	x := &m.CPU.X
	addr := x[in.Rs1&31]
	src := x[in.Rs2&31]
	dbl := in.Op >= OpLRD
	op := in.Op
	size := uint64(4)
	if dbl {
		op -= OpLRD - OpLRW
		size = 8
	}
	if addr&(size-1) != 0 {
		return &Fault{Kind: FaultMisaligned, PC: pc, Addr: addr, Raw: in.Raw}
	}
	if op != OpSCW && !m.Mem.readOK(addr) && !m.Mem.SlowOK(addr, size, AccR) {
		return m.accessFault(FaultLoad, pc, addr, in.Raw)
	}
	if op != OpLRW && !m.Mem.writeOK(addr) && !m.Mem.SlowOK(addr, size, AccW) {
		return m.accessFault(FaultStore, pc, addr, in.Raw)
	}
	load := func() uint64 {
		if dbl {
			return m.Mem.load64(addr)
		}
		return uint64(int64(int32(m.Mem.load32(addr))))
	}
	store := func(v uint64) {
		if dbl {
			m.Mem.store64(addr, v)
		} else {
			m.Mem.store32(addr, uint32(v))
		}
	}
	var rd, stored uint64
	switch op {
	case OpLRW:
		rd = load()
		m.CPU.Resv = addr + 1
	case OpSCW:
		rd = 1
		if m.CPU.Resv == addr+1 {
			store(src)
			rd, stored = 0, src
		}
		m.CPU.Resv = 0
	default:
		old := load()
		v := src
		if !dbl { // compare and combine as 32-bit values, sign-extended
			v = uint64(int64(int32(src)))
		}
		switch op {
		case OpAMOADDW:
			v = old + v
		case OpAMOXORW:
			v = old ^ v
		case OpAMOANDW:
			v = old & v
		case OpAMOORW:
			v = old | v
		case OpAMOMINW:
			v = uint64(min(int64(old), int64(v)))
		case OpAMOMAXW:
			v = uint64(max(int64(old), int64(v)))
		case OpAMOMINUW:
			v = minU(old, v, dbl)
		case OpAMOMAXUW:
			v = maxU(old, v, dbl)
		}
		store(v)
		rd, stored = old, v
	}
	x[in.Rd&31] = rd
	if e != nil {
		e.Addr, e.Value = addr, stored
		if op == OpLRW {
			e.Value = rd
		}
	}
	return nil
}

// minU and maxU compare as unsigned values of the access width (the
// operands of a word AMO are sign-extended: comparing their low 32 bits
// is comparing the words).
func minU(a, b uint64, dbl bool) uint64 {
	if !dbl && uint32(a) < uint32(b) || dbl && a < b {
		return a
	}
	return b
}

func maxU(a, b uint64, dbl bool) uint64 {
	if !dbl && uint32(a) > uint32(b) || dbl && a > b {
		return a
	}
	return b
}
