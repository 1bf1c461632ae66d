// Tests of the corpus: every guest of every flavor has an image of its flavor's ISA, a small size and expected outputs; unknown names are errors.

package corpus

import (
	"bytes"
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCorpus(t *testing.T) {
	names := Names()
	if len(names) < 8 || !slices.IsSorted(names) || !slices.Contains(names, Default) {
		t.Fatalf("Names() = %v", names)
	}
	for _, name := range names {
		img, err := ELF(name)
		if err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
			t.Errorf("%s: ELF: %d bytes, %v", name, len(img), err)
		}
		if a := Args(name, Full); !slices.Equal(a, []string{name}) {
			t.Errorf("%s: full-size argv %q", name, a)
		}
		if a := Args(name, Small); len(a) < 2 || a[0] != name {
			t.Errorf("%s: no small size in sizes.txt: argv %q", name, a)
		}
		for _, size := range []Size{Small, Full} {
			b, err := Expected(name, size)
			if err != nil || !strings.HasSuffix(string(b), Outcome("", 0)) {
				t.Errorf("%s at %v: expected output %q, %v", name, size, b, err)
			}
		}
	}
	if a := Args("scheme", Small); !slices.Equal(a, []string{"scheme", "all", "small"}) {
		t.Errorf("scheme small argv %q", a)
	}
	if got := ExpectedFile("sieve", Small); got != "testdata/sieve.small.out" {
		t.Errorf("ExpectedFile = %q", got)
	}
}

// ELF header flags (e_flags) of RISC-V: compressed instructions, and the
// floating-point ABI.
const (
	efRVC         = 0x1
	efFloatABI    = 0x6
	efFloatSoft   = 0x0
	efFloatDouble = 0x4
)

// TestFlavors checks every guest of every flavor: an ELF image of the
// flavor's instruction set, a small size, expected outputs at both sizes
// ending in exit status 0, and the same through the functions without a
// flavor for IM.
func TestFlavors(t *testing.T) {
	for _, f := range Flavors() {
		names := NamesOf(f)
		if len(names) < 8 || !slices.IsSorted(names) || !slices.Contains(names, Default) {
			t.Errorf("NamesOf(%v) = %v", f, names)
		}
		for _, name := range names {
			img, err := ELFOf(name, f)
			if err != nil {
				t.Errorf("%v %s: %v", f, name, err)
				continue
			}
			ef, err := elf.NewFile(bytes.NewReader(img))
			if err != nil {
				t.Errorf("%v %s: %v", f, name, err)
				continue
			}
			want := uint32(efFloatSoft)
			if f == GC {
				want = efRVC | efFloatDouble
			}
			if ef.Machine != elf.EM_RISCV || ef.Class != elf.ELFCLASS64 || ef.Type != elf.ET_EXEC ||
				ef.FileHeader.Entry == 0 {
				t.Errorf("%v %s: %v %v %v, not a static RV64 executable", f, name, ef.Machine, ef.Class, ef.Type)
			}
			if fl := elfFlags(img); fl&(efRVC|efFloatABI) != want {
				t.Errorf("%v %s: e_flags %#x, want RVC and float ABI bits %#x", f, name, fl, want)
			}
			if a := Args(name, Small); len(a) < 2 {
				t.Errorf("%v %s: no small size in sizes.txt", f, name)
			}
			for _, size := range []Size{Small, Full} {
				b, err := ExpectedOf(name, size, f)
				if err != nil || !strings.HasSuffix(string(b), Outcome("", 0)) {
					t.Errorf("%v %s at %v: expected output %q, %v", f, name, size, b, err)
				}
			}
		}
	}
	if im := NamesOf(IM); !slices.Equal(Names(), im) {
		t.Errorf("Names() = %v, NamesOf(IM) = %v", Names(), im)
	}
	// Every C guest is in both flavors.
	for _, name := range NamesOf(IM) {
		if !slices.Contains(NamesOf(GC), name) {
			t.Errorf("%s: IM guest without a GC build", name)
		}
		a, _ := ELF(name)
		b, _ := ELFOf(name, IM)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: ELF and ELFOf(IM) differ", name)
		}
		for _, size := range []Size{Small, Full} {
			a, _ := Expected(name, size)
			b, _ := ExpectedOf(name, size, IM)
			if !bytes.Equal(a, b) || ExpectedFile(name, size) != ExpectedFileOf(name, size, IM) {
				t.Errorf("%s: Expected and ExpectedOf(IM) differ at %v", name, size)
			}
		}
	}
}

// elfFlags returns e_flags of a little-endian ELF64 header.
func elfFlags(img []byte) uint32 {
	if len(img) < 0x34 {
		return 0
	}
	return uint32(img[0x30]) | uint32(img[0x31])<<8 | uint32(img[0x32])<<16 | uint32(img[0x33])<<24
}

// TestSharedExpected checks the sharing rule of the expected outputs: a
// flavor's own file exists only where its output differs from IM's (or
// IM has no such guest), and ExpectedFileOf picks it.
func TestSharedExpected(t *testing.T) {
	own, _ := fs.Glob(files, "testdata/gc/*.out")
	for _, p := range own {
		base := strings.TrimPrefix(p, "testdata/gc/")
		name, size, _ := strings.Cut(strings.TrimSuffix(base, ".out"), ".")
		sz := Full
		if size == "small" {
			sz = Small
		}
		if got := ExpectedFileOf(name, sz, GC); got != p {
			t.Errorf("ExpectedFileOf(%s, %v, GC) = %s, want %s", name, sz, got, p)
		}
		mine, _ := files.ReadFile(p)
		if shared, err := files.ReadFile("testdata/" + base); err == nil && bytes.Equal(mine, shared) {
			t.Errorf("%s is the same as testdata/%s: remove it", p, base)
		}
	}
	if got := ExpectedFileOf("sieve", Small, GC); got != "testdata/sieve.small.out" {
		t.Errorf("ExpectedFileOf(sieve, small, GC) = %s, want the shared file", got)
	}
	// A guest IM does not have (C++) has outputs of its own.
	for _, name := range NamesOf(GC) {
		if slices.Contains(NamesOf(IM), name) {
			continue
		}
		for _, size := range []Size{Small, Full} {
			if got, want := ExpectedFileOf(name, size, GC), "testdata/gc/"+name+"."+size.String()+".out"; got != want {
				t.Errorf("ExpectedFileOf(%s, %v, GC) = %s, want %s", name, size, got, want)
			}
		}
	}
}

// TestFloatingPoint checks FloatingPoint against the Makefile's list,
// which `make check` uses for the same purpose.
func TestFloatingPoint(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Skip(err)
	}
	mk, err := os.ReadFile(filepath.Join(dir, "..", "guests", "Makefile"))
	if err != nil {
		t.Skip(err)
	}
	var list []string
	for line := range strings.Lines(string(mk)) {
		if v, ok := strings.CutPrefix(line, "FP_GUESTS :="); ok {
			list = strings.Fields(v)
		}
	}
	if len(list) == 0 || !slices.Equal(list, floatingPoint) {
		t.Errorf("FP_GUESTS in bench/guests/Makefile is %v, corpus.floatingPoint %v", list, floatingPoint)
	}
	for _, name := range floatingPoint {
		if !slices.Contains(NamesOf(GC), name) {
			t.Errorf("floating-point guest %s is not in the corpus", name)
		}
	}
	if !FloatingPoint("nbody") || FloatingPoint("sieve") {
		t.Error("FloatingPoint(nbody), FloatingPoint(sieve): want true, false")
	}
}

func TestParseFlavor(t *testing.T) {
	for _, f := range Flavors() {
		for _, s := range []string{f.String(), strings.ToUpper(f.String())} {
			if g, err := ParseFlavor(s); g != f || err != nil {
				t.Errorf("ParseFlavor(%q) = %v, %v", s, g, err)
			}
		}
	}
	if _, err := ParseFlavor("rv32e"); !errors.Is(err, ErrNoFlavor) {
		t.Errorf("ParseFlavor(rv32e): %v", err)
	}
	if s := Flavor(7).String(); s != "Flavor(7)" {
		t.Errorf("Flavor(7).String() = %q", s)
	}
}

func TestUnknownGuest(t *testing.T) {
	if _, err := ELF("nosuchguest"); !errors.Is(err, ErrNoGuest) || !strings.Contains(err.Error(), `"nosuchguest"`) {
		t.Errorf("ELF: %v", err)
	}
	if _, err := ELFFile("nosuchguest"); !errors.Is(err, ErrNoGuest) {
		t.Errorf("ELFFile: %v", err)
	}
	if _, err := Expected("nosuchguest", Small); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Expected: %v", err)
	}
	// A C++ guest is GC only; a path is no name.
	if _, err := ELFOf("ledger", IM); !errors.Is(err, ErrNoGuest) || !strings.Contains(err.Error(), "flavor im") {
		t.Errorf("ELFOf(ledger, IM): %v", err)
	}
	for _, name := range []string{"gc/sieve", "../corpus/sieve", ""} {
		if _, err := ELFOf(name, IM); !errors.Is(err, ErrNoGuest) {
			t.Errorf("ELFOf(%q, IM): %v", name, err)
		}
		if _, err := ELFFileOf(name, GC); !errors.Is(err, ErrNoGuest) {
			t.Errorf("ELFFileOf(%q, GC): %v", name, err)
		}
	}
}

// TestFiles checks that the files in the source tree are the embedded ones.
func TestFiles(t *testing.T) {
	p, err := ELFFile("sieve")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p, "bench/corpus/sieve.elf") {
		t.Errorf("ELFFile(sieve) = %q", p)
	}
	for _, f := range Flavors() {
		for _, name := range NamesOf(f) {
			p, err := ELFFileOf(name, f)
			if err != nil {
				t.Fatal(err)
			}
			disk, err := os.ReadFile(p)
			img, _ := ELFOf(name, f)
			if err != nil || !bytes.Equal(disk, img) {
				t.Errorf("%v %s: %s is not the embedded image (%v)", f, name, p, err)
			}
		}
	}
	if p, _ := ELFFileOf("sieve", GC); !strings.HasSuffix(p, "bench/corpus/gc/sieve.elf") {
		t.Errorf("ELFFileOf(sieve, GC) = %q", p)
	}
}
