package ir

import (
	"strings"
	"testing"
)

// crcLookups is two of crc32's slice-by-8 lookups off the table base a6.
const crcLookups = `
	a4 = zext.b a5
	a7 = add a4, 768
	a7 = sll a7, 2
	a7 = add a6, a7
	a7 = lw 0(a7)
	t6 = srlw a5, 24
	t6 = sll t6, 2
	t6 = add a6, t6
	t0 = lw 0(t6)`

func TestCheckRange(t *testing.T) {
	runPassCases(t, CheckRange, []passCase{
		{"crc32's lookups share one check on the table base", crcLookups, `
			a4 = zext.b a5
			a7 = add a4, 768
			a7 = sll a7, 2
			a7 = add a6, a7
			check load 0..4092(a6)
			a7 = lw 0(a7) nocheck
			t6 = srlw a5, 24
			t6 = sll t6, 2
			t6 = add a6, t6
			t0 = lw 0(t6) nocheck`},
		{"an unbounded index keeps its check", `
			a7 = add a6, a5
			a0 = lw 0(a7)
			t6 = srl a5, 8
			t6 = add a6, t6
			a1 = lw 0(t6)`, `
			a7 = add a6, a5
			a0 = lw 0(a7)
			t6 = srl a5, 8
			t6 = add a6, t6
			a1 = lw 0(t6)`},
		{"an index wider than MaxCoverSpan keeps its check", `
			a4 = zext.h a5
			a4 = sll a4, 2
			a7 = add a6, a4
			a0 = lw 0(a7)`, `
			a4 = zext.h a5
			a4 = sll a4, 2
			a7 = add a6, a4
			a0 = lw 0(a7)`},
		{"redefining the base register splits the group", `
			a4 = zext.b a5
			a7 = add a6, a4
			a0 = lbu 0(a7)
			a6 = ld 8(sp)
			t1 = add a6, a4
			a1 = lbu 0(t1)`, `
			a4 = zext.b a5
			a7 = add a6, a4
			check load 0..255(a6)
			a0 = lbu 0(a7) nocheck
			a6 = ld 8(sp)
			t1 = add a6, a4
			check load 0..255(a6)
			a1 = lbu 0(t1) nocheck`},
		{"no register holds the base: the lookup keeps its check", `
			a4 = zext.b a5
			a7 = add a6, a4
			a6 = ld 8(sp)
			a0 = lbu 0(a7)`, `
			a4 = zext.b a5
			a7 = add a6, a4
			a6 = ld 8(sp)
			a0 = lbu 0(a7)`},
		{"the check goes on the register nearest to the lookups", `
			t1 = add a6, 0x8000000000
			a4 = zext.b a5
			a7 = add t1, a4
			a0 = lw 0(a7)`, `
			t1 = add a6, 0x8000000000
			a4 = zext.b a5
			a7 = add t1, a4
			check load 0..255(t1)
			a0 = lw 0(a7) nocheck`},
		{"a base register too far from the lookups keeps their checks", `
			t1 = add a6, 0x8000000000
			a4 = zext.b a5
			a7 = add t1, a4
			t1 = mov 0
			a0 = lw 0(a7)`, `
			t1 = add a6, 0x8000000000
			a4 = zext.b a5
			a7 = add t1, a4
			t1 = mov 0
			a0 = lw 0(a7)`},
		{"the base at a distance, a moved index, and a store (histogram)", `
			t2 = add a6, 16
			a4 = lbu 0(a1)
			a4 = sll a4, 2
			a7 = add a4, a6
			a7 = add a7, 4
			t0 = lw 0(a7)
			t0 = add t0, 1
			sw t0, -4(a7)`, `
			t2 = add a6, 16
			a4 = lbu 0(a1)
			a4 = sll a4, 2
			a7 = add a4, a6
			a7 = add a7, 4
			check store 0..1024(a6)
			t0 = lw 0(a7) nocheck
			t0 = add t0, 1
			sw t0, -4(a7) nocheck`},
		{"two bounded parts add up (a two-level index)", `
			a4 = srlw a5, 28
			a3 = and a5, 15
			a3 = sll a3, 4
			a4 = add a4, a3
			a7 = add a6, a4
			a0 = lbu 3(a7)`, `
			a4 = srlw a5, 28
			a3 = and a5, 15
			a3 = sll a3, 4
			a4 = add a4, a3
			a7 = add a6, a4
			check load 3..258(a6)
			a0 = lbu 3(a7) nocheck`},
	})
}

// TestRanges pins the range of each rule: the registers' values after a
// sequence, [lo, hi] or unbounded.
func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		lo, hi    int64
		ok        bool
	}{
		{"zext.b", "a0 = zext.b a1", 0, 255, true},
		{"zext.h", "a0 = zext.h a1", 0, 65535, true},
		{"zext.w", "a0 = zext.w a1", 0, 1<<32 - 1, true},
		{"lbu", "a0 = lbu 0(sp)", 0, 255, true},
		{"lhu", "a0 = lhu 0(sp)", 0, 65535, true},
		{"lb is signed", "a0 = lb 0(sp)", 0, 0, false},
		{"andi", "a0 = and a1, 1023", 0, 1023, true},
		{"andi with a negative mask", "a0 = and a1, -16", 0, 0, false},
		{"and of a bounded value", "a1 = zext.b a2\na0 = and a1, 1023", 0, 255, true},
		{"srliw", "a0 = srlw a1, 24", 0, 255, true},
		{"srlw by 0 sign-extends", "a0 = srlw a1, 0", 0, 0, false},
		{"srlw by a register", "a0 = srlw a1, a2", 0, 0, false},
		{"srli by a large amount", "a0 = srl a1, 56", 0, 255, true},
		{"srli by a small amount", "a0 = srl a1, 8", 0, 0, false},
		{"srli of a bounded value", "a1 = zext.h a2\na0 = srl a1, 4", 0, 4095, true},
		{"slli of a bounded value", "a1 = zext.b a2\na0 = sll a1, 3", 0, 2040, true},
		{"slli that could overflow", "a1 = zext.w a2\na0 = sll a1, 9", 0, 0, false},
		{"add of a constant", "a1 = zext.b a2\na0 = add a1, 768", 768, 1023, true},
		{"add of a negative constant", "a1 = zext.b a2\na0 = add a1, -1", 0, 0, false},
		{"add of two bounded values", "a1 = zext.b a2\na3 = zext.b a4\na0 = add a1, a3", 0, 510, true},
		{"a move", "a1 = zext.b a2\na0 = mov a1", 0, 255, true},
		{"a constant is no bound", "a0 = mov 5", 0, 0, false},
		{"anything else", "a1 = zext.b a2\na0 = sub a1, 1", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, tc.src)
			vals, rg := newValues(), &ranges{}
			for i := range f.Insts {
				rg.write(&f.Insts[i], vals)
				vals.write(&f.Insts[i])
			}
			b := rg.b[regNum(t, "a0")]
			if b.ok != tc.ok || tc.ok && (b.lo != tc.lo || b.hi != tc.hi) {
				t.Errorf("a0 in %+v, want [%d, %d] ok %v", b, tc.lo, tc.hi, tc.ok)
			}
		})
	}
}

// TestCheckRangeHoisted: in a self-loop whose table base does not
// change, CheckHoist moves the lookups' one check to the entry, and the
// body has no check left.
func TestCheckRangeHoisted(t *testing.T) {
	f := buildLoop(t, "a5 = lw 0(a1)\na1 = add a1, 4\n"+crcLookups+"\nexit if beq a1, a3")
	CheckRange(f)
	if err := Verify(f); err != nil {
		t.Fatalf("after CheckRange: %v\n%v", err, f)
	}
	CheckHoist(f)
	if err := Verify(f); err != nil {
		t.Fatalf("after CheckHoist: %v\n%v", err, f)
	}
	want := `trip: a1 steps by 4, exit when a1+4 == a3
		loopcheck load 0..0(a1) stepping 4 else exit 0
		loopcheck load 0..4092(a6) stepping 0 else exit 1
		a5 = lw 0(a1) nocheck
		a1 = add a1, 4
		a4 = zext.b a5
		a7 = add a4, 768
		a7 = sll a7, 2
		a7 = add a6, a7
		a7 = lw 0(a7) nocheck
		t6 = srlw a5, 24
		t6 = sll t6, 2
		t6 = add a6, t6
		t0 = lw 0(t6) nocheck
		exit if beq a1, a3`
	if got, want := strings.TrimSpace(loopText(f)), trimLines(want); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestCheckRangeLoopBaseChanges: a table base that the loop changes is
// not hoisted; its check stays in the body, before the first lookup.
func TestCheckRangeLoopBaseChanges(t *testing.T) {
	f := buildLoop(t, "a4 = lbu 0(a1)\na7 = add a6, a4\na0 = lbu 0(a7)\na6 = xor a6, a0\nexit if beq a0, 0")
	CheckRange(f)
	CheckHoist(f)
	if err := Verify(f); err != nil {
		t.Fatalf("%v\n%v", err, f)
	}
	if got := text(f); !strings.Contains(got, "check load 0..255(a6)\na0 = lbu 0(a7) nocheck") {
		t.Errorf("got:\n%s", got)
	}
}

func trimLines(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	return strings.Join(lines, "\n")
}

// TestVerifyRange: the verifier proves lookups covered with the ranges,
// and rejects a Func whose check or index no longer covers them.
func TestVerifyRange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(f *Func)
		want   string
	}{
		{"as CheckRange left it", func(f *Func) {}, ""},
		{"the index widened", func(f *Func) { f.Insts[0].Op = OpZext16 }, "not proven"},
		{"the row moved", func(f *Func) { f.Insts[1].B = C(769) }, "not proven"},
		{"the check narrowed", func(f *Func) { f.Insts[4].Cover.Hi -= 4 }, "not proven"},
		{"the check on another register", func(f *Func) { f.Insts[4].A = R(regNum(t, "a5")) }, "not proven"},
		{"the base added to itself", func(f *Func) { f.Insts[8].B = R(regNum(t, "a6")) }, "not proven"},
		{"a load check for a store", func(f *Func) {
			in := &f.Insts[5]
			in.Op, in.Dst, in.B = opByName(t, "sw"), 0, R(regNum(t, "a0"))
		}, "not proven"},
		{"the check after the lookup", func(f *Func) { f.Insts[4], f.Insts[5] = f.Insts[5], f.Insts[4] }, "not proven"},
		{"a check that does not fit", func(f *Func) { f.Insts[4].Cover.Hi = 1 << 20 }, "fit"},
		{"a check too far off its register", func(f *Func) { f.Insts[4].Cover.Lo, f.Insts[4].Cover.Hi = 1<<30, 1<<30+4 }, "fit"},
		{"a check with no exit", func(f *Func) { f.Insts[4].Exit = -1 }, "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, crcLookups)
			CheckRange(f)
			if f.Insts[4].Op != OpCheck {
				t.Fatalf("no check at 4:\n%v", f)
			}
			tc.break_(f)
			err := Verify(f)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("verify = %v, want an error about %q\n%v", err, tc.want, f)
			}
		})
	}
}
