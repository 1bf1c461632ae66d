// Guest sources: the C, C++ and Scheme sources, runtime and Makefile of bench/guests in (embedded at build time); a directory where make can build and relink the guests out (ExtractGuests).

package bench

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// guestSources are bench/guests' sources (the C and C++ programs, the
// Scheme interpreter and its programs, the runtime in rt/, the Makefile):
// only sources, never build products (*.o, *.native, *.layout.elf); the
// built ELFs are package corpus's. They live here because Go does not
// allow a package in a directory of C files.
//
//go:embed guests/Makefile guests/README.md guests/*.c guests/*.cc guests/*.awk
//go:embed guests/rt/*.S guests/rt/*.c guests/rt/*.h guests/rt/*.ld
//go:embed guests/scheme/*.c guests/scheme/*.h guests/scheme/*.S guests/scheme/*.scm guests/scheme/programs/*.scm
//go:embed guests/scheme/tests/*.scm guests/scheme/tests/*.out guests/scheme/tests/*.txt guests/scheme/tests/*.sh
//go:embed guests/sys/*.c
var guestSources embed.FS

// GuestSources returns the embedded guest sources, rooted where the
// Makefile is (bench/guests in the source tree).
func GuestSources() fs.FS {
	sub, err := fs.Sub(guestSources, "guests")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}

// ExtractGuests writes the embedded guest sources into dir (created if
// needed) with the layout they have in bench/guests, so that `make -C dir
// ...` builds there: what an installed rvdyn relinks guests with (rvdyn
// layout). Files already in dir are overwritten.
func ExtractGuests(dir string) error {
	src := GuestSources()
	return fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(src, path)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if filepath.Ext(path) == ".sh" {
			mode = 0o755
		}
		return os.WriteFile(dst, b, mode)
	})
}

// FindGuestsDir returns bench/guests (with its Makefile) under the
// working directory or one of its parents, for a command run inside a
// source tree; outside one it returns an error wrapping fs.ErrNotExist
// (then ExtractGuests gives a copy).
func FindGuestsDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "bench", "guests")
		if st, err := os.Stat(filepath.Join(p, "Makefile")); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no bench/guests/Makefile in %s or its parents: %w", wd, fs.ErrNotExist)
		}
	}
}
