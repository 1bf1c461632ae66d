// Guest corpus: a guest's name and size -> its embedded ELF image, its argv and its expected output.

// Package corpus is rvdyn's guest corpus: the RV64IM Linux ELF programs
// built from the C sources in bench/guests (embedded, so a fresh clone or
// an installed binary runs them without a cross compiler), the arguments
// that run each one at its small size (sizes.txt), and the output each one
// is expected to give at both sizes (testdata/NAME.SIZE.out).
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
	"path/filepath"
	"sort"
	"strings"
)

//go:embed *.elf sizes.txt testdata/*.out
var files embed.FS

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

// Names returns the names of the guests in the corpus (the ELF file names
// without ".elf"), sorted.
func Names() []string {
	ents, _ := fs.Glob(files, "*.elf")
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = strings.TrimSuffix(e, ".elf")
	}
	sort.Strings(names)
	return names
}

// ELF returns the image of the named guest. An unknown name gives an
// error wrapping ErrNoGuest.
func ELF(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".elf")
	if err != nil {
		return nil, noGuest(name)
	}
	return b, nil
}

func noGuest(name string) error {
	return fmt.Errorf("%w %q (have %v)", ErrNoGuest, name, Names())
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

// Expected returns the output the named guest must give at size: its
// standard output, then a last line "# exit status N" (see Outcome). A
// guest with no recorded output gives an error wrapping fs.ErrNotExist.
func Expected(name string, size Size) ([]byte, error) {
	return files.ReadFile(ExpectedFile(name, size))
}

// ExpectedFile returns the name of the file that holds the named guest's
// expected output at size, relative to the corpus directory (see Dir):
// testdata/NAME.SIZE.out.
func ExpectedFile(name string, size Size) string {
	return "testdata/" + name + "." + size.String() + ".out"
}

// Outcome formats a run's standard output and exit status the way
// expected-output files hold them, for comparison with Expected.
func Outcome(stdout string, status int) string {
	return fmt.Sprintf("%s# exit status %d\n", stdout, status)
}

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

// ELFFile returns the path of the named guest's ELF file in the corpus
// directory (see Dir), for running it under qemu-riscv64 or giving it to
// a command as a program file. An unknown name gives an error wrapping
// ErrNoGuest.
func ELFFile(name string) (string, error) {
	if _, err := fs.Stat(files, name+".elf"); err != nil {
		return "", noGuest(name)
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".elf"), nil
}
