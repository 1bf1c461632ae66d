package fragment_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// TestBoxCheckLine runs a fragment that does not loop and reads singles
// before writing them (ir.BoxCheckLine): f11 twice, f12 negated (fneg.s,
// which with a known box flips bit 31 in place) and read again, f13
// before a double is written to it (which the entry check must not
// cover), on boxed and unboxed values, against the interpreter, with the
// check on entry and without it. With it, an unboxed f11 or f12 leaves
// before the first instruction through an entry test's exit; the code
// carries the check, and no test of f11's box in the body, only when
// asked for.
func TestBoxCheckLine(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	prog := []I{
		{Op: interp.OpFMULS, Rd: 1, Rs1: 11, Rs2: 13, Imm: dyn},
		{Op: interp.OpFSGNJNS, Rd: 2, Rs1: 12, Rs2: 12},
		{Op: interp.OpFADDS, Rd: 3, Rs1: 11, Rs2: 2, Imm: dyn},
		{Op: interp.OpFSGNJNS, Rd: 4, Rs1: 2, Rs2: 2},
		{Op: interp.OpFMULS, Rd: 5, Rs1: 12, Rs2: 11, Imm: dyn},
		{Op: interp.OpFCVTDS, Rd: 13, Rs1: 1, Imm: dyn},
		{Op: interp.OpFSGNJNS, Rd: 6, Rs1: 11, Rs2: 11},
	}
	vals := []uint64{
		0xffffffff_3f800000, 0xffffffff_c0490fdb, 0xffffffff_7fc00001, 0xffffffff_80000000, 0xffffffff_7f800000, // boxed
		0x3ff0000000000000, 0x00000000_3f800000, 0x7ff8000000000000, // not
	}
	rng := rand.New(rand.NewPCG(19, 20))
	var operands [][]uint64
	for range 1000 {
		c := []uint64{0}
		for range 3 {
			v := vals[rng.IntN(5)]
			if rng.IntN(4) == 0 {
				v = vals[5+rng.IntN(3)]
			}
			c = append(c, v)
		}
		operands = append(operands, c)
	}
	for _, check := range []bool{true, false} {
		opts := fragment.Options{NoBoxCheckLine: !check}
		checkProgramOpts(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng, nil, opts)

		// The shape: the check on entry, its exit an entry test.
		words := append(rvtest.EncodeAll(prog), rvtest.Encode(I{Op: interp.OpADDI, Rd: 17, Imm: 93}), rvtest.Encode(I{Op: interp.OpECALL}))
		m := loadSmall(t, rvtest.MakeELF(words, make([]byte, 64), 64))
		m.CPU.PC = rvtest.MakeELFText
		for r := 11; r <= 13; r++ {
			m.CPU.F[r] = vals[0]
		}
		trace, _, err := net.Record(m, 1000, func(uint64) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		code, err := fragment.Compile(trace, fragment.EnvOf(m), opts)
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		var listing strings.Builder
		if err := fragment.WriteListing(&listing, trace, code); err != nil {
			t.Fatal(err)
		}
		l := listing.String()
		entryTest := slices.ContainsFunc(code.Exits, func(e fragment.Stub) bool { return e.EntryTest })
		if strings.Contains(l, "boxcheck fa1 fa2 else exit 0") != check || entryTest != check {
			t.Errorf("box check %v, listing:\n%s", check, l)
		}
	}
}
