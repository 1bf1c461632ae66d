// Starts by binfmt_misc: rvdyn's own argv and auxv -> the drop-in's command line for the program the kernel was asked to run.

package main

import (
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// atExecFD is the auxv entry of the file descriptor binfmt_misc's O flag
// opens the program on (AT_EXECFD in linux/auxvec.h).
const atExecFD = 2

// binfmtArgs recognizes a start by binfmt_misc with the P flag, from
// rvdyn's argv (os.Args): the kernel runs the interpreter with argv
// {interpreter, program path, the program's argv[0], its argv[1:]...}.
// rvdyn's own entry (rvdyn binfmt install) has flags P and O, and O puts
// AT_EXECFD in rvdyn's auxv, which no other start does; an interpreter
// named *-binfmt-P (Debian's convention for qemu's entries, which have P)
// is a start with P too. It returns the drop-in command line that runs
// the program with its argv[0], reading it from the kernel's descriptor
// where there is one (an execute-only file cannot be opened again).
func binfmtArgs(osArgs []string) ([]string, bool) {
	fd := -1
	if auxv, err := unix.Auxv(); err == nil {
		for _, kv := range auxv {
			if kv[0] == atExecFD {
				fd = int(kv[1])
			}
		}
	}
	if len(osArgs) < 3 || fd < 0 && !strings.HasSuffix(filepath.Base(osArgs[0]), "-binfmt-P") {
		return nil, false
	}
	args := []string{"-0", osArgs[2]}
	if fd >= 0 {
		args = append(args, "--exec-fd", strconv.Itoa(fd))
	}
	return append(append(args, "--", osArgs[1]), osArgs[3:]...), true
}
