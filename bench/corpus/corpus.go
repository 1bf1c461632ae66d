// Guest corpus: a guest's name, flavor and size -> its embedded ELF image, its argv and its expected output.

// Package corpus is rvdyn's guest corpus: the RISC-V Linux ELF programs
// built from the C and C++ sources in bench/guests (embedded, so a fresh
// clone or an installed binary runs them without a cross compiler), the
// arguments that run each one at its small size (sizes.txt), and the
// output each one is expected to give at both sizes (testdata/*.out).
//
// The guests come in two flavors (see Flavor), built from the same
// sources: IM, RV64IM with soft float, picolibc and the guests' own
// runtime (NAME.elf), and GC, RV64GC built the standard way,
// riscv64-linux-gnu-gcc -O2 -static with glibc (gc/NAME.elf). The
// functions without a flavor argument (Names, ELF, ELFFile, Expected,
// ExpectedFile) are those of IM; their ...Of variants take one. A
// guest's sizes are the same in every flavor, so Args serves all. An
// expected output is shared: testdata/NAME.SIZE.out is IM's, and GC's
// unless GC has its own, testdata/gc/NAME.SIZE.out, which it has only
// where its output differs (floating point: fused multiply-add, libm,
// rounding modes) or IM has no such guest (C++).
//
// The package is a leaf: it must not import anything from rvdyn (nor
// anything outside the standard library), so that the tests of every
// package, the root's included, can use the corpus without an import
// cycle. Measuring the corpus is the job of bench, running it the job of
// the root package.
package corpus

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

//go:embed *.elf gc/*.elf sizes.txt testdata/*.out testdata/gc/*.out
var files embed.FS

// A Flavor is one way of building the corpus's guests: a toolchain, a C
// library and so an instruction set. The zero value is IM.
type Flavor int

const (
	// IM guests are RV64IM with soft float (no compressed, atomic,
	// floating-point or CSR instructions), built with
	// riscv64-unknown-elf-gcc, picolibc and bench/guests/rt (our crt0
	// and system-call shim). They are NAME.elf in the corpus directory.
	IM Flavor = iota
	// GC guests are RV64GC (IMAFDC, lp64d), built as a user builds a
	// Linux program, riscv64-linux-gnu-gcc (g++ for C++) -O2 -static,
	// with glibc's start-up code and libraries. They are gc/NAME.elf.
	GC
)

// Flavors returns every flavor, IM first.
func Flavors() []Flavor { return []Flavor{IM, GC} }

// String returns "im" or "gc", the flavor's name on command lines.
func (f Flavor) String() string {
	switch f {
	case IM:
		return "im"
	case GC:
		return "gc"
	}
	return fmt.Sprintf("Flavor(%d)", int(f))
}

// ErrNoFlavor is the error (wrapped, with the name asked for) of
// ParseFlavor for a name that is not a flavor.
var ErrNoFlavor = errors.New("no such corpus flavor")

// ParseFlavor returns the flavor String names ("im" or "gc", in any
// case), or an error wrapping ErrNoFlavor.
func ParseFlavor(s string) (Flavor, error) {
	for _, f := range Flavors() {
		if strings.EqualFold(s, f.String()) {
			return f, nil
		}
	}
	return IM, fmt.Errorf("%w %q (have im, gc)", ErrNoFlavor, s)
}

// dir returns the flavor's subdirectory ("" or "gc/") of the corpus
// directory and of testdata.
func (f Flavor) dir() string {
	if f == IM {
		return ""
	}
	return f.String() + "/"
}

// Default is the guest that `rvdyn run` runs when given no program.
const Default = "nqueens"

// A Size says how long a guest runs.
type Size int

const (
	// Full runs a guest with no arguments: its benchmark size. It is the
	// zero value.
	Full Size = iota
	// Small runs a guest with its arguments from sizes.txt, which keep a
	// run short (about 0.02 s under qemu-riscv64) for tests.
	Small
)

// String returns "full" or "small", the word used in expected-output
// file names.
func (s Size) String() string {
	if s == Small {
		return "small"
	}
	return "full"
}

// ErrNoGuest is the error (wrapped, with the name asked for and the names
// there are) for a guest that is not in the corpus.
var ErrNoGuest = errors.New("no embedded guest")

// Names returns the names of the IM flavor's guests (the ELF file names
// without ".elf"), sorted.
func Names() []string { return NamesOf(IM) }

// NamesOf returns the names of flavor f's guests, sorted. Every C guest
// is in both flavors; the C++ guests are in GC only.
func NamesOf(f Flavor) []string {
	ents, _ := fs.Glob(files, f.dir()+"*.elf")
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = strings.TrimSuffix(path.Base(e), ".elf")
	}
	sort.Strings(names)
	return names
}

// ELF returns the image of the named guest of the IM flavor. An unknown
// name gives an error wrapping ErrNoGuest.
func ELF(name string) ([]byte, error) { return ELFOf(name, IM) }

// ELFOf returns the image of the named guest of flavor f. A name that is
// not one of f's guests gives an error wrapping ErrNoGuest.
func ELFOf(name string, f Flavor) ([]byte, error) {
	if !validName(name) {
		return nil, noGuest(name, f)
	}
	b, err := files.ReadFile(f.dir() + name + ".elf")
	if err != nil {
		return nil, noGuest(name, f)
	}
	return b, nil
}

// validName rejects names that would reach into another flavor's
// directory ("gc/sieve") or are not file names at all.
func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\")
}

func noGuest(name string, f Flavor) error {
	return fmt.Errorf("%w %q in flavor %v (have %v)", ErrNoGuest, name, f, NamesOf(f))
}

// Args returns the argv the named guest runs with at size: its name, then
// at Small the arguments from its line of sizes.txt. A line there is
// "NAME ARG..." (e.g. "sieve 3000000", or "scheme all small" for a guest
// whose arguments select a program and an input); lines starting with '#'
// are comments. A guest without a line runs at Small as at Full, with no
// arguments.
func Args(name string, size Size) []string {
	argv := []string{name}
	if size != Small {
		return argv
	}
	b, _ := files.ReadFile("sizes.txt")
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
			return append(argv, f[1:]...)
		}
	}
	return argv
}

// Expected returns the output the named guest of the IM flavor must give
// at size: its standard output, then a last line "# exit status N" (see
// Outcome). A guest with no recorded output gives an error wrapping
// fs.ErrNotExist.
func Expected(name string, size Size) ([]byte, error) {
	return files.ReadFile(ExpectedFile(name, size))
}

// ExpectedOf returns the output the named guest of flavor f must give at
// size, as Expected does for IM: from the file ExpectedFileOf names.
func ExpectedOf(name string, size Size, f Flavor) ([]byte, error) {
	return files.ReadFile(ExpectedFileOf(name, size, f))
}

// ExpectedFile returns the name of the file that holds the named IM
// guest's expected output at size, relative to the corpus directory (see
// Dir): testdata/NAME.SIZE.out. Other flavors share it unless they have
// their own (see ExpectedFileOf).
func ExpectedFile(name string, size Size) string {
	return "testdata/" + name + "." + size.String() + ".out"
}

// ExpectedFileOf returns the name of the file, relative to the corpus
// directory, that holds the expected output of the named guest of flavor
// f at size: the flavor's own, testdata/FLAVOR/NAME.SIZE.out (e.g.
// testdata/gc/nbody.small.out), when the corpus has one, and otherwise
// the shared ExpectedFile(name, size).
func ExpectedFileOf(name string, size Size, f Flavor) string {
	if f != IM {
		own := "testdata/" + f.dir() + name + "." + size.String() + ".out"
		if _, err := fs.Stat(files, own); err == nil {
			return own
		}
	}
	return ExpectedFile(name, size)
}

// Outcome formats a run's standard output and exit status the way
// expected-output files hold them, for comparison with Expected.
func Outcome(stdout string, status int) string {
	return fmt.Sprintf("%s# exit status %d\n", stdout, status)
}

// floatingPoint lists the guests that compute in floating point (FP_GUESTS
// in bench/guests/Makefile; a test keeps the two lists equal).
var floatingPoint = []string{"fft", "lu", "nbody", "ray", "rounding", "spectral"}

// FloatingPoint reports whether the named guest computes in floating
// point. Such a guest's output depends on how it was built, not only on
// its source: the flavors print different last digits (fused multiply-add
// on RV64GC, picolibc's libm against glibc's), IM has neither rounding
// modes nor exception flags, and a native x86-64 build differs again. Runs
// of one build agree exactly everywhere; between builds only the exit
// status is comparable.
func FloatingPoint(name string) bool { return slices.Contains(floatingPoint, name) }

// Dir returns the corpus directory in the source tree, bench/corpus under
// the working directory or one of its parents, for programs that need the
// files rather than the embedded copies: qemu-riscv64 runs a guest from a
// file, and the differential test rewrites expected outputs there. Outside
// a source tree it returns an error wrapping fs.ErrNotExist.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "bench", "corpus")
		if st, err := os.Stat(filepath.Join(p, "sizes.txt")); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no bench/corpus directory in %s or its parents: %w", wd, fs.ErrNotExist)
		}
	}
}

// ELFFile returns the path of the named IM guest's ELF file in the
// corpus directory (see Dir), for running it under qemu-riscv64 or giving
// it to a command as a program file. An unknown name gives an error
// wrapping ErrNoGuest.
func ELFFile(name string) (string, error) { return ELFFileOf(name, IM) }

// ELFFileOf returns the path of the named guest's ELF file of flavor f
// in the corpus directory, as ELFFile does for IM (gc/NAME.elf for GC).
func ELFFileOf(name string, f Flavor) (string, error) {
	if !validName(name) {
		return "", noGuest(name, f)
	}
	rel := f.dir() + name + ".elf"
	if _, err := fs.Stat(files, rel); err != nil {
		return "", noGuest(name, f)
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}
