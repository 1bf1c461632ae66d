// RV64GC differential tests: programs built with the standard Linux toolchain (testdata/rv64gc) and csmith's random programs -> the same output in every mode and under qemu-riscv64.

package rvdyn_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/interp"
)

// TestRV64GCPrograms runs each RV64GC program of testdata/rv64gc (glibc, static:
// floating point in every rounding mode, atomics, C++ exceptions and
// iostreams, abort) under the interpreter and under every optimizer
// configuration of the differential test, and compares output, exit
// status, instruction count and final registers with the interpreter's
// and with the expected output, which qemu-riscv64 gave (rechecked here
// when it is installed).
//
// The programs in timed take signals from a timer: the instruction at
// which one arrives depends on the host's clock, so only their output
// and exit status must agree. A program may end by a fault it does not
// handle (status 139, the same fault in every mode).
func TestRV64GCPrograms(t *testing.T) {
	timed := map[string]bool{"alarm": true}
	// faults handles the faults of pages it protects: under
	// --disable=protection, which is not exact by design, they do not
	// fault.
	protects := map[string]bool{"faults": true}
	elfs, _ := filepath.Glob("testdata/rv64gc/*.elf")
	if len(elfs) < 5 {
		t.Fatalf("only %d programs in testdata/rv64gc", len(elfs))
	}
	cfgs := dynamoConfigs(t)
	for _, path := range elfs {
		name := strings.TrimSuffix(filepath.Base(path), ".elf")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			image, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(path, ".elf") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"./" + name + ".elf"}
			ref := runUnforked(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args}})
			var fault *interp.Fault // a program may end by a fault it does not handle (status 139)
			if ref.err != nil && !errors.As(ref.err, &fault) {
				t.Fatalf("interp: %v", ref.err)
			}
			if got := fmt.Sprintf("%sexit %d\n", ref.stdout, ref.code); got != string(want) {
				t.Errorf("interp differs from qemu-riscv64's output (testdata/rv64gc/%s.out):\n got: %q\nwant: %q", name, got, want)
			}
			for cname, opts := range cfgs {
				if protects[name] && cname == "no protection" {
					continue
				}
				opts.Mode, opts.Args = rvdyn.ModeDynamo, args
				got := runUnforked(t, image, opts)
				if fmt.Sprint(got.err) != fmt.Sprint(ref.err) || got.code != ref.code || got.stdout != ref.stdout {
					t.Errorf("dynamo %s: exit %d (%v), output differs: %v\n got: %q\nwant: %q", cname, got.code, got.err, got.stdout != ref.stdout, got.stdout, ref.stdout)
				}
				if timed[name] {
					continue // where a timer's signal lands depends on the clock
				}
				if got.insts != ref.insts || got.cpu != ref.cpu {
					t.Errorf("dynamo %s: %d instructions (interp %d), registers equal: %v", cname, got.insts, ref.insts, got.cpu == ref.cpu)
				}
				if got.stats.SignalsHandled != ref.stats.SignalsHandled {
					t.Errorf("dynamo %s: %d signal handlers run (interp %d)", cname, got.stats.SignalsHandled, ref.stats.SignalsHandled)
				}
			}
			if name == "signals" && ref.stats.SignalsHandled < 1000 {
				t.Errorf("signals: %d signal handlers run, want the hot loop's 1000 and more", ref.stats.SignalsHandled)
			}
			if _, err := exec.LookPath("qemu-riscv64"); err != nil {
				t.Log("qemu-riscv64 not installed: the expected output is not rechecked")
				return
			}
			cmd := exec.Command("qemu-riscv64", args[0])
			cmd.Dir, cmd.Env = "testdata/rv64gc", []string{}
			out, _ := cmd.Output()
			if got := fmt.Sprintf("%sexit %d\n", out, shellStatus(cmd.ProcessState)); got != string(want) {
				t.Errorf("qemu-riscv64 now gives %q, testdata/rv64gc/%s.out says %q (rebuild with make -C testdata/rv64gc)", got, name, want)
			}
		})
	}
}

// runUnforked is run with no fork in this process while the guest runs.
// The guests close sockets and pipes and check what the peer sees (the
// sockets guest: a send to a closed socket pair fails with EPIPE), and
// other tests of this package start qemu-riscv64 in parallel. A child
// forked while a guest's descriptor is open holds a copy of it until it
// execs (close-on-exec acts only then), so on a loaded machine the peer
// may still be open when the guest looks. Every fork takes
// syscall.ForkLock for writing; holding it for reading keeps forks out
// for the run (nothing in a guest's run forks, and on Linux the standard
// library never takes it for reading, so this cannot deadlock).
func runUnforked(t *testing.T, image []byte, opts rvdyn.Options) outcome {
	t.Helper()
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return run(t, image, opts)
}

// shellStatus is a finished process's status as a shell reports it:
// 128+N for a death by signal N.
func shellStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// csmithSeeds are the random programs TestCsmith checks: each is built
// with both toolchains, and the seeds whose program qemu-riscv64 cannot
// finish quickly are skipped.
var csmithSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}

// TestCsmith builds csmith's random C programs (a generator nobody here
// wrote) with riscv64-linux-gnu-gcc (RV64GC, glibc) and with the
// bare-metal toolchain and picolibc (RV64IM, our runtime), and requires
// qemu-riscv64, the interpreter and the optimizer to print the same
// checksum and exit status. It is skipped, with a message, where csmith,
// a cross compiler or qemu-riscv64 is missing; .ci/run installs them.
//
// With RVDYN_CSMITH=DURATION (e.g. 1h) it draws new seeds instead, from
// a random start, until the duration has passed: `.ci/fuzz` runs it so.
// (Not a Go fuzz target: one program takes seconds to build and run,
// which the fuzzing engine reports as a hung worker.)
func TestCsmith(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: csmith programs take seconds each to build")
	}
	tc := needCsmith(t)
	if d := os.Getenv("RVDYN_CSMITH"); d != "" {
		dur, err := time.ParseDuration(d)
		if err != nil {
			t.Fatalf("RVDYN_CSMITH=%q: %v", d, err)
		}
		seed := uint64(time.Now().UnixNano()) % 1e9
		n := 0
		for end := time.Now().Add(dur); time.Now().Before(end); seed++ {
			t.Run(fmt.Sprint(seed), func(t *testing.T) { checkCsmith(t, tc, seed) })
			n++
		}
		t.Logf("%d csmith programs in %v, seeds %d..%d", n, dur, seed-uint64(n), seed-1)
		return
	}
	for _, seed := range csmithSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { checkCsmith(t, tc, seed) })
	}
}

// A csmithTools is where the tools the csmith tests need are.
type csmithTools struct {
	dir string // a scratch directory
}

func needCsmith(t *testing.T) csmithTools {
	t.Helper()
	for _, tool := range []string{"csmith", "riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc", "qemu-riscv64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: skipping the csmith programs", tool)
		}
	}
	if _, err := os.Stat("/usr/include/csmith/csmith.h"); err != nil {
		t.Skip("libcsmith-dev not installed: skipping the csmith programs")
	}
	if _, err := os.Stat(picolibc); err != nil {
		t.Skip("picolibc-riscv64-unknown-elf not installed: skipping the csmith programs")
	}
	return csmithTools{dir: t.TempDir()}
}

const picolibc = "/usr/lib/picolibc/riscv64-unknown-elf"

// checkCsmith generates the program of one seed, builds both flavors and
// compares the three runs of each.
func checkCsmith(t *testing.T, tc csmithTools, seed uint64) {
	src := filepath.Join(tc.dir, fmt.Sprintf("p%d.c", seed))
	cmd := exec.Command("csmith", "--seed", fmt.Sprint(seed))
	cmd.Dir = tc.dir // csmith writes platform.info into its working directory
	gen, err := cmd.Output()
	if err != nil {
		t.Fatalf("csmith --seed %d: %v", seed, err)
	}
	if err := os.WriteFile(src, gen, 0o644); err != nil {
		t.Fatal(err)
	}
	guests, _ := filepath.Abs("bench/guests")
	flavors := map[string][]string{
		"rv64gc": {"riscv64-linux-gnu-gcc", "-O1", "-static", "-w", "-I/usr/include/csmith", src},
		"rv64im": {"riscv64-unknown-elf-gcc", "-march=rv64im", "-mabi=lp64", "-O1", "-static", "-w",
			"-ftls-model=local-exec", "-nostdlib", "-nostartfiles", "-T", guests + "/rt/guest.ld",
			"-isystem", picolibc + "/include", "-I/usr/include/csmith",
			guests + "/rt/crt0.S", guests + "/rt/sys.c", src,
			"-Wl,--start-group", picolibc + "/lib/rv64im/lp64/libc.a", "-lgcc", "-Wl,--end-group",
			"-Wl,--no-relax"}, // relaxed gp-relative accesses overflow for csmith's large data
	}
	for flavor, cc := range flavors {
		elfPath := filepath.Join(tc.dir, fmt.Sprintf("p%d.%s", seed, flavor))
		if out, err := exec.Command(cc[0], append(cc[1:], "-o", elfPath)...).CombinedOutput(); err != nil {
			// The toolchain's limits, not rvdyn's: nothing to compare.
			t.Logf("%s seed %d does not build; skipped: %v\n%s", flavor, seed, err, out)
			continue
		}
		cmd := exec.Command("timeout", "10", "qemu-riscv64", elfPath)
		qout, _ := cmd.Output()
		qcode := shellStatus(cmd.ProcessState)
		if qcode == 124 {
			t.Logf("%s seed %d: qemu-riscv64 did not finish in 10 s; skipped", flavor, seed)
			continue
		}
		image, err := os.ReadFile(elfPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []rvdyn.Mode{rvdyn.ModeInterp, rvdyn.ModeDynamo} {
			got := run(t, image, rvdyn.Options{Mode: mode, MaxInstructions: 20e9, Config: interp.Config{Args: []string{"p"}}})
			if got.err != nil || got.code != qcode || !bytes.Equal([]byte(got.stdout), qout) {
				t.Errorf("%s seed %d, %v: exit %d (%v), output %q; qemu-riscv64: exit %d, output %q",
					flavor, seed, mode, got.code, got.err, got.stdout, qcode, qout)
			}
		}
	}
}
