package fragment_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"rvdyn/codecache"
	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// decodeAt returns the instruction of code that contains offset off,
// decoding from the entry as the listing does, and its start.
func decodeAt(t *testing.T, code []byte, off int) (x86asm.Inst, int) {
	t.Helper()
	for at := 0; at < len(code); {
		in, err := x86asm.Decode(code[at:], 64)
		if err != nil {
			t.Fatalf("undecodable code at %d: % x", at, code[at:min(at+8, len(code))])
		}
		if off < at+in.Len {
			return in, at
		}
		at += in.Len
	}
	t.Fatalf("offset %d outside %d bytes of code", off, len(code))
	return x86asm.Inst{}, 0
}

// TestExitPatchFields checks, on the fragments of a real guest under
// several option sets, that every exit's IDOff and LinkOff point at the
// field the code cache patches: writing a value there must show up as the
// immediate of "MOVL $id, Exit(R15)" or the displacement of "JMP rel32",
// in the instruction that contains the offset and ends right after it.
func TestExitPatchFields(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	for _, opts := range []fragment.Options{{}, {NoRegAlloc: true}, {NoIBL: true}} {
		for _, tr := range traces {
			code, err := fragment.Compile(tr, env, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range code.Exits {
				b := append([]byte(nil), code.Bytes...)
				binary.LittleEndian.PutUint32(b[e.IDOff:], 0x1234567)
				in, at := decodeAt(t, b, e.IDOff)
				m, _ := in.Args[0].(x86asm.Mem)
				if in.Op != x86asm.MOV || m.Base != x86asm.R15 || m.Disp != amd64.StateExit || in.Args[1] != x86asm.Imm(0x1234567) || at+in.Len != e.IDOff+4 {
					t.Errorf("fragment %#x exit %d: IDOff %d is in %v at %d", code.Head, i, e.IDOff, in, at)
				}
				if e.LinkOff < 0 {
					continue
				}
				binary.LittleEndian.PutUint32(b[e.LinkOff:], 0x2345)
				in, at = decodeAt(t, b, e.LinkOff)
				if in.Op != x86asm.JMP || in.Args[0] != x86asm.Rel(0x2345) || at+in.Len != e.LinkOff+4 {
					t.Errorf("fragment %#x exit %d: LinkOff %d is in %v at %d", code.Head, i, e.LinkOff, in, at)
				}
			}
		}
	}
}

// jrFragment returns the image of "a0++; jr s0; ecall", the fragment of
// its first two instructions (recorded with s0 pointing at the ecall)
// and an empty 1 MiB code cache, closed when the test ends.
func jrFragment(t *testing.T) ([]byte, *fragment.Code, *codecache.Cache) {
	t.Helper()
	enc := rvtest.Encode
	img := rvtest.MakeELF([]uint32{
		enc(interp.Inst{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}),
		enc(interp.Inst{Op: interp.OpJALR, Rd: 0, Rs1: 8}),
		enc(interp.Inst{Op: interp.OpECALL}),
	}, nil, 4096)
	rec := load(t, img)
	rec.CPU.X[8] = rvtest.MakeELFText + 8
	trace, _, err := net.Record(rec, 100, func(uint64) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	code, err := fragment.Compile(trace, fragment.EnvOf(rec), fragment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := codecache.New(codecache.Options{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	return img, code, cache
}

// insertAt inserts a copy of code into cache as the fragment of head.
func insertAt(t *testing.T, cache *codecache.Cache, code *fragment.Code, head uint64) *codecache.Fragment {
	t.Helper()
	c := *code
	c.Head = head
	f, err := cache.Insert(&c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestIBLSlotsAgree checks that the probe emitted into indirect exit stubs
// and the code cache's Go side (amd64.IBLPlace, used by Insert) pick the
// same table slots: one fragment (a0++; jr s0) is inserted under many
// tags, two in each set they use (both ways), and entered with s0 set to
// each tag. Its inline check misses (it was recorded with another s0), so
// the probe looks the tag up: found in the slot the Go side filled, it
// loops through its copy until the budget is spent; a probe reading any
// other slot would find an empty or foreign tag and leave through the
// indirect exit.
func TestIBLSlotsAgree(t *testing.T) {
	img, code, cache := jrFragment(t)
	// Tags with distinct slots, high bits included (the shift must be
	// logical, the mask exact).
	rng := rand.New(rand.NewPCG(1, 2))
	used := map[uint64]bool{}
	tags := []uint64{0, 2, 4, 4 * (amd64.IBLSets - 1), 4 * amd64.IBLSets, 1 << 63, ^uint64(1)}
	for len(tags) < 1000 {
		tags = append(tags, rng.Uint64()&^1) // even: compressed code puts heads at any even pc
	}
	var frags []*codecache.Fragment
	for _, tag := range tags {
		if used[amd64.IBLSet(tag)] {
			continue
		}
		used[amd64.IBLSet(tag)] = true
		for _, head := range []uint64{tag, tag ^ 4*amd64.IBLSets} { // both ways of the set
			frags = append(frags, insertAt(t, cache, code, head))
		}
	}
	m := load(t, img)
	st := new(fragment.State)
	m.UseCPU(&st.CPU)
	for _, f := range frags {
		st.CPU.X[8], st.CPU.X[10], st.Budget = f.Head, 0, 1000
		e := cache.Enter(frags[0], st, m.Mem.Base())
		if st.Budget > 0 || st.CPU.X[10] != 500 {
			t.Errorf("tag %#x (Go slot %d): left through %v to %#x after a0=%d; the probe missed the slot the code cache filled",
				f.Head, amd64.IBLSet(f.Head), e.Kind, st.CPU.PC, st.CPU.X[10])
		}
	}
	if len(frags) < 1900 {
		t.Errorf("only %d slots tested", len(frags))
	}
}

// TestIBLReplace: a third head placed in a set drops the oldest of the
// two there, whose tag the probe then misses (an indirect exit), until
// codecache.Cache.Replace enters it again.
func TestIBLReplace(t *testing.T) {
	img, code, cache := jrFragment(t)
	var frags []*codecache.Fragment
	for k := range uint64(3) { // one set: 4*IBLSets bytes apart
		frags = append(frags, insertAt(t, cache, code, 0x100000+k*4*amd64.IBLSets))
	}
	m := load(t, img)
	st := new(fragment.State)
	m.UseCPU(&st.CPU)
	hits := func(f *codecache.Fragment) bool {
		st.CPU.X[8], st.CPU.X[10], st.Budget = f.Head, 0, 1000
		cache.Enter(frags[2], st, m.Mem.Base())
		return st.Budget <= 0
	}
	if hits(frags[0]) || !hits(frags[1]) || !hits(frags[2]) {
		t.Fatalf("placing three heads in a set: hits %v %v %v, want the oldest dropped", hits(frags[0]), hits(frags[1]), hits(frags[2]))
	}
	cache.Replace(frags[0])
	if !hits(frags[0]) || !hits(frags[2]) {
		t.Errorf("after Replace: the replaced head hits %v, the newest before it %v", hits(frags[0]), hits(frags[2]))
	}
}

// TestPCMap checks the host-to-guest pc map of real fragments: it starts
// at the entry with the trace head, ascends, names only pcs of the trace,
// covers every instruction of the code, and maps each exit stub's patch
// fields to the guest instruction that leaves through it; through the
// code cache, Fragment.GuestPC answers the same for executable addresses.
func TestPCMap(t *testing.T) {
	traces, env := guestTraces(t, "strings", "4000", 40)
	cache, err := codecache.New(codecache.Options{Size: 1 << 22, NoLink: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	entries, mapBytes, bytes := 0, 0, 0
	for _, tr := range traces {
		code, err := fragment.Compile(tr, env, fragment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pcs := map[uint64]bool{tr.Head: true}
		for _, s := range tr.Steps {
			pcs[s.PC] = true
		}
		m := code.PCs
		entries, mapBytes, bytes = entries+m.Len(), mapBytes+m.Bytes(), bytes+len(code.Bytes)
		i, prev, prevPC := 0, -1, uint64(0)
		for off, pc := range m.All() {
			switch {
			case i == 0 && (off != 0 || pc != tr.Head):
				t.Errorf("fragment %#x: first entry %d -> %#x, want 0 -> head", code.Head, off, pc)
			case off <= prev || off >= len(code.Bytes):
				t.Errorf("fragment %#x: entry %d at offset %d after %d (code is %d bytes)", code.Head, i, off, prev, len(code.Bytes))
			case !pcs[pc]:
				t.Errorf("fragment %#x: entry %d maps to %#x, not a pc of the trace", code.Head, i, pc)
			case i > 0 && pc == prevPC:
				t.Errorf("fragment %#x: entries %d and %d both map to %#x", code.Head, i-1, i, pc)
			}
			i, prev, prevPC = i+1, off, pc
		}
		if i != m.Len() {
			t.Errorf("fragment %#x: Len %d, %d entries", code.Head, m.Len(), i)
		}
		for off := 0; off < len(code.Bytes); {
			if _, ok := code.GuestPC(off); !ok {
				t.Fatalf("fragment %#x: offset %d unmapped", code.Head, off)
			}
			in, err := x86asm.Decode(code.Bytes[off:], 64)
			if err != nil {
				t.Fatal(err)
			}
			off += in.Len
		}
		if _, ok := code.GuestPC(len(code.Bytes)); ok {
			t.Errorf("fragment %#x: the end of the code is mapped", code.Head)
		}
		f, err := cache.Insert(code)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range code.Exits {
			for _, off := range []int{e.IDOff, e.LinkOff} {
				if off < 0 {
					continue
				}
				if pc, ok := code.GuestPC(off); !ok || pc != e.From {
					t.Errorf("fragment %#x exit %d: stub code at %d maps to %#x, %v; want %#x", code.Head, i, off, pc, ok, e.From)
				}
				if pc, ok := f.GuestPC(f.Entry + uintptr(off)); !ok || pc != e.From {
					t.Errorf("fragment %#x exit %d: Fragment.GuestPC(entry+%d) = %#x, %v; want %#x", code.Head, i, off, pc, ok, e.From)
				}
			}
		}
		if _, ok := f.GuestPC(f.Entry - 1); ok {
			t.Errorf("fragment %#x: the address before the entry is mapped", code.Head)
		}
		if pc, ok := f.GuestPC(f.Entry); !ok || pc != tr.Head {
			t.Errorf("fragment %#x: the entry maps to %#x, %v", code.Head, pc, ok)
		}
	}
	t.Logf("%d fragments, %d map entries (%d bytes) for %d bytes of code", len(traces), entries, mapBytes, bytes)
}
