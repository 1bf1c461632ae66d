// Disassembly: a compiled fragment -> readable guest trace and x86-64 listing (golang.org/x/arch/x86/x86asm).

package fragment

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"rvdyn/interp"
)

// WriteListing writes a fragment for people: the guest instructions of its
// trace, its optimized IR, its exits, and its machine code in Go assembler syntax, with
// offsets relative to the fragment entry.
func WriteListing(w io.Writer, t *interp.Trace, code *Code) error {
	return WriteListingNamed(w, t, code, nil)
}

// WriteListingNamed is WriteListing with guest names: name(pc) returns
// "function+0xoff" (or "" when unknown). The header names the trace head,
// and the trace gains a "<function+0xoff>:" line wherever it enters
// another function, as objdump labels code.
func WriteListingNamed(w io.Writer, t *interp.Trace, code *Code, name func(pc uint64) string) error {
	fn := func(pc uint64) string { // the function part of a name
		if name == nil {
			return ""
		}
		f, _, _ := strings.Cut(name(pc), "+")
		return f
	}
	fmt.Fprintf(w, "fragment 0x%x", code.Head)
	if name != nil && name(code.Head) != "" {
		fmt.Fprintf(w, " <%s>", name(code.Head))
	}
	fmt.Fprintf(w, ": %d guest instructions, %d bytes, %d exits", code.GuestInsts, len(code.Bytes), len(code.Exits))
	if code.SelfLoop {
		fmt.Fprint(w, ", loops to its head")
	}
	if code.Bulk != "" {
		what := "a byte " + code.Bulk
		if strings.HasPrefix(code.Bulk, "word") {
			what = "a " + code.Bulk
		}
		fmt.Fprintf(w, " (%s: in bulk)", what)
	}
	fmt.Fprintln(w)
	if t != nil {
		cur := ""
		for i, s := range t.Steps {
			if f := fn(s.PC); f != "" && (f != cur || i == 0) {
				fmt.Fprintf(w, "  <%s>:\n", name(s.PC))
				cur = f
			}
			mark := ""
			if s.Next != s.PC+s.Inst.Len() {
				mark = fmt.Sprintf("   -> 0x%x", s.Next)
			}
			fmt.Fprintf(w, "  %8x  %-28v%s\n", s.PC, s.Inst, mark)
		}
	}
	if code.ir != nil {
		fmt.Fprintf(w, "  optimized IR (pc, step, instruction):\n%v", code.ir)
	}
	for i, e := range code.Exits {
		fmt.Fprintf(w, "  exit %d: %v from 0x%x to 0x%x after %d\n", i, e.Kind, e.From, e.Target, e.Retired)
	}
	for off := 0; off < len(code.Bytes); {
		in, err := x86asm.Decode(code.Bytes[off:], 64)
		if err != nil {
			fmt.Fprintf(w, "  %5d  .byte 0x%02x\n", off, code.Bytes[off])
			off++
			continue
		}
		fmt.Fprintf(w, "  %5d  %v\n", off, x86asm.GoSyntax(in, uint64(off), nil))
		off += in.Len
	}
	_, err := fmt.Fprintln(w)
	return err
}
