package interp_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestTagHint checks the profile tag HINT: it decodes as slti zero, zero,
// TagHintImm+t (a no-op), HintTag inverts it, and ProfileTag reads the tag
// of an instruction from the word before it.
func TestTagHint(t *testing.T) {
	for tag := uint8(0); tag < 4; tag++ {
		in := interp.Decode(interp.TagHint(tag))
		if in.Op != interp.OpSLTI || in.Rd != 0 || in.Rs1 != 0 || in.Imm != interp.TagHintImm+int64(tag) {
			t.Errorf("TagHint(%d) decodes to %v", tag, in)
		}
		if got, ok := interp.HintTag(in); !ok || got != tag {
			t.Errorf("HintTag(interp.TagHint(%d)) = %d, %v", tag, got, ok)
		}
	}
	for _, w := range []uint32{
		rvtest.Encode(interp.Inst{Op: interp.OpSLTI, Rd: 1, Imm: interp.TagHintImm}),  // writes a register
		rvtest.Encode(interp.Inst{Op: interp.OpSLTI, Rs1: 2, Imm: interp.TagHintImm}), // reads one
		rvtest.Encode(interp.Inst{Op: interp.OpSLTI, Imm: interp.TagHintImm - 1}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI}), // nop
	} {
		if _, ok := interp.HintTag(interp.Decode(w)); ok {
			t.Errorf("%v is not a tag HINT", interp.Decode(w))
		}
	}
	text := []uint32{interp.TagHint(3), rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 10}), rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), 0x73}
	m, err := interp.Load(rvtest.MakeELF(text, nil, 4096), interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i, want := range []uint8{0, 3, 0, 0} {
		if got := m.ProfileTag(rvtest.MakeELFText + 4*uint64(i)); got != want {
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
	text := []uint32{interp.TagHint(0), interp.TagHint(1), interp.TagHint(2), interp.TagHint(3),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 10, Imm: 42}), rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}), 0x73}
	f := filepath.Join(t.TempDir(), "tags.elf")
	if err := os.WriteFile(f, rvtest.MakeELF(text, nil, 4096), 0o755); err != nil {
		t.Fatal(err)
	}
	err = exec.Command(qemu, f).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 42 {
		t.Fatalf("qemu-riscv64: %v, want exit status 42", err)
	}
}
