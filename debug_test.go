package rvdyn_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestDebuggerBreakInCompiledCode plants a breakpoint in a loop that is
// already compiled (dynamo mode, after the first of gdbdemo's two passes):
// the guest must stop there, with the first pass's registers, and run on
// to the right exit status once the breakpoint is gone.
func TestDebuggerBreakInCompiledCode(t *testing.T) {
	image, err := os.ReadFile("bench/corpus/sys/gdbdemo.elf")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []rvdyn.Mode{rvdyn.ModeDynamo, rvdyn.ModeInterp} {
		vm, err := rvdyn.New(image, rvdyn.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		d, err := vm.Debugger()
		if err != nil {
			t.Fatal(err)
		}
		addr := func(name string) uint64 {
			for _, s := range vm.Symbols().All() {
				if s.Name == name {
					return s.Addr
				}
			}
			t.Fatalf("no symbol %s", name)
			return 0
		}
		sum, square := addr("sum"), addr("square")
		must(t, d.SetBreakpoint(sum))
		for pass := 1; pass <= 2; pass++ {
			if s := d.Continue(); s.Signal != 5 || d.CPU().PC != sum {
				t.Fatalf("%v pass %d: stop %+v at pc 0x%x, want the breakpoint at sum 0x%x", mode, pass, s, d.CPU().PC, sum)
			}
		}
		if mode == rvdyn.ModeDynamo && vm.Stats().Fragments == 0 {
			t.Fatalf("no fragments after the first pass")
		}
		must(t, d.ClearBreakpoint(sum))
		must(t, d.SetBreakpoint(square))
		if s := d.Continue(); s.Signal != 5 || d.CPU().PC != square || d.CPU().X[10] != 1 {
			t.Fatalf("%v: stop %+v at pc 0x%x a0 %d, want square(1)", mode, s, d.CPU().PC, d.CPU().X[10])
		}
		var word [4]byte
		must(t, d.ReadMem(square, word[:]))
		if word == [4]byte{0x73, 0, 0x10, 0} {
			t.Errorf("%v: memory read shows the breakpoint, not the instruction", mode)
		}
		if s := d.Step(); s.Signal != 5 || d.CPU().PC != square+4 {
			t.Errorf("%v: step: %+v, pc 0x%x", mode, s, d.CPU().PC)
		}
		must(t, d.ClearBreakpoint(square))
		if s := d.Continue(); !s.Exited || s.ExitCode != 56 {
			t.Errorf("%v: %+v, want exit 56", mode, s)
		}
	}
}

// TestDebuggerInterrupt: Interrupt, from another goroutine, stops a long
// Continue with SIGINT in both modes, and the guest can be stepped on.
func TestDebuggerInterrupt(t *testing.T) {
	image, err := os.ReadFile("bench/corpus/sys/gdbdemo.elf")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []rvdyn.Mode{rvdyn.ModeDynamo, rvdyn.ModeInterp} {
		vm, err := rvdyn.New(image, rvdyn.Options{Mode: mode, Config: interp.Config{Args: []string{"gdbdemo", "4000000000"}}})
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		d, err := vm.Debugger()
		if err != nil {
			t.Fatal(err)
		}
		go d.Interrupt()
		if s := d.Continue(); s.Exited || s.Signal != 2 {
			t.Fatalf("%v: %+v, want a SIGINT stop", mode, s)
		}
		if s := d.Step(); s.Signal != 5 {
			t.Errorf("%v: step after the interrupt: %+v", mode, s)
		}
	}
}

// TestDebuggerTimeout: the timeout ends a Continue whose guest is blocked
// in a read of an empty pipe, in both modes, as a SIGKILL stop with
// ErrTimeout, not as the exit of a guest killed by a signal.
func TestDebuggerTimeout(t *testing.T) {
	// loop: read(0, data, 16)
	image := rvtest.MakeELF(words(
		I{Op: interp.OpADDI, Rd: 10},
		I{Op: interp.OpLUI, Rd: 11, Imm: 0x20000},
		I{Op: interp.OpADDI, Rd: 12, Imm: 16},
		I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysRead},
		I{Op: interp.OpECALL},
		I{Op: interp.OpJAL, Imm: -20},
	), nil, 4096)
	for _, mode := range []rvdyn.Mode{rvdyn.ModeDynamo, rvdyn.ModeInterp} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		vm, err := rvdyn.New(image, rvdyn.Options{Mode: mode, Timeout: 50 * time.Millisecond, Config: interp.Config{Stdin: r}})
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		d, err := vm.Debugger()
		if err != nil {
			t.Fatal(err)
		}
		if s := d.Continue(); s.Exited || s.Signal != 9 || !errors.Is(s.Err, rvdyn.ErrTimeout) {
			t.Errorf("%v: %+v, want a SIGKILL stop with ErrTimeout", mode, s)
		}
	}
}
