package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// asMain is the variable that makes the test binary act as rvdyn itself
// (TestMain calls main), so that tests can run rvdyn as a process, to see
// it die of a signal or be started by binfmt_misc, without building it.
const asMain = "RVDYN_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Unsetenv(asMain) // not the guest's
		main()
		return
	}
	os.Exit(m.Run())
}

// testGuest is the drop-in tests' RV64GC guest (testdata/qemuguest.c).
const testGuest = "testdata/qemuguest.elf"

// A procResult is how a process ended: its output, and "exit N" or
// "signal NAME".
type procResult struct {
	stdout, stderr, end string
	core                bool // it left a core dump
}

// runProc runs bin with args and exactly the environment env in dir.
func runProc(t *testing.T, dir string, env []string, bin string, args ...string) procResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", bin, err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	r := procResult{stdout: out.String(), stderr: errb.String(), core: ws.CoreDump()}
	if ws.Signaled() {
		r.end = "signal " + unix.SignalName(ws.Signal())
	} else {
		r.end = fmt.Sprintf("exit %d", ws.ExitStatus())
	}
	return r
}

// rvdynProc runs this test binary as rvdyn.
func rvdynProc(t *testing.T, dir string, env []string, args ...string) procResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runProc(t, dir, append(env[:len(env):len(env)], asMain+"=1"), exe, args...)
}

// baseEnv is the environment every compared run starts with.
var baseEnv = []string{"HOME=/home/guest", "PATH=/usr/bin:/bin", "LANG=C", "TERM=dumb"}

// TestDropInAgainstQemu runs command lines both as qemu-riscv64 and as
// rvdyn (in both modes) and compares standard output and how each ended
// (exit status or signal), for an RV64GC guest that shows its argv and
// environment and dies as told, and an RV64IM one. Lines of output are
// compared as a set where sorted is set (qemu reverses the environment's
// order). A row with inStderr wants that text in both standard errors (or
// in both -D log files).
func TestDropInAgainstQemu(t *testing.T) {
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		t.Skip("qemu-riscv64 not installed (Debian package qemu-user): skipping the comparison with it")
	}
	gc, err := filepath.Abs(testGuest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := filepath.Abs("../../bench/corpus/sieve.elf")
	if err != nil {
		t.Fatal(err)
	}
	const G, IM, LOG = "@GC", "@IM", "@LOG" // replaced by the guests' paths and a log file
	rows := []struct {
		name     string
		env      []string
		args     []string
		sorted   bool
		inStderr string // in both standard errors
		inLog    string // in both -D files
	}{
		{name: "argv", args: []string{G, "argv", "two words", ""}},
		{name: "-0", args: []string{"-0", "zero", G}},
		{name: "--0", args: []string{"--0", "zero", G}},
		{name: "QEMU_ARGV0", env: []string{"QEMU_ARGV0=fromenv"}, args: []string{G}},
		{name: "-0 beats QEMU_ARGV0", env: []string{"QEMU_ARGV0=fromenv"}, args: []string{"-0", "fromcli", G}},
		{name: "options end at the program", args: []string{G, "-0", "x", "-strace"}},
		{name: "--", args: []string{"--", G, "argv"}},
		{name: "env", args: []string{G, "env"}, sorted: true},
		{name: "-E", args: []string{"-E", "A=1,B=two", "-E", "HOME=/elsewhere", G, "env"}, sorted: true},
		{name: "-U", args: []string{"-U", "HOME,LANG", "-U", "TERM", G, "env"}, sorted: true},
		{name: "QEMU_SET_ENV QEMU_UNSET_ENV", env: []string{"QEMU_SET_ENV=X=1,Y=2", "QEMU_UNSET_ENV=PATH"}, args: []string{G, "env"}, sorted: true},
		{name: "-E after QEMU_SET_ENV", env: []string{"QEMU_SET_ENV=A=env"}, args: []string{"-E", "A=cli", G, "getenv", "A"}},
		{name: "stack", args: []string{G, "stack", "2000"}},
		{name: "-s overflow", args: []string{"-s", "256k", G, "stack", "1000"}},
		{name: "-s enough", args: []string{"-s", "4M", G, "stack", "2000"}},
		{name: "QEMU_STACK_SIZE", env: []string{"QEMU_STACK_SIZE=262144"}, args: []string{G, "stack", "1000"}},
		{name: "segv", args: []string{G, "segv"}},
		{name: "abort", args: []string{G, "raise", "6"}},
		{name: "SIGTERM", args: []string{G, "raise", "15"}},
		{name: "SIGUSR1", args: []string{G, "raise", "10"}},
		{name: "exit", args: []string{G, "exit", "42"}},
		{name: "-strace", args: []string{"-strace", G}, inStderr: "exit_group("},
		{name: "QEMU_STRACE", env: []string{"QEMU_STRACE="}, args: []string{G}, inStderr: "exit_group("},
		{name: "-D", args: []string{"-strace", "-D", LOG, G}, inLog: "exit_group("},
		{name: "-d strace", args: []string{"-d", "strace", G}, inStderr: "exit_group("},
		{name: "-d nochain", args: []string{"-d", "nochain", G, "stack", "100"}},
		{name: "QEMU_LOG", env: []string{"QEMU_LOG=nochain"}, args: []string{G}},
		{name: "-cpu rv64", args: []string{"-cpu", "rv64", G}},
		{name: "-cpu sifive-u54", args: []string{"-cpu", "sifive-u54", G}},
		{name: "QEMU_CPU", env: []string{"QEMU_CPU=any"}, args: []string{G}},
		{name: "-seed", args: []string{"-seed", "5", G}},
		{name: "QEMU_RAND_SEED", env: []string{"QEMU_RAND_SEED=0x10"}, args: []string{G}},
		{name: "-L", args: []string{"-L", "/nonexistent", G}},
		{name: "QEMU_LD_PREFIX", env: []string{"QEMU_LD_PREFIX=/nonexistent"}, args: []string{G}},
		{name: "IM", args: []string{IM, "3000000"}},
		{name: "IM -0 -strace", args: []string{"-0", "sieve", "-strace", IM, "3000000"}, inStderr: "write(1,"},
		{name: "IM -cpu QEMU_SET_ENV", env: []string{"QEMU_SET_ENV=A=1"}, args: []string{"-cpu", "rv64", IM, "100000"}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			dir := t.TempDir() // the runs' directory: qemu may leave a guest core there
			subst := func(log string) []string {
				args := slices.Clone(row.args)
				for i, a := range args {
					args[i] = strings.NewReplacer(G, gc, IM, im, LOG, log).Replace(a)
				}
				return args
			}
			env := append(slices.Clone(baseEnv), row.env...)
			qlog := filepath.Join(dir, "qemu.log")
			want := runProc(t, dir, env, qemu, subst(qlog)...)
			for _, mode := range []string{"interp", "dynamo"} {
				rlog := filepath.Join(dir, mode+".log")
				got := rvdynProc(t, dir, env, append([]string{"--mode=" + mode}, subst(rlog)...)...)
				gotOut, wantOut := got.stdout, want.stdout
				if row.sorted {
					gotOut, wantOut = sortLines(gotOut), sortLines(wantOut)
				}
				if gotOut != wantOut || got.end != want.end {
					t.Errorf("%s: rvdyn %q: %s, stdout\n%s\nqemu: %s, stdout\n%s\nrvdyn's stderr: %s", mode, subst(rlog), got.end, got.stdout, want.end, want.stdout, got.stderr)
				}
				if got.core {
					t.Errorf("%s: rvdyn left a core dump", mode)
				}
				if s := row.inStderr; s != "" && (!strings.Contains(got.stderr, s) || !strings.Contains(want.stderr, s)) {
					t.Errorf("%s: %q missing from a standard error: rvdyn's\n%s\nqemu's\n%s", mode, s, got.stderr, want.stderr)
				}
				if s := row.inLog; s != "" {
					g, _ := os.ReadFile(rlog)
					w, _ := os.ReadFile(qlog)
					if !bytes.Contains(g, []byte(s)) || !bytes.Contains(w, []byte(s)) || strings.Contains(got.stderr, s) {
						t.Errorf("%s: %q not in both log files (and only there): rvdyn's\n%s\nqemu's\n%s", mode, s, g, w)
					}
				}
			}
		})
	}
}

// sortLines returns s's lines sorted.
func sortLines(s string) string {
	l := strings.Split(s, "\n")
	slices.Sort(l)
	return strings.Join(l, "\n")
}
