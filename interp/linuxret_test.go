package interp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// Linux errnos, negated as a0 holds them.
const (
	eBADF   = -9
	eFAULT  = -14
	eNODEV  = -19
	eNOTDIR = -20
	eINVAL  = -22
	eSPIPE  = -29
	eNOMEM  = -12
)

const (
	sysReadv     = 65
	sysPread64   = 67
	sysOpenat    = 56
	sysGetrlimit = 163
	sysPrlimit64 = 261
	sysMremap    = 216
	sysDup3      = 24
	sysFcntl     = 25
	oRDONLY      = 0
	oRDWR        = 2
	oDIRECTORY   = 0o200000
	oTMPFILE     = 0o20000000 | oDIRECTORY
	mapPrivAnon  = 0x22
	data         = rvtest.MakeELFData
)

// putString writes s and a NUL at the data segment and returns its address.
func putString(m *interp.Machine, s string) uint64 {
	copy(m.Mem.Bytes(data, uint64(len(s))+1), s+"\x00")
	return data
}

// TestLinuxReturnValues pins system call results where rvdyn once
// differed from the kernel (issue 23): each case's result is what Linux
// 6.x answers, checked against a native program on the host where the
// generic code is the same, and against the kernel source where it is
// RISC-V's own (Sv39's user address space).
func TestLinuxReturnValues(t *testing.T) {
	type tc struct {
		name string
		cfg  interp.Config
		run  func(t *testing.T, m *interp.Machine) uint64
		want int64
	}
	sys := func(num uint64, args ...uint64) func(t *testing.T, m *interp.Machine) uint64 {
		return func(t *testing.T, m *interp.Machine) uint64 { return call(t, m, num, args...) }
	}
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pipeR.Close()
	defer pipeW.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	devZero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer devZero.Close()
	file := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(file, []byte("abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdinFile, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer stdinFile.Close()
	var out bytes.Buffer
	openRoot := func(t *testing.T, m *interp.Machine, flags uint64) uint64 {
		return call(t, m, sysOpenat, ^uint64(99), putString(m, "/"), flags, 0o600)
	}
	mapped := func(t *testing.T, m *interp.Machine) uint64 {
		return call(t, m, interp.SysMmap, 0, 8192, 3, mapPrivAnon, ^uint64(0), 0)
	}
	for _, c := range []tc{
		// writev and readv of no vector: the vector is never read.
		{name: "writev(1, NULL, 0)", run: sys(interp.SysWritev, 1, 0, 0), want: 0},
		{name: "writev(stdin, NULL, 0)", run: sys(interp.SysWritev, 0, 0, 0), want: eBADF},
		{name: "readv(99, NULL, 0)", run: sys(sysReadv, 99, 0, 0), want: eBADF},
		{name: "preadv(pipe, NULL, 0, 0)", cfg: interp.Config{Stdin: pipeR}, run: sys(69, 0, 0, 0, 0), want: eSPIPE},
		// getrlimit must store its answer; prlimit64 need not.
		{name: "getrlimit(NOFILE, NULL)", run: sys(sysGetrlimit, 7, 0), want: eFAULT},
		{name: "getrlimit(NOFILE, buf)", run: sys(sysGetrlimit, 7, data), want: 0},
		{name: "getrlimit(99, NULL)", run: sys(sysGetrlimit, 99, 0), want: eINVAL},
		{name: "prlimit64(0, NOFILE, NULL, NULL)", run: sys(sysPrlimit64, 0, 7, 0, 0), want: 0},
		// mmap of what has no mmap is -ENODEV; /dev/zero maps zeros.
		{name: "mmap(directory)", run: func(t *testing.T, m *interp.Machine) uint64 {
			fd := openRoot(t, m, oRDONLY|oDIRECTORY)
			return call(t, m, interp.SysMmap, 0, 4096, 1, 2, fd, 0)
		}, want: eNODEV},
		{name: "mmap(pipe)", cfg: interp.Config{Stdin: pipeR}, run: sys(interp.SysMmap, 0, 4096, 1, 2, 0, 0), want: eNODEV},
		{name: "mmap(non-file stream)", cfg: interp.Config{Stdin: strings.NewReader("x")}, run: sys(interp.SysMmap, 0, 4096, 1, 2, 0, 0), want: eNODEV},
		{name: "mmap(/dev/zero) reads zeros", cfg: interp.Config{Stdin: devZero}, run: func(t *testing.T, m *interp.Machine) uint64 {
			a := call(t, m, interp.SysMmap, 0, 4096, 1, 2, 0, 0)
			if int64(a) < 0 || m.Mem.Bytes(a, 1)[0] != 0 {
				return a
			}
			return 0
		}, want: 0},
		{name: "mmap(regular stdin) copies it", cfg: interp.Config{Stdin: stdinFile}, run: func(t *testing.T, m *interp.Machine) uint64 {
			a := call(t, m, interp.SysMmap, 0, 4096, 1, 2, 0, 0)
			if int64(a) < 0 || string(m.Mem.Bytes(a, 6)) != "abcdef" {
				return a
			}
			return 0
		}, want: 0},
		// fds are C ints: the register's high half is not part of them.
		{name: "write(0x100000001)", cfg: interp.Config{Stdout: &out}, run: func(t *testing.T, m *interp.Machine) uint64 {
			out.Reset()
			r := call(t, m, interp.SysWrite, 1<<32|1, putString(m, "data"), 4)
			if out.String() != "data" {
				t.Errorf("stdout got %q", out.String())
			}
			return r
		}, want: 4},
		{name: "openat(0xffffff9c) is AT_FDCWD", run: func(t *testing.T, m *interp.Machine) uint64 {
			return call(t, m, sysOpenat, 0xffffff9c, putString(m, "."), oRDONLY|oDIRECTORY, 0)
		}, want: 3},
		{name: "close(0x100000000|fd)", run: func(t *testing.T, m *interp.Machine) uint64 {
			fd := openRoot(t, m, oRDONLY|oDIRECTORY)
			return call(t, m, interp.SysClose, 1<<32|fd)
		}, want: 0},
		{name: "dup3(1, 0x100000005)", run: sys(sysDup3, 1, 1<<32|5, 0), want: 5},
		{name: "fcntl(1, F_DUPFD, 0xffffffff00000006)", run: sys(sysFcntl, 1, 0, 0xffffffff00000006), want: 6},
		{name: "fcntl(1, F_DUPFD, 0xffffffff)", run: sys(sysFcntl, 1, 0, 0xffffffff), want: eINVAL},
		// Positioned I/O on a standard stream is the host file's answer.
		{name: "pread64(pipe stdin)", cfg: interp.Config{Stdin: pipeR}, run: sys(sysPread64, 0, data, 4, 0), want: eSPIPE},
		{name: "pread64(pipe stdin, 0 bytes)", cfg: interp.Config{Stdin: pipeR}, run: sys(sysPread64, 0, data, 0, 0), want: eSPIPE},
		{name: "pread64(/dev/null stdin)", cfg: interp.Config{Stdin: devNull}, run: sys(sysPread64, 0, data, 4, 0), want: 0},
		{name: "pread64(regular stdin)", cfg: interp.Config{Stdin: stdinFile}, run: func(t *testing.T, m *interp.Machine) uint64 {
			r := call(t, m, sysPread64, 0, data, 3, 2)
			if got := string(m.Mem.Bytes(data, 3)); got != "cde" {
				t.Errorf("read %q, want cde", got)
			}
			return r
		}, want: 3},
		{name: "pread64(stream stdin)", cfg: interp.Config{Stdin: strings.NewReader("abc")}, run: sys(sysPread64, 0, data, 4, 0), want: eSPIPE},
		{name: "pread64(pipe stdin, offset -1)", cfg: interp.Config{Stdin: pipeR}, run: sys(sysPread64, 0, data, 4, ^uint64(0)), want: eINVAL},
		// An empty transfer checks the file, not the buffer (below the
		// top of the user address space).
		{name: "read(0, bad, 0)", run: sys(interp.SysRead, 0, 8, 0), want: 0},
		{name: "write(1, bad, 0)", run: sys(interp.SysWrite, 1, 8, 0), want: 0},
		{name: "write(1, 1<<40, 0)", run: sys(interp.SysWrite, 1, 1<<40, 0), want: eFAULT},
		{name: "write(stdin, bad, 0)", run: sys(interp.SysWrite, 0, 8, 0), want: eBADF},
		{name: "write(stdin, bad, 4)", run: sys(interp.SysWrite, 0, 8, 4), want: eBADF},
		{name: "write(O_RDONLY fd, bad, 0)", run: func(t *testing.T, m *interp.Machine) uint64 {
			return call(t, m, interp.SysWrite, openRoot(t, m, oRDONLY|oDIRECTORY), 8, 0)
		}, want: eBADF},
		{name: "readv zero-length bad bases", run: func(t *testing.T, m *interp.Machine) uint64 {
			iov := m.Mem.Bytes(data, 32)
			clear(iov)
			iov[0] = 8 // {8, 0}, {0, 0}
			return call(t, m, sysReadv, 0, data, 2)
		}, want: 0},
		// O_TMPFILE makes an unnamed file, not a directory fd; the mode
		// of an open that creates nothing is ignored, not refused.
		{name: "O_DIRECTORY with a mode", run: func(t *testing.T, m *interp.Machine) uint64 {
			return openRoot(t, m, oRDONLY|oDIRECTORY)
		}, want: 3},
		{name: "O_TMPFILE", run: func(t *testing.T, m *interp.Machine) uint64 {
			fd := openRoot(t, m, oTMPFILE|oRDWR)
			if int64(fd) < 0 {
				return fd
			}
			if r := call(t, m, interp.SysWrite, fd, putString(m, "temp"), 4); r != 4 {
				return r
			}
			clear(m.Mem.Bytes(data, 4))
			if r := call(t, m, sysPread64, fd, data, 4, 0); r != 4 || string(m.Mem.Bytes(data, 4)) != "temp" {
				t.Errorf("read back %d, %q", int64(r), m.Mem.Bytes(data, 4))
			}
			return call(t, m, sysOpenat, fd, putString(m, "x"), oRDONLY, 0)
		}, want: eNOTDIR},
		{name: "O_TMPFILE read-only", run: func(t *testing.T, m *interp.Machine) uint64 {
			return openRoot(t, m, oTMPFILE|oRDONLY)
		}, want: eINVAL},
		// mremap and mmap lengths that wrap or cannot fit.
		{name: "mremap wrapping old length", run: func(t *testing.T, m *interp.Machine) uint64 {
			a := mapped(t, m)
			return call(t, m, sysMremap, a, -a, 4096, 0, 0)
		}, want: eINVAL},
		{name: "mremap wrapping old length, page more", run: func(t *testing.T, m *interp.Machine) uint64 {
			a := mapped(t, m)
			return call(t, m, sysMremap, a, -a+4096, 4096, 0, 0)
		}, want: eINVAL},
		{name: "mremap huge new length", run: func(t *testing.T, m *interp.Machine) uint64 {
			a := mapped(t, m)
			return call(t, m, sysMremap, a, 8192, 1<<62, 1, 0)
		}, want: eINVAL},
		{name: "mmap 1<<62", run: sys(interp.SysMmap, 0, 1<<62, 3, mapPrivAnon, ^uint64(0), 0), want: eNOMEM},
		{name: "mmap ~0", run: sys(interp.SysMmap, 0, ^uint64(0), 3, mapPrivAnon, ^uint64(0), 0), want: eNOMEM},
		{name: "mmap 1<<62 bad type", run: sys(interp.SysMmap, 0, 1<<62, 3, 0x20, ^uint64(0), 0), want: eNOMEM},
		{name: "mmap 0 bytes", run: sys(interp.SysMmap, 0, 0, 3, mapPrivAnon, ^uint64(0), 0), want: eINVAL},
		{name: "mmap 1<<62 bad fd", run: sys(interp.SysMmap, 0, 1<<62, 3, 2, 99, 0), want: eBADF},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := ecallMachine(t, c.cfg)
			if got := int64(c.run(t, m)); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}
