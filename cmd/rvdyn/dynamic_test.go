// A dynamically linked guest end to end: rvdyn run and the qemu-riscv64 drop-in, with -L or QEMU_LD_PREFIX, in both modes -> what qemu-riscv64 -L printed.

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// guestSysroot is the Debian cross toolchain's RISC-V sysroot: the
// dynamic linker and shared libraries of a dynamically linked guest.
const guestSysroot = "/usr/riscv64-linux-gnu"

// TestDynamicallyLinked runs a dynamically linked guest
// (testdata/dynamic/hello.elf, from the repository's root) end to end, as
// a user would: rvdyn run with -L or with QEMU_LD_PREFIX, and the
// qemu-riscv64 drop-in with either, under the interpreter and in the
// default mode. Each run must print what qemu-riscv64 -L printed
// (testdata/dynamic/hello.out) and exit as it did. Skipped where the
// sysroot is not installed.
func TestDynamicallyLinked(t *testing.T) {
	if _, err := os.Stat(guestSysroot + "/lib/ld-linux-riscv64-lp64d.so.1"); err != nil {
		t.Skipf("no RISC-V sysroot (%v): apt-get install libc6-riscv64-cross", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const prog = "testdata/dynamic/hello.elf"
	want, err := os.ReadFile(filepath.Join(root, "testdata/dynamic/hello.out"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := "QEMU_LD_PREFIX=" + guestSysroot
	for _, form := range []struct {
		name string
		env  []string
		args []string // before the program
	}{
		{"run -L", nil, []string{"run", "-L", guestSysroot}},
		// run reads no other QEMU_* variable, but a sysroot set in the
		// environment for qemu is the one a user means for rvdyn too.
		{"run QEMU_LD_PREFIX", []string{prefix}, []string{"run"}},
		{"drop-in -L", nil, []string{"-L", guestSysroot}},
		{"drop-in QEMU_LD_PREFIX", []string{prefix}, nil},
		// The command line wins over the variable, as in qemu.
		{"drop-in -L over QEMU_LD_PREFIX", []string{"QEMU_LD_PREFIX=/nonexistent"}, []string{"-L", guestSysroot}},
	} {
		for _, mode := range []string{"interp", "default"} {
			t.Run(form.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				args := slices.Clone(form.args)
				if mode == "interp" {
					// After run, or first: the drop-in takes rvdyn's
					// flags before the program.
					at := 0
					if len(args) > 0 && args[0] == "run" {
						at = 1
					}
					args = slices.Insert(args, at, "--mode=interp")
				}
				args = append(args, prog)
				got := rvdynProc(t, root, append(slices.Clone(baseEnv), form.env...), args...)
				if s := got.stdout + got.end + "\n"; s != string(want) {
					t.Errorf("rvdyn %q with %q: %s, stderr\n%s\nstdout\n%s\nwant (testdata/dynamic/hello.out)\n%s", args, form.env, got.end, got.stderr, got.stdout, want)
				}
				if got.core {
					t.Errorf("rvdyn %q left a core dump", args)
				}
			})
		}
	}
}
