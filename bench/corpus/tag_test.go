// Profile tags in the committed Scheme guests: the ELF's text in, a check that every REF_STORE is a tag-1 HINT followed by its sd out.

package corpus

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// TestSchemeStoresTagged checks what docs/rpa.md ("Profile tags") says of
// the committed Scheme ELFs of both flavors: they carry the relational
// profiler's tag 1 (the HINT slti zero, zero, 2045) on their reference
// stores, each HINT directly followed by a 64-bit store (sd, or c.sd / c.sdsp in
// the RV64GC build), so that the
// paper's Figure 2c query (for opSTORE 1) selects them.
func TestSchemeStoresTagged(t *testing.T) {
	const hint1 = 0x7fc02013 + 1<<20
	for _, f := range Flavors() {
		img, err := ELFOf("scheme", f)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.NewFile(bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		text := ef.Section(".text")
		if text == nil {
			t.Fatalf("%v: no .text", f)
		}
		b, err := text.Data()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := 0; i+8 <= len(b); i += 2 {
			if binary.LittleEndian.Uint32(b[i:]) != hint1 {
				continue
			}
			n++
			next := binary.LittleEndian.Uint32(b[i+4:])
			sd := next&0x7f == 0x23 && next>>12&7 == 3
			// RV64GC builds may compress it: c.sd (op 00) or c.sdsp (op 10), funct3 111.
			csd := next&3 != 3 && next>>13&7 == 7 && next&3 != 1
			if !sd && !csd {
				t.Errorf("%v: tag HINT at .text+%#x is followed by %#08x, not an sd", f, i, next)
			}
		}
		if n < 20 {
			t.Errorf("%v: %d tag-1 HINTs in scheme's text; REF_STORE emits one per reference store", f, n)
		}
	}
}
