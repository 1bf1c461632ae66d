package ir

import "testing"

func TestDCE(t *testing.T) {
	runPassCases(t, DCE, []passCase{
		{"a write overwritten before any read or exit", `
			a0 = sll a1, 32
			a0 = zext.w a1`, `
			a0 = zext.w a1`},
		{"an exit in between keeps it", `
			a0 = add a1, 1
			exit if beq a2, 0
			a0 = add a1, 2`, `
			a0 = add a1, 1
			exit if beq a2, 0
			a0 = add a1, 2`},
		{"a faulting load that overwrites needs the old value at its exit", `
			a0 = add a1, 1
			a0 = ld 0(a2)`, `
			a0 = add a1, 1
			a0 = ld 0(a2)`},
		{"a read in between keeps it", `
			a0 = add a1, 1
			a2 = add a0, 1
			a0 = add a1, 2`, `
			a0 = add a1, 1
			a2 = add a0, 1
			a0 = add a1, 2`},
		{"a self move goes, and so does a proven load nobody reads", `
			a0 = mov a0
			a1 = ld 0(0x20000) nocheck
			a1 = mov 5`, `
			a1 = mov 5`},
		{"stores stay", `
			sd a0, 0(sp)
			a0 = mov 1
			a0 = mov 2`, `
			sd a0, 0(sp)
			a0 = mov 2`},
	})
}

func TestDCEKeepsCheckedLoad(t *testing.T) {
	// The bounds check of a load whose value is dead still decides the
	// exit, so the load stays.
	f := build(t, "a0 = ld 0(sp)\na0 = mov 1")
	DCE(f)
	if len(f.Insts) != 3 {
		t.Fatalf("got\n%v", f)
	}
}
