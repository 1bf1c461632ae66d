package ir

import (
	"strings"
	"testing"
)

func TestVerifyCatches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(f *Func)
		want   string
	}{
		{"exit taken twice", func(f *Func) { f.Insts[1].Exit = f.Insts[0].Exit }, "taken twice"},
		{"exits out of order", func(f *Func) { f.Insts[0], f.Insts[1] = f.Insts[1], f.Insts[0] }, "after"},
		{"retired count changed", func(f *Func) { f.Exits[f.Insts[0].Exit].Retired++ }, "memory exit"},
		{"unchecked access to a register address", func(f *Func) { f.Insts[0].Exit = -1 }, "not proven"},
		{"value into x0", func(f *Func) { f.Insts[2].Dst = 0 }, "x0"},
		{"end exit missing", func(f *Func) { f.Insts = f.Insts[:len(f.Insts)-1] }, "end exit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, "a0 = ld 0(sp)\nexit if beq a0, 0\na1 = add a0, 1")
			tc.break_(f)
			err := Verify(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("verify = %v, want an error about %q", err, tc.want)
			}
		})
	}
}
