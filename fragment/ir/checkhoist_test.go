package ir

import (
	"strings"
	"testing"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// buildLoop is build for a self-loop: the end exit goes back to the head.
func buildLoop(t *testing.T, src string) *Func {
	t.Helper()
	f := build(t, src)
	f.Loops = true
	f.Exits[len(f.Exits)-1].Target = f.Head
	if err := Verify(f); err != nil {
		t.Fatal(err)
	}
	return f
}

// loopText prints f's trip, entry checks and body in the DSL.
func loopText(f *Func) string {
	var b strings.Builder
	if f.Trip.Step != 0 {
		b.WriteString(strings.TrimSpace(strings.SplitN(f.String(), "\n", 2)[0]) + "\n")
	}
	for _, in := range f.Pre {
		b.WriteString(exitRefs.ReplaceAllString(in.String(), "") + "\n")
	}
	b.WriteString(text(f))
	return b.String()
}

func TestCheckHoist(t *testing.T) {
	cases := []passCase{
		{"matmul's inner loop", `
			a3 = lw 0(a2)
			a4 = ld 0(a5)
			a5 = add a5, 8
			a3 = mul a3, a1
			a2 = add a2, 4
			a4 = add a4, a3
			sd a4, -8(a5)
			exit if beq a0, a5`, `
			trip: a5 steps by 8, exit when a5+8 == a0
			loopcheck load 0..0(a2) stepping 4 else exit 0
			loopcheck store 0..0(a5) stepping 8 else exit 1
			a3 = lw 0(a2) nocheck
			a4 = ld 0(a5) nocheck
			a5 = add a5, 8
			a3 = mul a3, a1
			a2 = add a2, 4
			a4 = add a4, a3
			sd a4, -8(a5) nocheck
			exit if beq a0, a5`},
		{"an invariant base needs no trip", `
			a0 = lw 16(s1)
			a1 = lw 24(s1)
			a2 = add a2, a0
			exit if bltu a2, a1`, `
			loopcheck load 16..24(s1) stepping 0 else exit 0
			a0 = lw 16(s1) nocheck
			a1 = lw 24(s1) nocheck
			a2 = add a2, a0
			exit if bltu a2, a1`},
		{"a stepping base without an exact exit keeps its checks", `
			a0 = lbu 0(a1)
			a1 = add a1, 1
			exit if beq a0, 0`, `
			a0 = lbu 0(a1)
			a1 = add a1, 1
			exit if beq a0, 0`},
		{"a base loaded in the loop keeps its checks", `
			s0 = ld 8(s0)
			a0 = ld 0(s0)
			exit if beq s0, 0`, `
			s0 = ld 8(s0)
			a0 = ld 0(s0)
			exit if beq s0, 0`},
		{"an end the loop changes gives no trip", `
			a0 = ld 0(a5)
			a5 = add a5, 8
			a1 = add a1, -8
			exit if beq a1, a5`, `
			a0 = ld 0(a5)
			a5 = add a5, 8
			a1 = add a1, -8
			exit if beq a1, a5`},
		{"another exit leaves only invariant bases to hoist", `
			a0 = ld 0(a5)
			a2 = lw 8(s1)
			exit if beq a0, a2
			a5 = add a5, 8
			exit if beq a5, a1`, `
			loopcheck load 8..8(s1) stepping 0 else exit 0
			a0 = ld 0(a5)
			a2 = lw 8(s1) nocheck
			exit if beq a0, a2
			a5 = add a5, 8
			exit if beq a5, a1`},
		{"a step that is not a power of two keeps its checks", `
			a0 = ld 0(a5)
			a5 = add a5, 24
			exit if beq a5, a1`, `
			a0 = ld 0(a5)
			a5 = add a5, 24
			exit if beq a5, a1`},
		{"a derived base: an invariant plus an induction register (glibc's byte copy)", `
			a2 = lbu 0(a5)
			a5 = add a5, 1
			a3 = add a4, a5
			sb a2, 0(a3)
			exit if beq a1, a5`, `
			trip: a5 steps by 1, exit when a5+1 == a1
			loopcheck load 0..0(a5) stepping 1 else exit 0
			loopcheck store 1..1(a4+a5) stepping 1 else exit 1
			a2 = lbu 0(a5) nocheck
			a5 = add a5, 1
			a3 = add a4, a5
			sb a2, 0(a3) nocheck
			exit if beq a1, a5`},
		{"a sum of two induction registers whose step is not a power of two keeps its checks", `
			a0 = ld 0(a5)
			a3 = add a5, a2
			sd a0, 0(a3)
			a5 = add a5, 8
			a2 = add a2, 4
			exit if beq a5, a1`, `
			trip: a5 steps by 8, exit when a5+8 == a1
			loopcheck load 0..0(a5) stepping 8 else exit 0
			a0 = ld 0(a5) nocheck
			a3 = add a5, a2
			sd a0, 0(a3)
			a5 = add a5, 8
			a2 = add a2, 4
			exit if beq a5, a1`},
		{"a 32-bit counter bounds the loop (C's int i)", `
			a2 = ld 0(a4)
			a4 = add a4, 8
			a3 = addw a5, 1
			a5 = mov a3
			exit if beq a3, a6`, `
			trip: a5 steps by 1, exit when a5+1 == a6 (32-bit)
			loopcheck load 0..0(a4) stepping 8 else exit 0
			a2 = ld 0(a4) nocheck
			a4 = add a4, 8
			a3 = addw a5, 1
			a5 = mov a3
			exit if beq a3, a6`},
		{"a 32-bit counter against a constant outside 32 bits gives no trip", `
			a2 = ld 0(a4)
			a4 = add a4, 8
			a5 = addw a5, 1
			exit if beq a5, 4294967296`, `
			a2 = ld 0(a4)
			a4 = add a4, 8
			a5 = addw a5, 1
			exit if beq a5, 0x100000000`},
		{"a counter compared in 32 bits but stepped in 64 gives no trip", `
			a2 = ld 0(a4)
			a4 = add a4, 8
			a3 = addw a5, 1
			a5 = add a5, 1
			exit if beq a3, a6`, `
			a2 = ld 0(a4)
			a4 = add a4, 8
			a3 = addw a5, 1
			a5 = add a5, 1
			exit if beq a3, a6`},
		{"a downward walk", `
			a0 = ld -8(a5)
			a5 = add a5, -8
			exit if beq a5, a1`, `
			trip: a5 steps by -8, exit when a5-8 == a1
			loopcheck load -8..-8(a5) stepping -8 else exit 0
			a0 = ld -8(a5) nocheck
			a5 = add a5, -8
			exit if beq a5, a1`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := buildLoop(t, tc.in)
			CheckHoist(f)
			if err := Verify(f); err != nil {
				t.Fatalf("after the pass: %v\n%v", err, f)
			}
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(tc.want), "\n") {
				want = append(want, strings.TrimSpace(l))
			}
			if got := strings.TrimSpace(loopText(f)); got != strings.Join(want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

// TestCheckHoistNotInStraightTraces: a trace that does not loop keeps its
// checks.
func TestCheckHoistNotInStraightTraces(t *testing.T) {
	f := build(t, "a3 = lw 0(a2)\na2 = add a2, 4\nexit if beq a2, a0")
	CheckHoist(f)
	if len(f.Pre) != 0 || f.Insts[0].Exit < 0 {
		t.Errorf("hoisted out of a straight trace:\n%v", f)
	}
}

// TestVerifyLoopChecks: the verifier rejects loop checks the body does
// not justify.
func TestVerifyLoopChecks(t *testing.T) {
	hoisted := func(t *testing.T, src string) *Func {
		f := buildLoop(t, src)
		CheckHoist(f)
		if len(f.Pre) == 0 {
			t.Fatalf("nothing hoisted:\n%v", f)
		}
		if err := Verify(f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const loop = "a0 = ld 0(a5)\na5 = add a5, 8\nexit if beq a5, a1"
	breaks := map[string]func(f *Func){
		"a wrong step":                 func(f *Func) { f.Pre[0].B = C(16) },
		"a range too small":            func(f *Func) { f.Pre[0].Cover.Hi = -1; f.Pre[0].Cover.Lo = -8 },
		"a wrong trip step":            func(f *Func) { f.Trip.Step = 16 },
		"a trip with no guard":         func(f *Func) { f.Trip.Delta = 0 },
		"no trip for a step":           func(f *Func) { f.Trip = Trip{} },
		"a base stepped by a register": func(f *Func) { f.Insts[1].B = R(11) },
	}
	const copyLoop = "a2 = lbu 0(a5)\na5 = add a5, 1\na3 = add a4, a5\nsb a2, 0(a3)\nexit if beq a1, a5"
	derived := map[string]func(f *Func){
		"a derived base with a wrong step":              func(f *Func) { f.Pre[1].B = C(2) },
		"a derived base's registers out of order":       func(f *Func) { f.Pre[1].A, f.Pre[1].Index = R(15), 14 },
		"a derived base of other registers":             func(f *Func) { f.Pre[1].A = R(10) },
		"a derived base without its induction register": func(f *Func) { f.Pre[1].Index = 20 },
		"a second register on a body instruction":       func(f *Func) { f.Insts[0].Index = 3 },
	}
	const countLoop = "a2 = ld 0(a4)\na4 = add a4, 8\na5 = addw a5, 1\nexit if beq a5, a6"
	counted := map[string]func(f *Func){
		"a 32-bit trip taken for a 64-bit one": func(f *Func) { f.Trip.W = false },
		"a 32-bit trip's end outside 32 bits":  func(f *Func) { f.Trip.End = C(1 << 32) },
	}
	for name, brk := range counted {
		t.Run(name, func(t *testing.T) {
			f := hoisted(t, countLoop)
			if !f.Trip.W {
				t.Fatalf("no 32-bit trip:\n%v", f)
			}
			brk(f)
			if err := Verify(f); err == nil {
				t.Errorf("Verify accepted\n%v", f)
			}
		})
	}
	t.Run("a 64-bit trip taken for a 32-bit one", func(t *testing.T) {
		f := hoisted(t, loop)
		f.Trip.W = true
		if err := Verify(f); err == nil {
			t.Errorf("Verify accepted\n%v", f)
		}
	})
	for name, brk := range derived {
		t.Run(name, func(t *testing.T) {
			f := hoisted(t, copyLoop)
			if len(f.Pre) != 2 || f.Pre[1].Index == 0 {
				t.Fatalf("no derived base hoisted:\n%v", f)
			}
			brk(f)
			if err := Verify(f); err == nil {
				t.Errorf("Verify accepted\n%v", f)
			}
		})
	}
	for name, brk := range breaks {
		t.Run(name, func(t *testing.T) {
			f := hoisted(t, loop)
			brk(f)
			if err := Verify(f); err == nil {
				t.Errorf("Verify accepted\n%v", f)
			}
		})
	}
}

// TestCheckHoistFloat: a loop over doubles (fld, fsd off a stepping base)
// has its checks hoisted to the entry, as the integer accesses do.
func TestCheckHoistFloat(t *testing.T) {
	f := buildLoop(t, `
			a4 = add a4, 0
			a5 = add a5, 8
			exit if beq a0, a5`)
	// Before the adds: fa0 = fld 0(a5); fsd fa0, 0(a4) (the DSL has no
	// floating point: put them in by hand, each with its own exit).
	fld := Inst{Op: interp.OpFLD, A: R(15), F: FloatArgs{D: 10}, PC: f.Head, Step: 0, Len: 4}
	fsd := Inst{Op: interp.OpFSD, A: R(14), F: FloatArgs{B: 10}, PC: f.Head, Step: 0, Len: 4}
	g := &Func{Head: f.Head, env: f.env, Loops: true}
	for i, in := range []Inst{fld, fsd} {
		in.PC, in.Step = 0x1000+4*uint64(i), i
		in.Exit = g.newExit(exit.Interp, in.PC, in.PC, i)
		g.Insts = append(g.Insts, in)
	}
	for _, in := range f.Insts {
		in.PC += 8
		in.Step += 2
		if in.Exit >= 0 {
			e := f.Exits[in.Exit]
			in.Exit = g.newExit(e.Kind, e.Target, in.PC, e.Retired+2)
		}
		g.Insts = append(g.Insts, in)
	}
	g.Guest = len(g.Insts) - 1
	if err := Verify(g); err != nil {
		t.Fatalf("%v\n%v", err, g)
	}
	CheckHoist(g)
	if err := Verify(g); err != nil {
		t.Fatalf("after the pass: %v\n%v", err, g)
	}
	if len(g.Pre) != 2 || g.Insts[0].Exit >= 0 || g.Insts[1].Exit >= 0 {
		t.Errorf("want two entry checks and the fld and fsd without theirs:\n%v", g)
	}
}

// TestCheckHoistEarlyExits: a loop with another guard than its trip's
// gets its stepping base's checks hoisted by CheckHoistEarlyExits, not
// by CheckHoist, and their exits are entry tests (which a dispatcher may
// give up on); a loop with one way out gets no entry tests.
func TestCheckHoistEarlyExits(t *testing.T) {
	const search = "a0 = ld 0(a5)\nexit if beq a0, a2\na5 = add a5, 8\nexit if beq a5, a1"
	f := buildLoop(t, search)
	CheckHoist(f)
	if len(f.Pre) != 0 {
		t.Errorf("CheckHoist used the trip of a loop with another way out:\n%v", f)
	}
	g := buildLoop(t, search)
	CheckHoistEarlyExits(g)
	if err := Verify(g); err != nil {
		t.Fatalf("%v\n%v", err, g)
	}
	want := []string{
		"trip: a5 steps by 8, exit when a5+8 == a1",
		"loopcheck load 0..0(a5) stepping 8 else exit 0",
		"a0 = ld 0(a5) nocheck",
		"exit if beq a0, a2",
		"a5 = add a5, 8",
		"exit if beq a5, a1",
	}
	if got := strings.TrimSpace(loopText(g)); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if len(g.Pre) != 1 || !g.Exits[g.Pre[0].Exit].EntryTest {
		t.Errorf("the loop check's exit is not an entry test:\n%v", g)
	}
	h := buildLoop(t, "a0 = ld 0(a5)\na5 = add a5, 8\nexit if beq a5, a1")
	CheckHoistEarlyExits(h)
	if len(h.Pre) != 1 || h.Exits[h.Pre[0].Exit].EntryTest {
		t.Errorf("a loop with one way out: want one loop check, not an entry test:\n%v", h)
	}
}
