package interp_test

import (
	"bytes"
	"errors"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

func TestLoadRejects(t *testing.T) {
	good := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 4096)
	patch := func(off int, b ...byte) []byte {
		img := bytes.Clone(good)
		copy(img[off:], b)
		return img
	}
	for _, tc := range []struct {
		name string
		img  []byte
		want string
	}{
		{"empty", nil, "not an ELF file"},
		{"short", good[:20], "not an ELF file"},
		{"32-bit", patch(4, 1), "not an ELF file"}, // header no longer parses as ELF64
		{"x86-64", patch(18, 62, 0), "machine EM_X86_64"},
		{"relocatable", patch(16, 1, 0), "want an executable"},
		{"quad float", patch(48, 6), "quad-precision float ABI"},
		{"rv64e", patch(48, 8), "RV64E"},
		{"entry outside text", patch(24, 0, 0, 3), "entry point"},
		{"segment past file", patch(64+8, 0xff, 0xff, 0), "past the end of the file"},
		{"segment at null page", patch(64+16, 0, 0, 0), "outside the guest address space"},
		{"writable below the text", patch(64+56+16, 0, 0x80, 0), "writable segment below or inside the read-only program text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := interp.Load(tc.img, interp.Config{})
			var le *interp.LoadError
			if err == nil {
				m.Close()
				t.Fatal("loaded")
			}
			if !errors.As(err, &le) || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("error %q (%T), want a LoadError containing %q", err, err, tc.want)
			}
		})
	}
}

func TestStackLayout(t *testing.T) {
	m, err := interp.Load(rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 4096),
		interp.Config{Args: []string{"prog", "arg1"}, Env: []string{"A=B"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sp := m.CPU.X[2]
	if sp%16 != 0 {
		t.Errorf("sp %#x not 16-byte aligned", sp)
	}
	word := func(i uint64) uint64 { v, _ := m.Mem.Read64(sp + 8*i); return v }
	str := func(a uint64) string {
		b := m.Mem.Bytes(a, 64)
		return string(b[:bytes.IndexByte(b, 0)])
	}
	if word(0) != 2 || str(word(1)) != "prog" || str(word(2)) != "arg1" || word(3) != 0 || str(word(4)) != "A=B" || word(5) != 0 {
		t.Fatalf("argc/argv/envp wrong: %d %q %q %d %q %d", word(0), str(word(1)), str(word(2)), word(3), str(word(4)), word(5))
	}
	aux := map[uint64]uint64{}
	for i := uint64(6); word(i) != 0; i += 2 {
		aux[word(i)] = word(i + 1)
	}
	if aux[interp.AtPagesz] != 4096 || aux[interp.AtEntry] != rvtest.MakeELFText || aux[interp.AtRandom] == 0 || aux[interp.AtPhnum] != 2 {
		t.Errorf("auxv %v", aux)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 4096))
	f.Add(rvtest.MakeELF([]uint32{0xffffffff}, []byte{1, 2, 3}, 100))
	f.Fuzz(func(t *testing.T, img []byte) {
		m, err := interp.Load(img, interp.Config{MemSize: 1 << 24})
		if err != nil {
			return
		}
		defer m.Close()
		m.Run(10000) // must end in an exit, a fault or the limit, never a panic
	})
}
