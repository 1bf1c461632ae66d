package rvdyn_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rvdyn"
	"rvdyn/interp"
	"rvdyn/net"
)

// The system-interface guests (bench/guests/sys) live beside the corpus,
// not in it: they need files prepared by the test.
const sysGuests = "bench/corpus/sys"

var updateSys = flag.Bool("update-sys", false, "rewrite bench/corpus/sys/*.out from the interpreter (checked against qemu-riscv64 where it can be)")

func sysImage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sysGuests, name+".elf"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sysModes are the rvdyn configurations the system-interface guests must
// agree under.
var sysModes = map[string]rvdyn.Options{
	"interp":        {Mode: rvdyn.ModeInterp},
	"dynamo":        {},
	"dynamo delay0": {NET: net.Options{Delay: net.NoDelay}},
}

// qemuRun runs an ELF file under qemu-riscv64 in dir; ok is false when
// qemu-riscv64 is not installed.
func qemuRun(t *testing.T, elf, dir string, args ...string) (out string, code int, ok bool) {
	t.Helper()
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		return "", 0, false
	}
	abs, err := filepath.Abs(elf)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(qemu, append([]string{abs}, args...)...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Dir = &b, dir
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return b.String(), code, true
}

// golden compares got with bench/corpus/sys/NAME.out (or writes it with
// -update-sys; the callers check qemu-riscv64 first, where it applies).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(sysGuests, name+".out")
	if *updateSys {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (make it with -update-sys)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s:\n got: %s\nwant: %s", path, got, want)
	}
}

// TestFileGuest runs the file compressor on a file and checks that every
// mode prints the same and writes the same packed file as qemu-riscv64.
func TestFileGuest(t *testing.T) {
	image := sysImage(t, "fpack")
	dir := t.TempDir()
	var in bytes.Buffer
	for i := 0; in.Len() < 60000; i++ {
		in.WriteString(strings.Repeat("abc", i%7) + "line " + string(rune('a'+i%26)) + "\n")
	}
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var ref outcome
	var refPacked []byte
	for _, mode := range []string{"interp", "dynamo", "dynamo delay0"} {
		opts := sysModes[mode]
		outFile := filepath.Join(dir, strings.ReplaceAll(mode, " ", "-")+".fpk")
		opts.Args = []string{"fpack", input, outFile}
		got := run(t, image, opts)
		packed, err := os.ReadFile(outFile)
		if err != nil {
			t.Fatalf("%s: %v (output %q)", mode, err, got.stdout)
		}
		if mode == "interp" {
			ref, refPacked = got, packed
			if got.code != 0 || got.err != nil {
				t.Fatalf("interp: exit %d, %v: %s", got.code, got.err, got.stdout)
			}
			continue
		}
		if got.stdout != ref.stdout || got.code != ref.code || got.insts != ref.insts || !bytes.Equal(packed, refPacked) {
			t.Errorf("%s: exit %d, %d instructions, output %q; interp: exit %d, %d instructions, %q (packed files equal: %v)",
				mode, got.code, got.insts, got.stdout, ref.code, ref.insts, ref.stdout, bytes.Equal(packed, refPacked))
		}
	}
	qout := filepath.Join(dir, "qemu.fpk")
	out, code, ok := qemuRun(t, filepath.Join(sysGuests, "fpack.elf"), dir, input, qout)
	if !ok {
		t.Log("qemu-riscv64 not installed: no comparison with it")
	} else if packed, _ := os.ReadFile(qout); out != ref.stdout || code != ref.code || !bytes.Equal(packed, refPacked) {
		t.Fatalf("qemu-riscv64: exit %d, output %q; rvdyn: exit %d, output %q (packed files equal: %v)", code, out, ref.code, ref.stdout, bytes.Equal(packed, refPacked))
	}
	golden(t, "fpack", ref.stdout)
}

// TestSyscallGuest runs the system-call exercise (good and bad pointers,
// fds, flags, paths) in a fresh directory per mode: the same output and
// exit status under the interpreter, the optimizer and qemu-riscv64.
func TestSyscallGuest(t *testing.T) {
	image := sysImage(t, "sysabi")
	var ref outcome
	for _, mode := range []string{"interp", "dynamo", "dynamo delay0"} {
		opts := sysModes[mode]
		opts.Args = []string{"sysabi", t.TempDir()}
		got := run(t, image, opts)
		if mode == "interp" {
			ref = got
			if got.code != 0 || got.err != nil {
				t.Fatalf("interp: exit %d, %v:\n%s", got.code, got.err, got.stdout)
			}
			continue
		}
		if got.stdout != ref.stdout || got.code != ref.code {
			t.Errorf("%s: exit %d, output differs from interp:\n%s", mode, got.code, got.stdout)
		}
	}
	dir := t.TempDir()
	out, code, ok := qemuRun(t, filepath.Join(sysGuests, "sysabi.elf"), dir, dir)
	if !ok {
		t.Log("qemu-riscv64 not installed: no comparison with it")
	} else if out != ref.stdout || code != ref.code {
		t.Fatalf("qemu-riscv64: exit %d; rvdyn: exit %d; outputs:\n%s", code, ref.code, outputDiff("qemu", out, "rvdyn", ref.stdout))
	}
	golden(t, "sysabi", ref.stdout)
}

// TestRootConfinement runs the escape attempts of the system-call guest
// under a root: "..", absolute paths and symlinks pointing out of it must
// all stay inside. qemu-riscv64 has no such option, so the expected
// output is rvdyn's, checked against the files on disk: nothing outside
// the root is read, created, renamed or removed.
func TestRootConfinement(t *testing.T) {
	image := sysImage(t, "sysabi")
	var ref string
	for _, mode := range []string{"interp", "dynamo"} {
		top := t.TempDir()
		root := filepath.Join(top, "root")
		must(t, os.Mkdir(root, 0o755))
		must(t, os.WriteFile(filepath.Join(top, "secret.txt"), []byte("outside\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(root, "inside.txt"), []byte("inside\n"), 0o644))
		must(t, os.Symlink("../..", filepath.Join(root, "up")))
		must(t, os.Symlink("/etc", filepath.Join(root, "abs")))
		opts := sysModes[mode]
		opts.Args, opts.Root = []string{"sysabi", "--escape"}, root
		got := run(t, image, opts)
		if got.code != 0 || got.err != nil {
			t.Fatalf("%s: exit %d, %v:\n%s", mode, got.code, got.err, got.stdout)
		}
		if strings.Contains(got.stdout, "outside") || strings.Contains(got.stdout, "root:") {
			t.Errorf("%s: the guest read a file outside its root:\n%s", mode, got.stdout)
		}
		ents, _ := os.ReadDir(top)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "root secret.txt" {
			t.Errorf("%s: the directory above the root now holds %v", mode, names)
		}
		if b, _ := os.ReadFile(filepath.Join(top, "secret.txt")); string(b) != "outside\n" {
			t.Errorf("%s: secret.txt outside the root changed: %q", mode, b)
		}
		if mode == "interp" {
			ref = got.stdout
		} else if got.stdout != ref {
			t.Errorf("%s: output differs from interp:\n%s", mode, got.stdout)
		}
	}
	golden(t, "sysabi-escape", ref)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRootMissing: a root that is not a directory is a load error, not a
// guest-visible failure.
func TestRootMissing(t *testing.T) {
	_, err := rvdyn.New(sysImage(t, "sysabi"), rvdyn.Options{Config: interp.Config{Root: filepath.Join(t.TempDir(), "nope")}})
	var le *interp.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *interp.LoadError", err)
	}
}
