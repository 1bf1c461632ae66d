package rpa

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/profhw"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestFigure2Golden assembles every testdata/*.rpa (the four queries of the
// paper's Figure 2 verbatim, and larger programs) and compares the
// disassembly (PCT and query instructions) with testdata/*.golden.
func TestFigure2Golden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.rpa")
	if len(files) < 4 {
		t.Fatalf("want the four Figure 2 queries in testdata, have %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Assemble(string(src))
			if err != nil {
				t.Fatal(err)
			}
			got := Disassemble(p)
			golden := strings.TrimSuffix(f, ".rpa") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("disassembly differs from %s:\n%s", golden, got)
			}
			checkRoundTrip(t, p)
		})
	}
}

// checkRoundTrip checks that p disassembles to text that assembles to p,
// and that its binary image reads back to p.
func checkRoundTrip(t *testing.T, p *Program) {
	t.Helper()
	text := Disassemble(p)
	q, err := Assemble(text)
	if err != nil {
		t.Fatalf("disassembly does not assemble: %v\n%s", err, text)
	}
	if q.PCT != p.PCT || !equalCode(q.Code, p.Code) {
		t.Fatalf("round trip changed the program:\n%s\nre-assembled:\n%s", text, Disassemble(q))
	}
	img, _ := p.MarshalBinary()
	var r Program
	if err := r.UnmarshalBinary(img); err != nil {
		t.Fatalf("image does not read back: %v", err)
	}
	if r.PCT != p.PCT || !equalCode(r.Code, p.Code) {
		t.Fatal("image round trip changed the program")
	}
}

func equalCode(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFigure2Encoding(t *testing.T) {
	p, err := Assemble("for opBRANCH * every 256 collect pc misc ;\nsend 1 stop;")
	if err != nil {
		t.Fatal(err)
	}
	for tag := uint8(0); tag < 4; tag++ {
		e := p.PCT[EntryOf(OpBRANCH, tag)]
		if e.Rate() != 256 || e.Mask() != 1<<FieldPC|1<<FieldMisc || e.QPC() != 0 {
			t.Errorf("opBRANCH/%d: rate %d mask %#x qpc %d", tag, e.Rate(), e.Mask(), e.QPC())
		}
	}
	if len(p.Code) != 1 {
		t.Fatalf("%d instructions, want 1", len(p.Code))
	}
	q, _ := DecodeInst(p.Code[0])
	want := QueryInst{Match: NextStop, Miss: NextStop, Action: ActSend, Arg: 1}
	if q != want {
		t.Errorf("send 1 stop = %+v, want %+v", q, want)
	}
}

// TestAssembleErrors checks that malformed queries give an *Error naming
// the line, column and what was expected.
func TestAssembleErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		want      string
	}{
		{"", 1, 1, "expected a query"},
		{"fro opBRANCH", 1, 1, `expected "for"`},
		{"for opFOO * always collect pc; send 1;", 1, 5, "expected a class"},
		{"for opBRANCH always collect pc; send 1;", 1, 14, "expected a profile tag"},
		{"for opBRANCH 4 always collect pc; send 1;", 1, 14, "profile tag (0..3)"},
		{"for opBRANCH * sometimes collect pc; send 1;", 1, 16, `expected "every" N or "always"`},
		{"for opBRANCH * every 0 collect pc; send 1;", 1, 22, "sampling period"},
		{"for opBRANCH * every 9000 collect pc; send 1;", 1, 22, "sampling period"},
		{"for opBRANCH * always collect; send 1;", 1, 30, "expected a field"},
		{"for opBRANCH * always collect pc pc; send 1;", 1, 34, "collected twice"},
		{"for opBRANCH * always collect pc op1 op2 op3 res1 res2 misc rtime; send 1;", 1, 61, "at most 7 words"},
		{"for opBRANCH * always collect pc;\n", 2, 1, "expected a clause"},
		{"for opBRANCH * always collect pc;\n  send 99;", 2, 8, "queue number"},
		{"for opBRANCH * always collect pc;\n  if op1 <> 0 then stop;", 2, 6, "op1 is not collected"},
		{"for opSTORE 1 always collect op1 op2 op3;\n  if op1 <> 0 and op3 = 0 then stop;", 2, 19, "even record words"},
		{"for opSTORE 1 always collect pc op1;\n  if pc = 1 and op1 = 2 then stop;", 2, 17, "one 16-bit immediate"},
		{"for opSTORE 1 always collect op1;\n  if op1 = 70000 then stop;", 2, 12, "16-bit immediate"},
		{"for opSTORE 1 always collect op1;\n  if op1.b0 = 256 then stop;", 2, 15, "8-bit immediate"},
		{"for opSTORE 1 always collect op1;\n  if op1.q0 = 1 then stop;", 2, 6, "field part"},
		{"for opSTORE 1 always collect op1;\n  if filter 3 then stop;", 2, 13, "filter rate"},
		{"for opSTORE 1 always collect op1;\n  if op1 ~ 3 then stop;", 2, 10, `got "~"`},
		{"for opSTORE 1 always collect op1;\n  if op1 3 then stop;", 2, 10, "comparison operator"},
		{"for opSTORE 1 always collect op1;\n  goto nowhere;", 2, 8, "not defined"},
		{"for opSTORE 1 always collect op1;\n  a: send 1;\n  goto a;", 3, 8, "backward"},
		{"for opSTORE 1 always collect op1;\n  a: send 1;\n  a: send 2;", 3, 3, "defined twice"},
		{"for opSTORE 1 always collect op1;\n  send 1\n", 3, 1, `expected ";"`},
		{"for opSTORE 1 always collect op1;\n  if true else send 1;", 2, 16, "after else"},
		{"for opSTORE 1 always collect op1; send 1;\nfor opSTORE 1 always collect op1; send 1;", 2, 5, "already profiled"},
		{"for opSTORE 1 opSTORE * always collect op1; send 1;", 1, 15, "named twice"},
		{"for evL2DMISS 1 always collect pc; send 1;", 1, 15, "tag * only"},
		{"for evL2DMISS * always collect op1; send 1;", 1, 32, "event classes collect only"},
		{"for opSTORE 1 always collect op1;\n  if op1 = 1 goto a else goto b;\n a: stop; b: stop;", 2, 31, "one branch target"},
	} {
		_, err := Assemble(tc.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v, want *Error", tc.src, err)
			continue
		}
		if e.Line != tc.line || e.Col != tc.col || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got  %v (line %d col %d)\n want line %d col %d, %q", tc.src, err, e.Line, e.Col, tc.line, tc.col, tc.want)
		}
	}
}

// TestTooManyInstructions checks the 64-instruction limit (sec. 4).
func TestTooManyInstructions(t *testing.T) {
	src := "for opALU * always collect pc;\n" + strings.Repeat("count;\n", MaxInsts)
	if _, err := Assemble(src); err != nil {
		t.Fatalf("%d instructions: %v", MaxInsts, err)
	}
	_, err := Assemble(src + "count;\n")
	var e *Error
	if !errors.As(err, &e) || e.Line != MaxInsts+2 || !strings.Contains(e.Msg, "64 instructions") {
		t.Fatalf("%d instructions: %v", MaxInsts+1, err)
	}
}

// FuzzAssemble: the assembler never panics, and whatever assembles
// disassembles and re-assembles to the same encoding.
func FuzzAssemble(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.rpa")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(string(b))
	}
	f.Add("for opSTORE 1 always collect op1 op2 op3;\nif op1 <> 0 then send 3 stop else stop;")
	f.Add("for opALU 3 every 7 collect w0; if true or false; a: if filter 2 goto a;")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Assemble(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("assembled program is invalid: %v", err)
		}
		checkRoundTrip(t, p)
	})
}

// TestInstRoundTrip decodes every field combination the format allows and
// checks that decoding and encoding are inverse.
func TestInstRoundTrip(t *testing.T) {
	r := profhw.NewRNG(1)
	ok := 0
	for i := 0; i < 200000; i++ {
		w := r.Uint64()
		if i%2 == 0 { // keep reserved fields valid half of the time
			w &^= 1<<63 | 1<<46 | 1<<44 | 0x3ff<<10 | 0x3ff
			w |= uint64(r.Below(10)) | uint64(r.Below(10)+0x80)<<10
		}
		q, err := DecodeInst(w)
		if err != nil {
			continue
		}
		ok++
		if q.Encode() != w {
			t.Fatalf("0x%016x decodes to %+v, which encodes to 0x%016x", w, q, q.Encode())
		}
	}
	if ok < 1000 {
		t.Fatalf("only %d valid words decoded", ok)
	}
}
