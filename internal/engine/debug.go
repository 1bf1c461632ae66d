// Debugging: a VM under a debugger's control -> registers, memory, breakpoints, single steps and continues.

package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"rvdyn/interp"
)

// A Debugger runs a VM in steps for a debugger (the gdb stub in package
// gdb): it reads and writes registers and memory, plants software
// breakpoints, single-steps and continues, in either mode.
//
// A breakpoint is an ebreak written over the guest instruction, as gdb
// itself plants one: the interpreter stops there with a breakpoint fault,
// and the code built from the page it lies on is dropped (the whole code
// cache, as fence.i does), so no fragment runs past it; traces recorded
// afterwards end before it, as they end before every system instruction.
// Reads through the Debugger show the original instruction. Single steps
// run the interpreter; continues run the dispatcher (dynamo mode) or the
// interpreter, until the guest exits, faults or reaches a breakpoint.
type Debugger struct {
	vm  *VM
	bps map[uint64]uint32 // breakpoint pc -> the instruction word it replaced
}

// DebugStop says why a step or continue returned: the guest exited (with
// ExitCode), or it stopped with a signal (5, SIGTRAP, after a step or at a
// breakpoint; a fault's signal otherwise). Err is the run error, if any
// (a *interp.Fault, interp.ErrLimit or ErrTimeout).
type DebugStop struct {
	Exited   bool
	ExitCode int
	Signal   int
	Err      error
}

const (
	ebreak  = 0x00100073 // ebreak
	cEbreak = 0x9002     // c.ebreak
)

// Debugger returns a debugger for vm, which must not have run: the VM then
// runs only through it.
func (vm *VM) Debugger() (*Debugger, error) {
	if vm.ran {
		return nil, fmt.Errorf("rvdyn: VM already ran")
	}
	vm.ran = true
	vm.armTimeout() // the timeout counts from now, stopped at the prompt or not
	return &Debugger{vm: vm, bps: make(map[uint64]uint32)}, nil
}

// Interrupt asks a Continue in progress to stop soon (within about a
// million guest instructions), as gdb's Ctrl-C does; the Continue then
// returns Signal 2 (SIGINT). It may be called from any goroutine.
func (d *Debugger) Interrupt() { d.vm.interrupt.Store(true) }

// CPU returns the guest registers, to read and write between steps.
func (d *Debugger) CPU() *interp.CPU { return d.vm.m.CPU }

// ErrBadAddress is returned for a memory access outside the guest's
// readable memory.
var ErrBadAddress = errors.New("address outside guest memory")

// ReadMem fills b from guest memory at addr; breakpoints read as the
// instructions they replaced.
func (d *Debugger) ReadMem(addr uint64, b []byte) error {
	n := uint64(len(b))
	if !d.vm.m.Mem.CanRead(addr, n) {
		return ErrBadAddress
	}
	copy(b, d.vm.m.Mem.Bytes(addr, n))
	for pc, word := range d.bps {
		for i := uint64(0); i < 4; i++ {
			if a := pc + i; a >= addr && a < addr+n {
				b[a-addr] = byte(word >> (8 * i))
			}
		}
	}
	return nil
}

// WriteMem writes b into guest memory at addr: anywhere the guest may
// read, the program text included (whose translations are then dropped).
func (d *Debugger) WriteMem(addr uint64, b []byte) error {
	n := uint64(len(b))
	if !d.vm.m.Mem.CanRead(addr, n) {
		return ErrBadAddress
	}
	copy(d.vm.m.Mem.Bytes(addr, n), b)
	d.textWritten(addr, addr+n)
	return nil
}

// textWritten drops the predecoded text and the fragments built from
// [lo, hi).
func (d *Debugger) textWritten(lo, hi uint64) {
	vm := d.vm
	vm.m.TextWritten(lo, hi)
	changed := vm.m.TextChanged()
	if vm.cache == nil {
		return
	}
	vm.dropStale(changed)
}

// SetBreakpoint plants a breakpoint at pc, which must be an instruction
// of the program text: ebreak over a 32-bit instruction, c.ebreak over a
// compressed one (so the next instruction stays intact).
func (d *Debugger) SetBreakpoint(pc uint64) error {
	if _, ok := d.bps[pc]; ok {
		return nil
	}
	if pc&1 != 0 || !d.vm.m.IsText(pc) {
		return fmt.Errorf("breakpoint at 0x%x: not an instruction of the program text", pc)
	}
	b := d.vm.m.Mem.Bytes(pc, 4)
	d.bps[pc] = binary.LittleEndian.Uint32(b)
	d.plant(pc)
	return nil
}

// bpLen returns the length of the instruction a breakpoint saved.
func bpLen(saved uint32) uint64 {
	if saved&3 != 3 {
		return 2
	}
	return 4
}

// plant writes the ebreak of the breakpoint at pc.
func (d *Debugger) plant(pc uint64) {
	n := bpLen(d.bps[pc])
	b := d.vm.m.Mem.Bytes(pc, n)
	if n == 2 {
		binary.LittleEndian.PutUint16(b, cEbreak)
	} else {
		binary.LittleEndian.PutUint32(b, ebreak)
	}
	d.textWritten(pc, pc+n)
}

// ClearBreakpoint removes the breakpoint at pc, if there is one.
func (d *Debugger) ClearBreakpoint(pc uint64) error {
	word, ok := d.bps[pc]
	if !ok {
		return nil
	}
	delete(d.bps, pc)
	n := bpLen(word)
	b := d.vm.m.Mem.Bytes(pc, n)
	if n == 2 {
		binary.LittleEndian.PutUint16(b, uint16(word))
	} else {
		binary.LittleEndian.PutUint32(b, word)
	}
	d.textWritten(pc, pc+n)
	return nil
}

// Step executes one guest instruction in the interpreter (the
// instruction under a breakpoint at pc included).
func (d *Debugger) Step() DebugStop {
	m := d.vm.m
	if m.Exited() {
		return d.stop(nil)
	}
	pc := m.CPU.PC
	word, atBP := d.bps[pc]
	if atBP {
		d.ClearBreakpoint(pc)
	}
	_, err := m.Step()
	if atBP {
		d.bps[pc] = word
		d.plant(pc)
	}
	return d.stop(err)
}

// Continue runs the guest until it exits, faults or reaches a breakpoint.
func (d *Debugger) Continue() DebugStop {
	vm := d.vm
	if vm.m.Exited() {
		return d.stop(nil)
	}
	if _, ok := d.bps[vm.m.CPU.PC]; ok {
		// Step off the breakpoint under pc first, as gdb does.
		if s := d.Step(); s.Exited || s.Signal != 5 || s.Err != nil {
			return s
		}
		if _, ok := d.bps[vm.m.CPU.PC]; ok {
			return d.stop(nil)
		}
	}
	start := time.Now()
	var err error
	if vm.opts.Mode == ModeInterp {
		err = vm.interpret()
	} else {
		err = vm.dispatch()
	}
	vm.ctr.wall += time.Since(start)
	if vm.interrupt.Swap(false) && errors.Is(err, ErrTimeout) && !vm.timedOut.Load() && !vm.m.Exited() {
		return DebugStop{Signal: 2}
	}
	return d.stop(err)
}

func (d *Debugger) stop(err error) DebugStop {
	m := d.vm.m
	if err = d.vm.timeoutErr(err); errors.Is(err, ErrTimeout) {
		return DebugStop{Signal: 9, Err: err} // the run is over
	}
	if m.Exited() {
		d.vm.ctr.exitCode = m.ExitCode()
		return DebugStop{Exited: true, ExitCode: m.ExitCode()}
	}
	var f *interp.Fault
	switch {
	case err == nil:
		return DebugStop{Signal: 5}
	case errors.As(err, &f):
		return DebugStop{Signal: f.Kind.Signal(), Err: err}
	}
	return DebugStop{Signal: 9, Err: err} // a limit: the run is over
}
