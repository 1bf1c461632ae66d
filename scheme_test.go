package rvdyn_test

// The Scheme guest (bench/guests/scheme) in every mode: each benchmark
// program alone, its collector under stress, and its language tests.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
)

// schemeImage returns the embedded Scheme guest.
func schemeImage(t *testing.T) []byte {
	t.Helper()
	image, err := corpus.ELF("scheme")
	if err != nil {
		t.Fatalf("the Scheme guest is not embedded: %v", err)
	}
	return image
}

// runStdin runs a guest with the given stdin under opts.
func runStdin(t *testing.T, image []byte, opts rvdyn.Options, stdin string) outcome {
	t.Helper()
	opts.Stdin = strings.NewReader(stdin)
	return run(t, image, opts)
}

// runQEMU runs the corpus's NAME.elf file under qemu-riscv64 with args
// and stdin; ok is false when qemu-riscv64 is not installed.
func runQEMU(t *testing.T, name string, args []string, stdin string) (out string, code int, ok bool) {
	t.Helper()
	path, err := corpus.ELFFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return runQEMUFile(t, path, args, stdin)
}

// runQEMUFile is runQEMU for the ELF file at path.
func runQEMUFile(t *testing.T, path string, args []string, stdin string) (out string, code int, ok bool) {
	t.Helper()
	return runQEMUArgs(t, append([]string{path}, args...), stdin)
}

// runQEMUArgs is runQEMUFile with qemu-riscv64's whole command line
// (options, the program, its arguments).
func runQEMUArgs(t *testing.T, argv []string, stdin string) (out string, code int, ok bool) {
	t.Helper()
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		return "", 0, false
	}
	cmd := exec.Command(qemu, argv...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stdin = &b, strings.NewReader(stdin)
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return b.String(), code, true
}

// agree runs args (argv[1:] of the Scheme guest) with stdin under the
// interpreter, the optimizer at several delays and qemu-riscv64, requires
// the same stdout, stderr, exit status, instruction count and final
// registers, and returns the interpreter's outcome.
func agree(t *testing.T, image []byte, args []string, stdin string) outcome {
	t.Helper()
	argv := append([]string{"scheme"}, args...)
	ref := runStdin(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: argv}}, stdin)
	if ref.err != nil {
		t.Fatalf("interp %v: %v", args, ref.err)
	}
	for _, d := range []int{0, 50, 1000} {
		got := runStdin(t, image, rvdyn.Options{Mode: rvdyn.ModeDynamo, NET: net.Options{Delay: net.DelayOf(d)}, Config: interp.Config{Args: argv}}, stdin)
		if got.err != nil || got.code != ref.code || got.stdout != ref.stdout || got.stderr != ref.stderr {
			t.Errorf("%v: dynamo delay %d: exit %d (%v), stdout %q stderr %q; interp: exit %d, stdout %q stderr %q",
				args, d, got.code, got.err, got.stdout, got.stderr, ref.code, ref.stdout, ref.stderr)
		}
		if got.insts != ref.insts || got.cpu != ref.cpu {
			t.Errorf("%v: dynamo delay %d: %d instructions, interp %d; registers equal: %v",
				args, d, got.insts, ref.insts, got.cpu == ref.cpu)
		}
	}
	if out, code, ok := runQEMU(t, "scheme", args, stdin); ok && (code != ref.code || out != ref.stdout) {
		t.Errorf("%v: qemu-riscv64: exit %d, stdout %q; rvdyn: exit %d, stdout %q", args, code, out, ref.code, ref.stdout)
	}
	return ref
}

// schemePrograms lists the benchmark programs built into the guest.
func schemePrograms(t *testing.T, image []byte) []string {
	t.Helper()
	o := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: []string{"scheme", "list"}}})
	if o.err != nil || o.code != 0 {
		t.Fatalf("scheme list: exit %d, %v, %q", o.code, o.err, o.stderr)
	}
	names := strings.Fields(o.stdout)
	if len(names) < 10 {
		t.Fatalf("scheme list: only %d programs: %v", len(names), names)
	}
	return names
}

// TestSchemePrograms runs every Scheme benchmark alone at its small size
// with the guest's collector run every 20 allocations (thousands of
// collections a program) over poisoned free memory, in every mode (agree): a collector that frees anything
// reachable makes the program's self-check fail, or trips the poison
// check (exit 4). Its output must be the program's line of the corpus's
// expected output for "scheme all small", which the differential test
// holds every mode to (where each program also runs alone in some
// configuration: schemeRotation).
func TestSchemePrograms(t *testing.T) {
	image := schemeImage(t)
	want, err := corpus.Expected("scheme", corpus.Small)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for line := range strings.SplitSeq(string(want), "\n") {
		name, _, _ := strings.Cut(line, " ")
		lines[name] = line + "\n"
	}
	for _, name := range schemePrograms(t, image) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each run is its own VM
			line, ok := lines[name]
			if !ok || !strings.HasPrefix(line, name+" small n=") || !strings.HasSuffix(line, " ok\n") {
				t.Fatalf("the expected output of scheme all small has no line for %s", name)
			}
			s := agree(t, image, []string{"-gc-every", "20", "-poison", "-gc-stats", name, "small"}, "")
			if s.code != 0 || s.stdout != line {
				t.Errorf("under GC stress: exit %d, stdout %q (want %q), stderr %q", s.code, s.stdout, line, s.stderr)
			}
		})
	}
}

// TestSchemeLanguage runs the Scheme guest's language tests
// (bench/guests/scheme/tests, the files `make scheme-check` uses) in every
// mode: each NAME.scm is fed on stdin, with the options on its first line
// (";; options: ..."), and must exit 0 printing exactly NAME.out.
func TestSchemeLanguage(t *testing.T) {
	image := schemeImage(t)
	files, _ := filepath.Glob(filepath.Join("bench", "guests", "scheme", "tests", "*.scm"))
	if len(files) == 0 {
		t.Fatal("no language tests in bench/guests/scheme/tests")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".scm")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(f, ".scm") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			opts, _ := strings.CutPrefix(first, ";; options: ")
			if opts == first {
				opts = ""
			}
			o := agree(t, image, append(strings.Fields(opts), "-"), string(src))
			if o.code != 0 || o.stdout != string(want) {
				t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", o.code, o.stderr, o.stdout, want)
			}
		})
	}
}

// TestSchemeErrors: each line "PROGRAM ;=> MESSAGE" of the guest's
// tests/errors.txt must exit 3 with exactly "scheme: error: MESSAGE" on
// stderr in every mode: a Scheme error is a message, never a crash.
func TestSchemeErrors(t *testing.T) {
	image := schemeImage(t)
	b, err := os.ReadFile(filepath.Join("bench", "guests", "scheme", "tests", "errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		prog, msg, ok := strings.Cut(line, " ;=> ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		o := agree(t, image, []string{"-"}, prog+"\n")
		if want := "scheme: error: " + msg + "\n"; o.code != 3 || o.stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 3, %q", prog, o.code, o.stderr, want)
		}
	}
	if n < 10 {
		t.Errorf("only %d error cases in errors.txt", n)
	}
}
