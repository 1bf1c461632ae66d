package fragment_test

import (
	"encoding/binary"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"rvdyn/fragment"
)

// extensions counts the in-place sign extensions (MOVSXD r, r32 of the
// same register) on code's main path: the body and the end stub (which
// holds a self-loop's back edge), up to the first RET.
func extensions(t *testing.T, code []byte) int {
	n := 0
	for at := 0; at < len(code); {
		in, err := x86asm.Decode(code[at:], 64)
		if err != nil {
			t.Fatalf("undecodable code at %d", at)
		}
		if in.Op == x86asm.RET {
			break
		}
		if in.Op == x86asm.MOVSXD {
			if d, ok := in.Args[0].(x86asm.Reg); ok {
				if s, ok := in.Args[1].(x86asm.Reg); ok && s-x86asm.EAX == d-x86asm.RAX {
					n++
				}
			}
		}
		at += in.Len
	}
	return n
}

// TestLazySextRemovesExtensions: on SHA-256's traces (W ops feeding W
// and bitwise ops), lazy sign extension must leave fewer in-place
// extensions than extending every W result where it is computed.
// Correctness is the equivalence tests' job (optionSets has no-lazy-sext).
func TestLazySextRemovesExtensions(t *testing.T) {
	traces, env := guestTraces(t, "sha256", "1", 20)
	count := func(opts fragment.Options) int {
		n := 0
		for _, tr := range traces {
			code, err := fragment.Compile(tr, env, opts)
			if err != nil {
				t.Fatal(err)
			}
			n += extensions(t, code.Bytes)
		}
		return n
	}
	lazy, eager := count(fragment.Options{}), count(fragment.Options{NoLazySext: true})
	t.Logf("in-place sign extensions: %d lazy, %d eager", lazy, eager)
	if lazy >= eager {
		t.Errorf("lazy sign extension left %d extensions, eager %d", lazy, eager)
	}
}

// TestLinkedEntry: the linked entry is an instruction boundary inside the
// code, past the dispatcher's entry when a fragment has home registers to
// load, and the dispatcher's entry without the home register convention:
// offset 0, or in a looping fragment the prologue that offset 0 jumps to
// (amd64.LoopAlign).
func TestLinkedEntry(t *testing.T) {
	traces, env := guestTraces(t, "qsort", "100", 30)
	past := 0
	for _, tr := range traces {
		for _, opts := range []fragment.Options{{}, {NoHomeRegs: true}, {NoRegAlloc: true}} {
			code, err := fragment.Compile(tr, env, opts)
			if err != nil {
				t.Fatal(err)
			}
			entry := 0
			if code.LoopHead >= 0 && code.Bytes[0] == 0xe9 { // JMP rel32 prologue
				entry = 5 + int(int32(binary.LittleEndian.Uint32(code.Bytes[1:])))
			}
			if (opts.NoHomeRegs || opts.NoRegAlloc) && code.LinkedEntry != entry {
				t.Errorf("fragment %#x, %+v: linked entry at %d, want %d", code.Head, opts, code.LinkedEntry, entry)
			}
			if code.LinkedEntry < 0 || code.LinkedEntry >= len(code.Bytes) {
				t.Fatalf("fragment %#x: linked entry %d outside %d bytes", code.Head, code.LinkedEntry, len(code.Bytes))
			}
			if _, at := decodeAt(t, code.Bytes, code.LinkedEntry); at != code.LinkedEntry {
				t.Errorf("fragment %#x: linked entry %d inside the instruction at %d", code.Head, code.LinkedEntry, at)
			}
			if code.LinkedEntry > 0 {
				past++
			}
		}
	}
	if past == 0 {
		t.Error("no fragment has a linked entry past its dispatcher entry")
	}
}
