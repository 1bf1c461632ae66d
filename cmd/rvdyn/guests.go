// Guest selection: command-line program or --guest list -> the programs a command runs.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"rvdyn"
	"rvdyn/bench/corpus"
)

// A guestRun is one program to run: a display name, its ELF image, argv.
type guestRun struct {
	name  string
	image []byte
	args  []string
}

// selectGuests returns the programs a command was asked to run: the ELF
// file and arguments given on the command line (files; read by
// readProgram, which memSize bounds, 0 meaning the default address
// space), or the embedded guests named in list (comma-separated, "all"
// for every one, "" for the default guest), at their small size when
// small is set. Giving both is an error. The embedded guests are the
// RV64IM builds; selectGuestsOf takes the flavor.
func selectGuests(files []string, list string, small bool, memSize uint64) ([]guestRun, error) {
	return selectGuestsOf(files, list, small, memSize, corpus.IM.String())
}

// flavorUsage is the help of --flavor for the commands that run the
// embedded guests through selectGuestsOf.
const flavorUsage = "corpus build of the embedded guests: im (RV64IM, picolibc, our runtime) or gc (RV64GC, glibc: riscv64-linux-gnu-gcc -O2 -static)"

// selectGuestsOf is selectGuests with the corpus flavor of the embedded
// guests named by flavor, as --flavor gives it (an unknown name is an
// error; the file named on the command line is run as it is).
func selectGuestsOf(files []string, list string, small bool, memSize uint64, flavor string) ([]guestRun, error) {
	fl, err := corpus.ParseFlavor(flavor)
	if err != nil {
		return nil, fmt.Errorf("--flavor: %w", err)
	}
	switch {
	case len(files) > 0 && list != "":
		return nil, fmt.Errorf("give either a program file or --guest, not both")
	case len(files) > 0:
		image, err := readProgram(files[0], memSize)
		if err != nil {
			return nil, err
		}
		return []guestRun{{filepath.Base(files[0]), image, files}}, nil
	}
	names := []string{corpus.Default}
	if list == "all" {
		names = corpus.NamesOf(fl)
	} else if list != "" {
		names = splitList(list, ",")
	}
	size := corpus.Full
	if small {
		size = corpus.Small
	}
	var runs []guestRun
	for _, name := range names {
		image, err := corpus.ELFOf(name, fl)
		if err != nil {
			return nil, err
		}
		runs = append(runs, guestRun{name, image, corpus.Args(name, size)})
	}
	return runs, nil
}

// readProgram reads a program file. It refuses what is not a regular file
// (a device such as /dev/zero, a pipe, a directory: reading those need not
// end) and a file larger than the guest address space (memSize bytes, 0
// for rvdyn.DefaultMemSize), which could not be loaded anyway, so a file
// costs rvdyn at most its size to read.
func readProgram(path string, memSize uint64) ([]byte, error) {
	if memSize == 0 {
		memSize = rvdyn.DefaultMemSize
	}
	return readRegular(path, int64(memSize), fmt.Sprintf("the guest address space (--mem-size %d)", memSize))
}

// errNotRegular and errTooLarge are readRegular's refusals.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("too large")
)

// readRegular reads the regular file at path if it holds at most max
// bytes (limit says what max is, for the message). Anything else is
// refused before a byte is read, with one line that names the path
// (wrapping errNotRegular or errTooLarge): reading a device or a pipe need
// not end. The file is opened without blocking, as open(2) of a FIFO would
// otherwise wait for a writer.
func readRegular(path string, max int64, limit string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegularFile(f, path, max, limit)
}

// readProgramFD reads the program open on file descriptor fd (binfmt_misc's
// O flag; see readProgram), named path, and closes fd.
func readProgramFD(fd int, path string, memSize uint64) ([]byte, error) {
	if memSize == 0 {
		memSize = rvdyn.DefaultMemSize
	}
	f := os.NewFile(uintptr(fd), path)
	if f == nil {
		return nil, fmt.Errorf("--exec-fd %d: not a file descriptor", fd)
	}
	defer f.Close()
	return readRegularFile(f, path, int64(memSize), fmt.Sprintf("the guest address space (--mem-size %d)", memSize))
}

// readRegularFile is readRegular on the open file f, named path.
func readRegularFile(f *os.File, path string, max int64, limit string) ([]byte, error) {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	case fi.Size() > max:
		return nil, &tooLarge{path, fi.Size(), limit}
	}
	// Read into a buffer of the size the stat gave (one allocation, no
	// copies as io.ReadAll's growth makes: a glibc program's half
	// megabyte took a millisecond of start-up that way); it grows only
	// if the file grew since.
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	_, err = buf.ReadFrom(io.LimitReader(f, max+1))
	b := buf.Bytes()
	if err == nil && int64(len(b)) > max { // it grew since the stat
		return nil, &tooLarge{path, int64(len(b)), limit}
	}
	return b, err
}

// tooLarge is readRegular's refusal of a file larger than it may read.
type tooLarge struct {
	path  string
	size  int64
	limit string
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("%s: %d bytes, larger than %s", e.path, e.size, e.limit)
}

func (e *tooLarge) Unwrap() error { return errTooLarge }
