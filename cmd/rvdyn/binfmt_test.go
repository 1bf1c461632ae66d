package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// binfmtRun runs rvdyn binfmt args in this process.
func binfmtRun(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = binfmtCmd(args, &out, &errb)
	return code, out.String(), errb.String()
}

// qemuEntry is binfmt_misc's file for Debian's qemu-riscv64 entry.
const qemuEntry = `enabled
interpreter /usr/libexec/qemu-binfmt/riscv64-binfmt-P
flags: POF
offset 0
magic 7f454c460201010000000000000000000200f300
mask ffffffffffffff00fffffffffffffffffeffffff
`

// TestBinfmtCommand drives install, status and uninstall against a
// directory laid out as binfmt_misc is (what they write to "register" is
// checked, not registered): the refusal when it is not mounted, another
// entry for RISC-V programs left alone without --force, the registration
// line, the entry's flags.
func TestBinfmtCommand(t *testing.T) {
	old := binfmtDir
	t.Cleanup(func() { binfmtDir = old })
	binfmtDir = t.TempDir()
	if code, _, errs := binfmtRun("status"); code != 1 || !strings.Contains(errs, "binfmt_misc is not mounted at "+binfmtDir+": mount it (as root) with: mount -t binfmt_misc") {
		t.Errorf("not mounted: exit %d, %q", code, errs)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(binfmtDir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("register", "")
	write("status", "enabled\n")
	write("qemu-riscv64", qemuEntry)
	write("python3.11", "enabled\ninterpreter /usr/bin/python3.11\nflags: \noffset 0\nmagic a70d0d0a\n")
	code, out, _ := binfmtRun("status")
	if code != 1 || !strings.Contains(out, "qemu-riscv64: enabled, interpreter /usr/libexec/qemu-binfmt/riscv64-binfmt-P, flags POF") || strings.Contains(out, "python") {
		t.Errorf("status: exit %d, %q", code, out)
	}
	exe := filepath.Join(t.TempDir(), "rvdyn")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if code, _, errs := binfmtRun("install", "--interpreter", exe); code != 1 || !strings.Contains(errs, "needs root") {
			t.Errorf("install as a user: exit %d, %q", code, errs)
		}
		return
	}
	if code, _, errs := binfmtRun("install", "--interpreter", exe); code != 1 || !strings.Contains(errs, "entry qemu-riscv64 (interpreter /usr/libexec/qemu-binfmt/riscv64-binfmt-P) already runs RISC-V programs; --force registers rvdyn-riscv64 ahead of it") {
		t.Errorf("install over qemu: exit %d, %q", code, errs)
	}
	code, _, errs := binfmtRun("install", "--force", "--credentials", "--interpreter", exe)
	reg, _ := os.ReadFile(filepath.Join(binfmtDir, "register"))
	want := `:rvdyn-riscv64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:` + exe + `:POC`
	if code != 0 || string(reg) != want || !strings.Contains(errs, "warning: with flag C") {
		t.Errorf("install --force --credentials: exit %d, stderr %q, registered\n%s\nwant\n%s", code, errs, reg, want)
	}
	if code, _, errs := binfmtRun("uninstall", "--name", "qemu-riscv64"); code != 1 || !strings.Contains(errs, "not rvdyn; --force removes it") {
		t.Errorf("uninstall qemu's: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"frob"}, {"status", "extra"}, {"status", "--name", "a/b"}, {"install", "--name", "register"}} {
		if code, _, _ := binfmtRun(args...); code != exitUsage {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestBinfmtMisc registers rvdyn (this test binary, copied) with the
// kernel's binfmt_misc, mounting it if need be, and runs a RISC-V program
// as ./prog: behind a decoy entry it is refused without --force, with it
// the program runs through rvdyn (its --stats on stderr, set by
// RVDYN_STATS) with the output qemu-riscv64 gives and its own argv[0]; an
// execute-only copy runs too (flag O). Every entry is removed, and
// binfmt_misc unmounted if the test mounted it, even when the test fails.
func TestBinfmtMisc(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("binfmt_misc registration needs root: skipping")
	}
	if _, err := os.Stat("/proc/sys/fs/binfmt_misc/register"); err != nil {
		if err := unix.Mount("binfmt_misc", "/proc/sys/fs/binfmt_misc", "binfmt_misc", 0, ""); err != nil {
			t.Skipf("binfmt_misc is not mounted and cannot be (%v): skipping", err)
		}
		t.Cleanup(func() { unix.Unmount("/proc/sys/fs/binfmt_misc", 0) })
	}
	name, decoy := "rvdyn-riscv64-test", "rvdyn-riscv64-test-decoy"
	for _, n := range []string{name, decoy} {
		if _, err := os.Stat(filepath.Join(binfmtDir, n)); err == nil {
			t.Skipf("an entry %s exists: another run of this test? skipping", n)
		}
		t.Cleanup(func() { os.WriteFile(filepath.Join(binfmtDir, n), []byte("-1"), 0) })
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "rvdyn")
	copyFile(t, mustExecutable(t), exe, 0o755)
	copyFile(t, testGuest, filepath.Join(dir, "prog"), 0o755)
	copyFile(t, testGuest, filepath.Join(dir, "xonly"), 0o111)
	// The decoy: /bin/echo for RISC-V programs, registered before rvdyn.
	reg := ":" + decoy + ":M::" + escapeBinfmt(riscv64Magic) + ":" + escapeBinfmt(riscv64Mask) + ":/bin/echo:"
	if err := os.WriteFile(filepath.Join(binfmtDir, "register"), []byte(reg), 0); err != nil {
		t.Fatalf("registering the decoy: %v", err)
	}
	if code, _, errs := binfmtRun("install", "--name", name, "--interpreter", exe); code != 1 || !strings.Contains(errs, "entry "+decoy+" (interpreter /bin/echo) already runs RISC-V programs") {
		t.Fatalf("install behind the decoy: exit %d, %q", code, errs)
	}
	if code, out, errs := binfmtRun("install", "--force", "--name", name, "--interpreter", exe); code != 0 {
		t.Fatalf("install --force: exit %d, %s%s", code, out, errs)
	}
	if code, out, _ := binfmtRun("status", "--name", name); code != 0 || !strings.Contains(out, name+": enabled, interpreter "+exe+", flags PO") {
		t.Errorf("status: exit %d, %q", code, out)
	}
	env := append(baseEnv[:len(baseEnv):len(baseEnv)], asMain+"=1", "RVDYN_STATS=1")
	for _, prog := range []string{"./prog", "./xonly"} {
		got := runProc(t, dir, env, prog, "argv", "x y")
		want := "argc 3\nargv[0] " + prog + "\nargv[1] argv\nargv[2] x y\n"
		if got.stdout != want || got.end != "exit 0" || !strings.Contains(got.stderr, "guest instructions") {
			t.Errorf("%s through binfmt_misc: %s, stdout %q, stderr\n%s\nwant stdout %q", prog, got.end, got.stdout, got.stderr, want)
		}
	}
	if qemu, err := exec.LookPath("qemu-riscv64"); err == nil {
		want := runProc(t, dir, baseEnv, qemu, "./prog", "argv", "x y")
		if got := runProc(t, dir, env, "./prog", "argv", "x y"); got.stdout != want.stdout {
			t.Errorf("./prog: %q, qemu-riscv64 ./prog: %q", got.stdout, want.stdout)
		}
	}
	if code, out, errs := binfmtRun("uninstall", "--name", name); code != 0 || !strings.Contains(out, "removed "+name) {
		t.Errorf("uninstall: exit %d, %s%s", code, out, errs)
	}
	if got := runProc(t, dir, env, "./prog", "argv"); !strings.HasPrefix(got.stdout, "./prog") {
		t.Errorf("after uninstall, the decoy should run ./prog: %q", got.stdout)
	}
}

// mustExecutable is this test binary's path.
func mustExecutable(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// copyFile copies src to dst with permissions perm.
func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
