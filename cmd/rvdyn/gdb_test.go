package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestGDB drives the real gdb-multiarch in batch mode against run --gdb,
// in both modes: break at main, read a register, run to the second pass
// (by then the loop is compiled, in dynamo mode), plant a breakpoint in
// that compiled code and stop there, read variables, step, and continue
// to the exit.
func TestGDB(t *testing.T) {
	gdbPath, err := exec.LookPath("gdb-multiarch")
	if err != nil {
		t.Skip("gdb-multiarch not installed (Debian package gdb-multiarch): skipping the gdb stub test")
	}
	const elf = "../../bench/corpus/sys/gdbdemo.elf"
	src, err := os.ReadFile("../../bench/guests/sys/gdbdemo.c")
	if err != nil {
		t.Fatal(err)
	}
	line := 0 // the line of the second pass
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "/* second pass */") {
			line = i + 1
		}
	}
	for _, mode := range []string{"dynamo", "interp"} {
		t.Run(mode, func(t *testing.T) {
			addr, done := startGDBRun(t, &strings.Builder{}, "--mode="+mode, "--gdb=127.0.0.1:0", elf)
			cmd := exec.Command(gdbPath, "-batch", "-nx",
				"-ex", "file "+elf,
				"-ex", "target remote "+addr,
				"-ex", "break main",
				"-ex", "continue",
				"-ex", "info registers pc",
				"-ex", fmt.Sprintf("break gdbdemo.c:%d", line),
				"-ex", "continue",
				"-ex", "print total",
				"-ex", "break square",
				"-ex", "continue",
				"-ex", "print x",
				"-ex", "stepi",
				"-ex", "next",
				"-ex", "delete",
				"-ex", "continue")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gdb-multiarch: %v\n%s", err, out)
			}
			for _, want := range []string{
				"Breakpoint 1, main (",
				"pc             0x",
				"Breakpoint 2, main (",
				"$1 = 333833500",
				"Breakpoint 3, square (x=x@entry=1)",
				"$2 = 1",
				"exited with code 070", // 56, in octal
			} {
				if !strings.Contains(string(out), want) {
					t.Errorf("gdb output lacks %q:\n%s", want, out)
				}
			}
			select {
			case code := <-done:
				if code != 56 {
					t.Errorf("rvdyn exit status %d, want 56", code)
				}
			case <-time.After(time.Minute):
				t.Fatal("rvdyn did not exit after gdb let the guest finish")
			}
		})
	}
}

// TestGDBFloat drives gdb-multiarch against an RV64GC glibc program: the
// target description's FPU feature lets gdb read and write f registers
// and fcsr, and stepping runs over compressed instructions.
func TestGDBFloat(t *testing.T) {
	gdbPath, err := exec.LookPath("gdb-multiarch")
	if err != nil {
		t.Skip("gdb-multiarch not installed (Debian package gdb-multiarch): skipping the gdb stub test")
	}
	const elf = "../../testdata/rv64gc/hello.elf"
	for _, mode := range []string{"dynamo", "interp"} {
		t.Run(mode, func(t *testing.T) {
			var out strings.Builder
			addr, done := startGDBRun(t, &out, "--mode="+mode, "--gdb=127.0.0.1:0", "-U", "HOME", elf)
			cmd := exec.Command(gdbPath, "-batch", "-nx",
				"-ex", "file "+elf,
				"-ex", "target remote "+addr,
				"-ex", "break main",
				"-ex", "continue",
				"-ex", "set $fa0 = 2.5",
				"-ex", "print $fa0",
				"-ex", "set $frm = 3",
				"-ex", "print $fcsr",
				"-ex", "info registers float",
				"-ex", "stepi 20",
				"-ex", "set $frm = 0",
				"-ex", "delete",
				"-ex", "continue")
			gout, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gdb-multiarch: %v\n%s", err, gout)
			}
			for _, want := range []string{
				"Breakpoint 1, ",
				"double = 2.5",
				"$2 = 96", // frm 3 in fcsr bits 7:5
				"ft0 ", "fa0 ", "fs11 ", "fflags ", "frm ", "fcsr ",
				"exited with code 03",
			} {
				if !strings.Contains(string(gout), want) {
					t.Errorf("gdb output lacks %q:\n%s", want, gout)
				}
			}
			select {
			case code := <-done:
				if code != 3 || !strings.Contains(out.String(), "sum 18.489603824784147") {
					t.Errorf("rvdyn exit status %d, output %q", code, out.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("rvdyn did not exit after gdb let the guest finish")
			}
		})
	}
}

// startGDBRun starts `rvdyn run ARGS` (with --gdb) on its own goroutine,
// the guest's stdout going to out, and returns the address it waits for
// gdb on and the channel its exit status arrives on.
func startGDBRun(t *testing.T, out io.Writer, args ...string) (addr string, done chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	done = make(chan int, 1)
	go func() {
		done <- runCmd(args, strings.NewReader(""), out, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "rvdyn: waiting for gdb on "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if addr == "" {
		t.Fatal("rvdyn did not report its gdb address")
	}
	return addr, done
}
