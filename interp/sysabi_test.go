package interp_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// ecallMachine loads a program that is one ecall, confined to a fresh
// root directory.
func ecallMachine(t *testing.T, cfg interp.Config) *interp.Machine {
	t.Helper()
	img := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, []byte("data"), 4096)
	if cfg.Root == "" {
		cfg.Root = t.TempDir()
	}
	cfg.MemSize = 16 << 20
	m, err := interp.Load(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// call performs system call num with args and returns a0.
func call(t *testing.T, m *interp.Machine, num uint64, args ...uint64) uint64 {
	t.Helper()
	m.CPU.PC = m.Entry()
	m.CPU.X[17] = num
	for i := range 6 {
		m.CPU.X[10+i] = 0
		if i < len(args) {
			m.CPU.X[10+i] = args[i]
		}
	}
	if _, err := m.Step(); err != nil {
		t.Fatalf("syscall %d%v: %v", num, args, err)
	}
	return m.CPU.X[10]
}

// TestSyscallsHostile calls every system call with hostile arguments
// (null page, text, unmapped gap, guard gap, past the end, huge sizes,
// negative numbers): each must answer, with a value or -errno, and never
// panic or touch the host outside the guest's memory and root.
func TestSyscallsHostile(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	lo, hi := m.Mem.Guard()
	vals := []uint64{0, 1, 8, 4095, rvtest.MakeELFText, rvtest.MakeELFData, rvtest.MakeELFData + 4090,
		lo - 1, lo, hi - 8, hi, m.Mem.Size() - 1, m.Mem.Size(), m.Mem.Size() + 4096, 1 << 40, 1 << 63,
		^uint64(0), ^uint64(99), 1 << 31, 0x7fffffff}
	r := rand.New(rand.NewPCG(1, 2))
	// setitimer may arm the timer: its SIGALRM is ignored here.
	call(t, m, 134, 14, putWords(m, 1, 0, 0), 0, 8)
	for _, num := range interp.SyscallNumbers() {
		switch num {
		case interp.SysExit, interp.SysExitGroup, 101, 115, // ends the guest; sleeps
			98, 129, 130, 131, // futex waits (or ends a deadlocked guest); kill and tkill/tgkill end it
			133,                // rt_sigsuspend waits for a signal with a handler (TestItimer)
			202, 203, 207, 242, // accept, connect and recvfrom wait for a peer (the sockets guest)
			19, 20, 59, 85, 198, 199, // new event files, pipes and sockets a later read would wait on for ever (the events, libcio and sockets guests)
			47, 71, 279, 285, // fallocate, sendfile and copy_file_range of hostile lengths fill the disk or, on a memfd, memory (the sysmisc guest)
			139, // rt_sigreturn jumps where the frame at sp says, or ends the guest (TestSignalFrame)
			166: // umask would leave the test process's at random (TestFdCalls sets it and back)
			continue
		}
		for range 300 {
			var a [6]uint64
			for i := range a {
				a[i] = vals[r.IntN(len(vals))]
			}
			if (num == 215 || num == 226) && a[0] <= rvtest.MakeELFText && a[0]+a[1] > rvtest.MakeELFText {
				continue // munmap or mprotect of the text under this very ecall: a fault, as on Linux
			}
			// ppoll, pselect6 and rt_sigtimedwait wait as long as their
			// timeout says, for ever when it is NULL: a timeout the guest
			// can read becomes a zero one (a hostile one the guest cannot
			// read stays).
			if ts := map[uint64]int{73: 2, 72: 4, 137: 2}; ts[num] != 0 && (a[ts[num]] == 0 || m.Mem.CanRead(a[ts[num]], 16)) {
				a[ts[num]] = lo - 16
				clear(m.Mem.Bytes(lo-16, 16))
			}
			// A call that waits (on a file an earlier call made)
			// is ended by SIGKILL after a while, and reported, rather
			// than hanging the test.
			watchdog := time.AfterFunc(10*time.Second, func() { m.Signal(interp.SigKill) })
			call(t, m, num, a[:]...)
			watchdog.Stop()
			if m.Exited() {
				t.Fatalf("syscall %d%v exited the guest (or waited 10 s and was killed)", num, a)
			}
		}
	}
}

// TestStrace checks the trace line format: name, arguments, result.
func TestStrace(t *testing.T) {
	var tr bytes.Buffer
	m := ecallMachine(t, interp.Config{Strace: &tr})
	call(t, m, 56, ^uint64(99), rvtest.MakeELFData, 0o1101, 0o644) // openat(AT_FDCWD, "data", O_WRONLY|O_CREAT|O_TRUNC)
	call(t, m, 57, 99)
	call(t, m, 999, 1)
	lines := strings.Split(strings.TrimSpace(tr.String()), "\n")
	want := []string{
		` openat(AT_FDCWD,"data",O_WRONLY|O_CREAT|O_TRUNC,0644) = 3`,
		` close(99) = -1 errno=9 (Bad file descriptor)`,
		` Unknown syscall 999(0x1,0x0,0x0,0x0,0x0,0x0) = -1 errno=38 (Function not implemented)`,
	}
	if len(lines) != len(want) {
		t.Fatalf("trace:\n%s", tr.String())
	}
	for i, l := range lines {
		if !strings.HasSuffix(l, want[i]) {
			t.Errorf("line %d: %q, want ...%q", i, l, want[i])
		}
	}
}

// TestMmapLayout checks that mappings come from the free range between the
// break and the guard gap, bottom up from a third of the way to the gap
// (Linux's TASK_UNMAPPED_BASE rule; qemu-riscv64 hands them out bottom up
// too), are zeroed when mapped again, and hold the break below them.
func TestMmapLayout(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	lo, _ := m.Mem.Guard()
	base := (lo/3 + 4095) &^ 4095
	a := call(t, m, interp.SysMmap, 0, 8192, 3, 0x22, ^uint64(0), 0)
	if a != base || m.BrkLimit() != a {
		t.Fatalf("mmap at %#x (guard gap at %#x, want %#x), brk limit %#x", a, lo, base, m.BrkLimit())
	}
	if next := call(t, m, interp.SysMmap, 0, 4096, 3, 0x22, ^uint64(0), 0); next != a+8192 {
		t.Fatalf("second mmap at %#x, want %#x: bottom up", next, a+8192)
	} else {
		call(t, m, interp.SysMunmap, next, 4096)
	}
	m.Mem.Bytes(a, 1)[0] = 7
	if r := call(t, m, interp.SysMunmap, a, 8192); r != 0 || m.BrkLimit() != lo {
		t.Fatalf("munmap: %d, brk limit %#x", int64(r), m.BrkLimit())
	}
	b := call(t, m, interp.SysMmap, 0, 4096, 3, 0x22, ^uint64(0), 0)
	if b != a || m.Mem.Bytes(a, 8192)[0] != 0 {
		t.Errorf("remapped at %#x, first byte %d", b, m.Mem.Bytes(a, 1)[0])
	}
	if r := call(t, m, interp.SysMmap, 0, 4096, 7, 0x22, ^uint64(0), 0); int64(r) < 0 || !m.IsText(r) {
		t.Errorf("mmap PROT_EXEC: %d, executable %v", int64(r), m.IsText(r))
	} else if call(t, m, 226, r, 4096, 3); m.IsText(r) { // mprotect
		t.Errorf("mprotect without PROT_EXEC: still executable")
	}
	// With the room above the base taken, a block goes below it.
	fill := call(t, m, interp.SysMmap, 0, lo-base-1<<20, 3, 0x22, ^uint64(0), 0)
	if r := call(t, m, interp.SysMmap, 0, 2<<20, 3, 0x22, ^uint64(0), 0); int64(fill) < 0 || int64(r) < 0 || r >= base || !m.Mem.CanWrite(r, 2<<20) {
		t.Errorf("mmap of 2 MiB with less than 1 MiB free above the base (%#x): %#x", int64(fill), int64(r))
	} else {
		call(t, m, interp.SysMunmap, r, 2<<20)
	}
	call(t, m, interp.SysMunmap, fill, lo-base-1<<20)
	// The break cannot grow into a mapping.
	if r := call(t, m, interp.SysBrk, lo); r == lo {
		t.Errorf("brk moved over a mapping")
	}
}

// TestRootFiles checks path resolution under a root against the host
// directory directly: what the guest creates lands inside the root.
func TestRootFiles(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "r")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	m := ecallMachine(t, interp.Config{Root: root})
	copy(m.Mem.Bytes(rvtest.MakeELFData, 16), "../../x\x00")
	fd := call(t, m, 56, ^uint64(99), rvtest.MakeELFData, 0o101, 0o644)
	if int64(fd) < 3 {
		t.Fatalf("openat: %d", int64(fd))
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 || ents[0].Name() != "x" {
		t.Errorf("root holds %v, want x", ents)
	}
	up, _ := os.ReadDir(top)
	if !slices.EqualFunc(up, []string{"r"}, func(e os.DirEntry, s string) bool { return e.Name() == s }) {
		t.Errorf("the root's parent holds %v", up)
	}
}

// TestLargeTransfer: a write or read of several MiB to a regular file
// moves it all in one call, as Linux does (no short count).
func TestLargeTransfer(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	const n = 3 << 20
	copy(m.Mem.Bytes(rvtest.MakeELFData, 8), "big\x00")
	fd := call(t, m, 56, ^uint64(99), rvtest.MakeELFData, 0o102, 0o644) // O_RDWR|O_CREAT
	if r := call(t, m, interp.SysWrite, fd, rvtest.MakeELFData, n); r != n {
		t.Errorf("write of %d bytes: %d", n, int64(r))
	}
	if r := call(t, m, 67, fd, rvtest.MakeELFData, n, 0); r != n { // pread64
		t.Errorf("pread64 of %d bytes: %d", n, int64(r))
	}
}

// TestNilStreamsDiscard: with a nil Stdout or Stderr (Config) the guest's
// writes there succeed and go nowhere, as documented, not -EBADF.
func TestNilStreamsDiscard(t *testing.T) {
	for _, fd := range []uint64{1, 2} {
		m := ecallMachine(t, interp.Config{})
		if r := call(t, m, interp.SysWrite, fd, rvtest.MakeELFData, 4); r != 4 {
			t.Errorf("write(%d) with a nil stream: %d, want 4", fd, int64(r))
		}
	}
}

// TestSysinfo checks sysinfo's memory: the guest's address space, the
// free part shrinking by what mmap maps, and the layout's fixed fields;
// a buffer in the text is -EFAULT.
func TestSysinfo(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	const sysinfo = 179
	lo, _ := m.Mem.Guard()
	buf := lo - 4096 // the top of the reserve: free, writable, unmapped
	info := func() (total, free uint64) {
		t.Helper()
		if r := call(t, m, sysinfo, buf); r != 0 {
			t.Fatalf("sysinfo: %d", int64(r))
		}
		b := m.Mem.Bytes(buf, 112)
		if procs, unit := binary.LittleEndian.Uint16(b[80:]), binary.LittleEndian.Uint32(b[104:]); procs != 1 || unit != 1 {
			t.Errorf("procs %d, mem_unit %d: want 1, 1", procs, unit)
		}
		return binary.LittleEndian.Uint64(b[32:]), binary.LittleEndian.Uint64(b[40:])
	}
	total, free := info()
	if total != m.Mem.Size() || free == 0 || free >= total {
		t.Fatalf("totalram %d, freeram %d: want totalram %d and 0 < freeram < totalram", total, free, m.Mem.Size())
	}
	if a := call(t, m, interp.SysMmap, 0, 1<<20, 3, 0x22, ^uint64(0), 0); int64(a) < 0 {
		t.Fatalf("mmap: %d", int64(a))
	}
	if _, after := info(); after != free-1<<20 {
		t.Errorf("freeram after mapping 1 MiB: %d, want %d", after, free-1<<20)
	}
	if r := call(t, m, sysinfo, m.Entry()); r != ^uint64(13) {
		t.Errorf("sysinfo into the text: %d, want -EFAULT", int64(r))
	}
}

// TestGetrusage checks getrusage's answer (the host's, for rvdyn's
// process: its maximum resident set is never zero), its who values and
// its buffer check.
func TestGetrusage(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	const getrusage = 165
	lo, _ := m.Mem.Guard()
	buf := lo - 4096
	for _, who := range []uint64{0, ^uint64(0), 1} {
		clear(m.Mem.Bytes(buf, 144))
		if r := call(t, m, getrusage, who, buf); r != 0 {
			t.Fatalf("getrusage(%d): %d", int64(who), int64(r))
		}
		if who == 0 && binary.LittleEndian.Uint64(m.Mem.Bytes(buf, 144)[32:]) == 0 {
			t.Errorf("getrusage(RUSAGE_SELF): ru_maxrss 0")
		}
	}
	if r := call(t, m, getrusage, 2, buf); r != ^uint64(21) {
		t.Errorf("getrusage(2): %d, want -EINVAL", int64(r))
	}
	if r := call(t, m, getrusage, 0, m.Entry()); r != ^uint64(13) {
		t.Errorf("getrusage into the text: %d, want -EFAULT", int64(r))
	}
}

// TestPipeAndPollArgs checks the argument errors of pipe2, ppoll and
// pselect6 that the libcio guest does not reach: a pipe2 into the text is
// -EFAULT and leaves no fd open, too many pollfds or a bad timeout is
// -EINVAL, and a zero timeout on an empty pipe returns 0 at once.
func TestPipeAndPollArgs(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	const pipe2, ppoll, pselect6 = 59, 73, 72
	lo, _ := m.Mem.Guard()
	buf := lo - 4096
	if r := call(t, m, pipe2, m.Entry(), 0); r != ^uint64(13) {
		t.Errorf("pipe2 into the text: %d, want -EFAULT", int64(r))
	}
	if r := call(t, m, pipe2, buf, 0); r != 0 {
		t.Fatalf("pipe2: %d", int64(r))
	}
	b := m.Mem.Bytes(buf, 8)
	rd, wr := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if rd != 3 || wr != 4 {
		t.Errorf("pipe2 fds %d, %d: want 3, 4 (none left open by the failed call)", rd, wr)
	}
	pfd, ts := buf+64, buf+128
	binary.LittleEndian.PutUint32(m.Mem.Bytes(pfd, 8), rd)
	binary.LittleEndian.PutUint16(m.Mem.Bytes(pfd+4, 2), 1) // POLLIN
	clear(m.Mem.Bytes(ts, 16))
	if r := call(t, m, ppoll, pfd, 1, ts); r != 0 {
		t.Errorf("ppoll of an empty pipe, zero timeout: %d, want 0", int64(r))
	}
	if r := call(t, m, ppoll, pfd, 1025, 0); r != ^uint64(21) {
		t.Errorf("ppoll of 1025 fds: %d, want -EINVAL", int64(r))
	}
	binary.LittleEndian.PutUint64(m.Mem.Bytes(ts+8, 8), 1e9)
	if r := call(t, m, ppoll, pfd, 1, ts); r != ^uint64(21) {
		t.Errorf("ppoll with 10^9 ns: %d, want -EINVAL", int64(r))
	}
	if r := call(t, m, pselect6, ^uint64(0), 0, 0, 0, 0); r != ^uint64(21) {
		t.Errorf("pselect6 of -1 fds: %d, want -EINVAL", int64(r))
	}
}

// TestFdCalls checks fsync, fdatasync, fchmod, flock and fstatfs on a
// file the guest opened (under its root), -EBADF on a closed fd, and
// times, umask, getpgid and getsid.
func TestFdCalls(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	const fsync, fdatasync, fchmod, flock, fstatfs, times, umask, getpgid, getsid = 82, 83, 52, 32, 44, 153, 166, 155, 156
	fd := call(t, m, 56, ^uint64(99), rvtest.MakeELFData, 0o102, 0o644) // openat(AT_FDCWD, "data", O_RDWR|O_CREAT)
	if int64(fd) < 0 {
		t.Fatalf("openat: %d", int64(fd))
	}
	lo, _ := m.Mem.Guard()
	buf := lo - 4096
	for _, c := range []struct {
		name string
		num  uint64
		args []uint64
	}{
		{"fsync", fsync, nil}, {"fdatasync", fdatasync, nil}, {"fchmod 0600", fchmod, []uint64{0o600}},
		{"flock LOCK_EX", flock, []uint64{2}}, {"fstatfs", fstatfs, []uint64{buf}},
	} {
		if r := call(t, m, c.num, append([]uint64{fd}, c.args...)...); r != 0 {
			t.Errorf("%s: %d", c.name, int64(r))
		}
		if r := call(t, m, c.num, append([]uint64{77}, c.args...)...); r != ^uint64(8) {
			t.Errorf("%s of a closed fd: %d, want -EBADF", c.name, int64(r))
		}
	}
	if bsize := binary.LittleEndian.Uint64(m.Mem.Bytes(buf+8, 8)); bsize == 0 {
		t.Errorf("fstatfs: f_bsize 0")
	}
	if r := call(t, m, fstatfs, fd, m.Entry()); r != ^uint64(13) {
		t.Errorf("fstatfs into the text: %d, want -EFAULT", int64(r))
	}
	if r := call(t, m, times, buf); int64(r) <= 0 {
		t.Errorf("times: %d", int64(r))
	}
	old := call(t, m, umask, 0o27)
	if r := call(t, m, umask, old); r != 0o27 {
		t.Errorf("umask back: %#o, want 027", r)
	}
	// The answers are the host process's: getsid gives 0 where the
	// session leader is outside this pid namespace (a CI container).
	hostPgid, _ := unix.Getpgid(0)
	hostSid, _ := unix.Getsid(0)
	for num, want := range map[uint64]int{getpgid: hostPgid, getsid: hostSid} {
		if r := call(t, m, num, 0); int64(r) != int64(want) {
			t.Errorf("syscall %d(0): %d, want the host's %d", num, int64(r), want)
		}
		if r := call(t, m, num, uint64(os.Getpid()+1)); r != ^uint64(2) {
			t.Errorf("syscall %d(another pid): %d, want -ESRCH", num, int64(r))
		}
	}
}

// TestRootPathCalls: under a root, the path calls that follow a symlink
// (chmod, truncate, utimensat) follow one inside the root, never out of
// it: a symlink to an absolute host path names root/that/path, which
// does not exist. symlink, link and mkfifo create inside the root.
func TestRootPathCalls(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "r")
	outside := filepath.Join(top, "outside")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "esc")); err != nil {
		t.Fatal(err)
	}
	m := ecallMachine(t, interp.Config{Root: root})
	const mknodat, symlinkat, linkat, truncate, fchmodat, utimensat = 33, 36, 37, 45, 53, 88
	str := func(at uint64, s string) uint64 { copy(m.Mem.Bytes(at, uint64(len(s)+1)), s+"\x00"); return at }
	lo, _ := m.Mem.Guard()
	esc := str(lo-4096, "esc")
	if r := call(t, m, fchmodat, ^uint64(99), esc, 0o600); r != ^uint64(1) { // -ENOENT
		t.Errorf("chmod through the escaping symlink: %d, want -ENOENT", int64(r))
	}
	if r := call(t, m, truncate, esc, 0); r != ^uint64(1) {
		t.Errorf("truncate through the escaping symlink: %d, want -ENOENT", int64(r))
	}
	if r := call(t, m, utimensat, ^uint64(99), esc, 0, 0); r != ^uint64(1) {
		t.Errorf("utimensat through the escaping symlink: %d, want -ENOENT", int64(r))
	}
	if st, err := os.Stat(outside); err != nil || st.Mode().Perm() != 0o644 || st.Size() != 7 {
		t.Errorf("the file outside the root changed: %v, %v", st, err)
	}
	f := str(lo-3072, "f")
	if fd := call(t, m, 56, ^uint64(99), f, 0o101, 0o644); int64(fd) < 0 {
		t.Fatalf("openat f: %d", int64(fd))
	}
	if r := call(t, m, symlinkat, str(lo-2048, "/f"), ^uint64(99), str(lo-1024, "../../l")); r != 0 {
		t.Errorf("symlink: %d", int64(r))
	}
	if r := call(t, m, linkat, ^uint64(99), f, ^uint64(99), str(lo-1024, "/h"), 0); r != 0 {
		t.Errorf("link: %d", int64(r))
	}
	if r := call(t, m, mknodat, ^uint64(99), str(lo-1024, "p"), 0o10644, 0); r != 0 {
		t.Errorf("mkfifo: %d", int64(r))
	}
	if r := call(t, m, mknodat, ^uint64(99), str(lo-1024, "dev"), 0o20644, 0x0101); r != ^uint64(0) { // -EPERM
		t.Errorf("mknod of a character device: %d, want -EPERM", int64(r))
	}
	l := str(lo-1024, "l")
	if r := call(t, m, fchmodat, ^uint64(99), l, 0o600); r != 0 {
		t.Errorf("chmod through l: %d", int64(r))
	}
	if st, err := os.Stat(filepath.Join(root, "f")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("root/f after chmod through the symlink l: %v, %v", st, err)
	}
	ents, _ := os.ReadDir(root)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"esc", "f", "h", "l", "p"}) {
		t.Errorf("root holds %v, want esc f h l p", names)
	}
}

// TestChdir: chdir and fchdir move the guest's working directory, where
// relative paths from AT_FDCWD start and which getcwd reports, in the
// guest only (rvdyn's own stays); under a root they cannot leave it,
// "..", symlinks to absolute paths and all.
func TestChdir(t *testing.T) {
	const chdir, fchdir, getcwd, openat = 49, 50, 17, 56
	for _, rooted := range []bool{false, true} {
		top := t.TempDir()
		if err := os.MkdirAll(filepath.Join(top, "sub", "deeper"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(top, "sub", "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(top, "sub"), filepath.Join(top, "abs")); err != nil {
			t.Fatal(err)
		}
		cfg, base := interp.Config{}, top
		if rooted {
			cfg.Root, base = top, ""
		}
		m := ecallMachine(t, cfg)
		if !rooted { // ecallMachine confines to a root of its own
			img := rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, []byte("data"), 4096)
			var err error
			if m, err = interp.Load(img, interp.Config{MemSize: 16 << 20}); err != nil {
				t.Fatal(err)
			}
			defer m.Close()
		}
		lo, _ := m.Mem.Guard()
		str := func(s string) uint64 { copy(m.Mem.Bytes(lo-4096, uint64(len(s)+1)), s+"\x00"); return lo - 4096 }
		cwd := func() string {
			n := call(t, m, getcwd, lo-2048, 512)
			if int64(n) <= 0 {
				t.Fatalf("getcwd: %d", int64(n))
			}
			return string(m.Mem.Bytes(lo-2048, n-1))
		}
		hostCwd, _ := os.Getwd()
		if r := call(t, m, chdir, str(filepath.Join(base, "/sub"))); r != 0 {
			t.Fatalf("chdir sub (root %v): %d", rooted, int64(r))
		}
		if got, want := cwd(), filepath.Join(base, "/sub"); got != want {
			t.Errorf("root %v: getcwd %q, want %q", rooted, got, want)
		}
		if fd := call(t, m, openat, ^uint64(99), str("f"), 0, 0); int64(fd) < 0 {
			t.Errorf("root %v: openat f relative to the new directory: %d", rooted, int64(fd))
		}
		if r := call(t, m, chdir, str("f")); r != ^uint64(19) {
			t.Errorf("chdir to a file: %d, want -ENOTDIR", int64(r))
		}
		d := call(t, m, openat, ^uint64(99), str("deeper"), 0o200000, 0) // O_DIRECTORY
		if r := call(t, m, fchdir, d); r != 0 || cwd() != filepath.Join(base, "/sub/deeper") {
			t.Errorf("root %v: fchdir: %d, getcwd %q", rooted, int64(r), cwd())
		}
		if r := call(t, m, fchdir, 77); r != ^uint64(8) {
			t.Errorf("fchdir of a closed fd: %d, want -EBADF", int64(r))
		}
		if rooted {
			call(t, m, chdir, str("../../../.."))
			if got := cwd(); got != "/" {
				t.Errorf("chdir above the root: getcwd %q, want /", got)
			}
			// abs names top/sub on the host: inside the root it leads
			// to top/top/sub, which does not exist.
			if r := call(t, m, chdir, str("abs")); r != ^uint64(1) {
				t.Errorf("chdir through a symlink to a host path: %d, want -ENOENT", int64(r))
			}
		}
		if now, _ := os.Getwd(); now != hostCwd {
			t.Errorf("rvdyn's own working directory moved to %q", now)
		}
	}
}
