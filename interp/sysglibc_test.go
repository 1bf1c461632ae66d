// Tests of the system calls glibc programs add: O_PATH descriptors, readlinkat of /proc/self/exe, futex, self-signals.

package interp_test

import (
	"os"
	"path/filepath"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

const atFdcwd = ^uint64(99) // AT_FDCWD, -100

func TestOpenPathCannotRead(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := ecallMachine(t, interp.Config{Root: root})
	p := putString(m, "/f")
	const oPath = 0x200000
	fd := call(t, m, 56, atFdcwd, p, oPath)
	if int64(fd) < 0 {
		t.Fatalf("openat(O_PATH) = %d", int64(fd))
	}
	if r := call(t, m, interp.SysRead, fd, uint64(rvtest.MakeELFData)+64, 4); int64(r) != -9 {
		t.Errorf("read of an O_PATH descriptor = %d, want -EBADF (-9)", int64(r))
	}
	if r := call(t, m, interp.SysFstat, fd, uint64(rvtest.MakeELFData)+256); r != 0 {
		t.Errorf("fstat of an O_PATH descriptor = %d, want 0", int64(r))
	}
}

func TestReadlinkSelfExe(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	m := ecallMachine(t, interp.Config{Args: []string{link}})
	p := putString(m, "/proc/self/exe")
	buf := uint64(rvtest.MakeELFData) + 64
	n := call(t, m, 78, atFdcwd, p, buf, 4096)
	if got := string(m.Mem.Bytes(buf, n)); int64(n) < 0 || got != exe {
		t.Errorf("readlinkat(/proc/self/exe) = %d %q, want %q (the guest program, symlinks resolved)", int64(n), got, exe)
	}
	// A short buffer truncates without a NUL, as Linux does.
	if n := call(t, m, 78, atFdcwd, p, buf, 3); n != 3 {
		t.Errorf("readlinkat with a 3-byte buffer = %d, want 3", int64(n))
	}
}

func TestFutexSingleThread(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	w := uint64(rvtest.MakeELFData) + 128
	m.Mem.Bytes(w, 4)[0] = 7
	if r := call(t, m, 98, w, 129 /* FUTEX_WAKE|PRIVATE */, 1); r != 0 {
		t.Errorf("futex wake = %d, want 0 (no waiter)", int64(r))
	}
	if r := call(t, m, 98, w, 128 /* FUTEX_WAIT|PRIVATE */, 8); int64(r) != -11 {
		t.Errorf("futex wait on a changed word = %d, want -EAGAIN", int64(r))
	}
	call(t, m, 98, w, 128, 7)
	if !m.Exited() || m.HostError() != interp.ErrFutexDeadlock {
		t.Errorf("futex wait that nothing can wake: exited %v, error %v", m.Exited(), m.HostError())
	}
}

func TestRaiseAbort(t *testing.T) {
	m := ecallMachine(t, interp.Config{})
	call(t, m, 131, uint64(os.Getpid()), uint64(os.Getpid()), 6)
	if !m.Exited() || m.ExitCode() != 134 {
		t.Errorf("tgkill(self, SIGABRT): exited %v with %d, want 134", m.Exited(), m.ExitCode())
	}
	m = ecallMachine(t, interp.Config{})
	other := uint64(os.Getpid() + 1)
	if r := call(t, m, 129, other, 9); int64(r) != -1 || m.Exited() {
		t.Errorf("kill(another pid, SIGKILL) = %d (exited %v), want -EPERM", int64(r), m.Exited())
	}
}
