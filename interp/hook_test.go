package interp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTagHint checks the profile tag HINT: it decodes as slti zero, zero,
// TagHintImm+t (a no-op), HintTag inverts it, and ProfileTag reads the tag
// of an instruction from the word before it.
func TestTagHint(t *testing.T) {
	for tag := uint8(0); tag < 4; tag++ {
		in := Decode(TagHint(tag))
		if in.Op != OpSLTI || in.Rd != 0 || in.Rs1 != 0 || in.Imm != TagHintImm+int64(tag) {
			t.Errorf("TagHint(%d) decodes to %v", tag, in)
		}
		if got, ok := HintTag(in); !ok || got != tag {
			t.Errorf("HintTag(TagHint(%d)) = %d, %v", tag, got, ok)
		}
	}
	for _, w := range []uint32{
		Encode(Inst{Op: OpSLTI, Rd: 1, Imm: TagHintImm}),  // writes a register
		Encode(Inst{Op: OpSLTI, Rs1: 2, Imm: TagHintImm}), // reads one
		Encode(Inst{Op: OpSLTI, Imm: TagHintImm - 1}),
		Encode(Inst{Op: OpADDI}), // nop
	} {
		if _, ok := HintTag(Decode(w)); ok {
			t.Errorf("%v is not a tag HINT", Decode(w))
		}
	}
	text := []uint32{TagHint(3), Encode(Inst{Op: OpADDI, Rd: 10}), Encode(Inst{Op: OpADDI, Rd: 17, Imm: 93}), 0x73}
	m, err := Load(MakeELF(text, nil, 4096), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i, want := range []uint8{0, 3, 0, 0} {
		if got := m.ProfileTag(MakeELFText + 4*uint64(i)); got != want {
			t.Errorf("tag of instruction %d = %d, want %d", i, got, want)
		}
	}
	if err := m.Run(100); err != nil || m.ExitCode() != 0 || m.Retired() != 4 {
		t.Errorf("tagged program: %v, exit %d, %d retired", err, m.ExitCode(), m.Retired())
	}
}

// TestTagHintUnderQemu runs the four tag HINTs under qemu-riscv64 (the
// oracle): they must be no-ops there too.
func TestTagHintUnderQemu(t *testing.T) {
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		t.Skip("qemu-riscv64 not installed")
	}
	text := []uint32{TagHint(0), TagHint(1), TagHint(2), TagHint(3),
		Encode(Inst{Op: OpADDI, Rd: 10, Imm: 42}), Encode(Inst{Op: OpADDI, Rd: 17, Imm: 93}), 0x73}
	f := filepath.Join(t.TempDir(), "tags.elf")
	if err := os.WriteFile(f, MakeELF(text, nil, 4096), 0o755); err != nil {
		t.Fatal(err)
	}
	err = exec.Command(qemu, f).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 42 {
		t.Fatalf("qemu-riscv64: %v, want exit status 42", err)
	}
}
