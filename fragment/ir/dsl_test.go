// Test DSL: IR text, one instruction per line -> a Func, and a Func -> that text again.

package ir

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// testEnv is the memory the DSL's Funcs are compiled for.
var testEnv = Env{ReadLo: 0x10000, WriteLo: 0x20000, MemSize: 1 << 20}

// build parses IR written the way Inst.String prints it, one instruction
// per line, each from its own guest instruction (step i, pc 0x1000+4i):
//
//	a0 = mov 5            a0 = add a1, -3       a0 = zext.w a1
//	a0 = ld 8(sp)         sd a0, 8(sp)          exit if bltu a0, a1
//	a0 = ld 8(0x20000) nocheck   (a constant address proven in bounds)
//
// Loads and stores get an interpreter exit, guards a branch exit, and the
// end exit is appended.
func build(t *testing.T, src string) *Func {
	t.Helper()
	f := &Func{Head: 0x1000, env: testEnv}
	for _, line := range strings.Split(strings.TrimSpace(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		i := len(f.Insts)
		pc := uint64(0x1000 + 4*i)
		in := Inst{PC: pc, Step: i, Exit: -1, Len: 4}
		if d, rest, ok := strings.Cut(line, " = "); ok {
			in.Dst, line = regNum(t, d), rest
		}
		if rest, ok := strings.CutPrefix(line, "exit if "); ok {
			line = rest
			in.Exit = f.newExit(exit.Branch, pc+64, pc, i+1)
		}
		line, nocheck := strings.CutSuffix(line, " nocheck")
		name, args, _ := strings.Cut(line, " ")
		in.Op = opByName(t, name)
		if IsLoad(in.Op) || IsStore(in.Op) {
			if !nocheck {
				in.Exit = f.newExit(exit.Interp, pc, pc, i)
			}
			m := regexp.MustCompile(`^(?:(\S+), )?(-?\d+)\((\S+)\)$`).FindStringSubmatch(args)
			if m == nil {
				t.Fatalf("bad address in %q", line)
			}
			in.Off, _ = strconv.ParseInt(m[2], 10, 64)
			in.A = val(t, m[3])
			if m[1] != "" {
				in.B = val(t, m[1])
			}
		} else {
			for k, a := range strings.Split(args, ", ") {
				*[]*Val{&in.A, &in.B}[k] = val(t, a)
			}
		}
		f.Insts = append(f.Insts, in)
	}
	f.Guest = len(f.Insts)
	f.Insts = append(f.Insts, Inst{Op: OpExit, PC: 0x1000 + 4*uint64(f.Guest), Step: f.Guest, Exit: f.newExit(exit.Branch, 0x2000, 0x1000, f.Guest)})
	if err := Verify(f); err != nil {
		t.Fatalf("built IR does not verify: %v", err)
	}
	return f
}

func regNum(t *testing.T, name string) uint8 {
	for r := uint8(0); r < 32; r++ {
		if interp.RegName(r) == name {
			return r
		}
	}
	t.Fatalf("no register %q", name)
	return 0
}

func val(t *testing.T, s string) Val {
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return C(uint64(v))
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return C(v)
	}
	return R(regNum(t, s))
}

func opByName(t *testing.T, name string) interp.Op {
	for op := interp.Op(0); op < numIROps; op++ {
		if opName(op) == name {
			return op
		}
	}
	t.Fatalf("no op %q", name)
	return 0
}

var exitRefs = regexp.MustCompile(`exit \d+ if|  ; else exit \d+`)

// text prints f's instructions (without the end exit) in the DSL, with
// "nocheck" after an access whose bounds check was dropped.
func text(f *Func) string {
	var b strings.Builder
	for _, in := range f.Insts[:len(f.Insts)-1] {
		s := exitRefs.ReplaceAllStringFunc(in.String(), func(m string) string {
			if strings.HasSuffix(m, " if") {
				return "exit if"
			}
			return ""
		})
		if (IsLoad(in.Op) || IsStore(in.Op)) && in.Exit < 0 {
			s += " nocheck"
		}
		fmt.Fprintln(&b, s)
	}
	return b.String()
}

// passCase is one table test of a pass: IR in, IR expected out.
type passCase struct {
	name, in, want string
}

// runPassCases runs pass on each case's IR, verifies the result and
// compares it with the expected IR.
func runPassCases(t *testing.T, pass func(*Func), cases []passCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, tc.in)
			pass(f)
			if err := Verify(f); err != nil {
				t.Fatalf("after the pass: %v\n%v", err, f)
			}
			want := strings.TrimSpace(tc.want)
			var lines []string
			for _, l := range strings.Split(want, "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			if got := strings.TrimSpace(text(f)); got != strings.Join(lines, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(lines, "\n"))
			}
		})
	}
}

func TestDSLRoundTrip(t *testing.T) {
	src := "a0 = mov 5\na1 = add a0, -3\nexit if bltu a0, a1\na2 = ld 8(sp)\nsd a2, -8(sp)\na3 = zext.w a2"
	if got := strings.TrimSpace(text(build(t, src))); got != src {
		t.Errorf("got\n%s\nwant\n%s", got, src)
	}
}
