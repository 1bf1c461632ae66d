package ir

import "testing"

func TestCopyProp(t *testing.T) {
	runPassCases(t, CopyProp, []passCase{
		{"reads of a copy read the source", `
			a0 = mov a1
			a2 = add a0, a0
			sd a0, 0(a0)`, `
			a0 = mov a1
			a2 = add a1, a1
			sd a1, 0(a1)`},
		{"redefining the source ends the copy", `
			a0 = mov a1
			a1 = add a1, 1
			a2 = add a0, 1`, `
			a0 = mov a1
			a1 = add a1, 1
			a2 = add a0, 1`},
		{"redefining the copy ends it", `
			a0 = mov a1
			a0 = add a0, 1
			a2 = add a0, 1`, `
			a0 = mov a1
			a0 = add a1, 1
			a2 = add a0, 1`},
		{"chains resolve to the first source", `
			a0 = mov a1
			a2 = mov a0
			a3 = add a2, 0`, `
			a0 = mov a1
			a2 = mov a1
			a3 = add a1, 0`},
	})
}
