package ir

import (
	"strings"
	"testing"
)

// TestSinkToExits: which shifts leave a self-loop's body for its exit
// stubs, and at which instruction the stubs start computing them.
func TestSinkToExits(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		loops    bool
		sunk     string // the sunk instructions and their At, one a line
		body     int    // instructions left, the end exit included
	}{
		{"a rotation's halves, sext.w of the source after them", `
			a0 = add a0, 1
			t0 = srlw a2, 13
			t1 = sllw a2, 19
			a3 = rorw a2, 13
			a2 = sext.w a2
			exit if beq a0, a1`, true, "t0 = srlw a2, 13 @1\nt1 = sllw a2, 19 @1", 5},
		{"not in a trace that does not loop", `
			a0 = add a0, 1
			t0 = srlw a2, 13`, false, "", 3},
		{"not the first instruction (the entry's exits come before)", `
			t0 = srlw a2, 13
			a0 = add a0, 1`, true, "", 3},
		{"not after an exit", `
			a0 = add a0, 1
			exit if beq a0, a1
			t0 = srlw a2, 13`, true, "", 4},
		{"not when something reads it", `
			a0 = add a0, 1
			t0 = srlw a2, 13
			a3 = add t0, 1`, true, "", 4},
		{"not when it is written again", `
			a0 = add a0, 1
			t0 = srlw a2, 13
			t0 = srlw a2, 2`, true, "", 4},
		{"not a 64-bit shift whose source is sign-extended after", `
			a0 = add a0, 1
			t0 = srl a2, 13
			a2 = sext.w a2`, true, "", 4},
		{"not when the source is written again", `
			a0 = add a0, 1
			t0 = srlw a2, 13
			a2 = add a2, 1`, true, "", 4},
		{"not a shift by a register", `
			a0 = add a0, 1
			t0 = srlw a2, a1`, true, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, tc.in)
			if tc.loops {
				f = buildLoop(t, tc.in)
			}
			SinkToExits(f)
			if err := Verify(f); err != nil {
				t.Fatalf("after the pass: %v\n%v", err, f)
			}
			var got []string
			for _, s := range f.Sunk {
				got = append(got, s.Inst.String()+" @"+string(rune('0'+s.At)))
			}
			if g := strings.Join(got, "\n"); g != tc.sunk || len(f.Insts) != tc.body {
				t.Errorf("sunk:\n%s\nwant:\n%s\n%d instructions left, want %d:\n%v", g, tc.sunk, len(f.Insts), tc.body, f)
			}
		})
	}
}
