// The gdb stub for run --gdb: a listening address -> one debugger connection driving the VM (package gdb) -> the guest's exit status.

package main

import (
	"errors"
	"fmt"
	"io"

	"rvdyn"
	"rvdyn/gdb"
)

// debugTarget adapts rvdyn.Debugger to gdb.Target.
type debugTarget struct{ d *rvdyn.Debugger }

func (t debugTarget) Reg(n int) uint64 {
	c := t.d.CPU()
	switch {
	case n < 32:
		return c.X[n]
	case n == 32:
		return c.PC
	case n >= gdb.RegF0 && n < gdb.RegF0+32:
		return c.F[n-gdb.RegF0]
	case n == gdb.RegFflags:
		return c.FCSR & 0x1f
	case n == gdb.RegFrm:
		return c.FCSR >> 5 & 7
	case n == gdb.RegFcsr:
		return c.FCSR & 0xff
	}
	return 0
}

func (t debugTarget) SetReg(n int, v uint64) {
	c := t.d.CPU()
	switch {
	case n > 0 && n < 32:
		c.X[n] = v
	case n == 32:
		c.PC = v
	case n >= gdb.RegF0 && n < gdb.RegF0+32:
		c.F[n-gdb.RegF0] = v
	case n == gdb.RegFflags:
		c.FCSR = c.FCSR&^0x1f | v&0x1f
	case n == gdb.RegFrm:
		c.FCSR = c.FCSR&0x1f | (v&7)<<5
	case n == gdb.RegFcsr:
		c.FCSR = v & 0xff
	}
}

func (t debugTarget) ReadMem(a uint64, b []byte) error  { return t.d.ReadMem(a, b) }
func (t debugTarget) WriteMem(a uint64, b []byte) error { return t.d.WriteMem(a, b) }
func (t debugTarget) SetBreakpoint(pc uint64) error     { return t.d.SetBreakpoint(pc) }
func (t debugTarget) ClearBreakpoint(pc uint64) error   { return t.d.ClearBreakpoint(pc) }
func (t debugTarget) Step() gdb.Stop                    { return t.last(t.d.Step()) }
func (t debugTarget) Continue() gdb.Stop                { return t.last(t.d.Continue()) }

func (t debugTarget) Interrupt() { t.d.Interrupt() }

func (t debugTarget) last(s rvdyn.DebugStop) gdb.Stop {
	return gdb.Stop{Exited: s.Exited, Code: s.ExitCode, Signal: s.Signal}
}

// serveGDB waits on addr for one gdb connection and lets it drive the
// guest; when gdb detaches the guest runs on to its end. It returns the
// guest's exit status and run error as VM.Run does.
func serveGDB(vm *rvdyn.VM, addr string, stderr io.Writer) (int, error) {
	d, err := vm.Debugger()
	if err != nil {
		return 1, err
	}
	ln, err := listenTCP(addr)
	if err != nil {
		return exitUsage, fmt.Errorf("--gdb: %w", err)
	}
	fmt.Fprintf(stderr, "rvdyn: waiting for gdb on %s\n", ln.Addr())
	conn, err := ln.Accept()
	ln.Close()
	if err != nil {
		return exitUsage, fmt.Errorf("--gdb: %w", err)
	}
	defer conn.Close()
	err = gdb.Serve(conn, debugTarget{d})
	if errors.Is(err, gdb.ErrKilled) {
		return 128 + 9, nil // as a shell reports a process killed by SIGKILL
	}
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn: gdb connection: %v\n", err)
	}
	// Detached, or the connection ended: the guest runs on to its end.
	s := d.Continue()
	for !s.Exited && s.Err == nil {
		s = d.Continue() // an ebreak of the guest's own: no debugger to stop for
	}
	if s.Exited {
		return s.ExitCode, nil
	}
	code := 1
	if s.Signal != 9 {
		code = 128 + s.Signal
	}
	return code, s.Err
}
