// The corpus against its oracle: each guest of each flavor under qemu-riscv64 -> the expected output recorded for it.

package corpus

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// update rewrites the expected outputs from qemu-riscv64's, keeping the
// sharing rule (see ExpectedFileOf): IM's in testdata/NAME.SIZE.out, a
// flavor's own only where it differs.
var update = flag.Bool("update", false, "rewrite testdata/*.out and testdata/gc/*.out from qemu-riscv64's output")

// TestQemu runs every guest of every flavor under qemu-riscv64 at the small
// size (at the full size with RVDYN_FULL=1, as the root package's
// differential test does) and compares its output and exit status with
// the expected output. qemu is the reference for both flavors: the GC
// flavor's glibc startup, RV64GC instructions and floating point are
// checked here independently of rvdyn, which cannot run them all yet.
func TestQemu(t *testing.T) {
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		t.Skip("qemu-riscv64 not installed (Debian package qemu-user): the guests are not checked against it")
	}
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	size := Small
	if os.Getenv("RVDYN_FULL") != "" {
		size = Full
	}
	// IM before GC: updating IM's shared file may first save its old
	// contents as GC's own (see writeExpected).
	for _, f := range Flavors() {
		t.Run(f.String(), func(t *testing.T) {
			for _, name := range NamesOf(f) {
				t.Run(name, func(t *testing.T) {
					if !*update {
						t.Parallel()
					}
					path, err := ELFFileOf(name, f)
					if err != nil {
						t.Fatal(err)
					}
					args := Args(name, size)[1:]
					cmd := exec.Command(qemu, append([]string{path}, args...)...)
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					status := 0
					if err := cmd.Run(); err != nil {
						var ee *exec.ExitError
						if !errors.As(err, &ee) {
							t.Fatal(err)
						}
						status = ee.ExitCode()
					}
					got := Outcome(stdout.String(), status)
					if status != 0 {
						t.Errorf("exit status %d, stderr %q", status, stderr.String())
					}
					if *update {
						if err := writeExpected(dir, name, size, f, got); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := ExpectedOf(name, size, f)
					if err != nil {
						t.Fatalf("no expected output: %v (make it with -update)", err)
					}
					if string(want) != got {
						t.Errorf("output differs from %s:\n got: %q\nwant: %q", ExpectedFileOf(name, size, f), got, want)
					}
				})
			}
		})
	}
}

// writeExpected records out as flavor f's expected output of the named
// guest at size, in the source tree at dir (the embedded copies are those
// of the build, so it reads the files there). IM writes the shared file;
// if another flavor that has the guest relied on the old contents, they
// become that flavor's own file first. Another flavor writes its own
// file, or removes it when out is the shared file's contents.
func writeExpected(dir, name string, size Size, f Flavor, out string) error {
	shared := filepath.Join(dir, filepath.FromSlash(ExpectedFile(name, size)))
	old, err := os.ReadFile(shared)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if f == IM {
		if err == nil && string(old) != out {
			for _, g := range Flavors() {
				if g == IM || !hasGuest(g, name) {
					continue
				}
				own := ownFile(dir, name, size, g)
				if _, err := os.Stat(own); errors.Is(err, fs.ErrNotExist) {
					if err := os.WriteFile(own, old, 0o644); err != nil {
						return err
					}
				}
			}
		}
		return os.WriteFile(shared, []byte(out), 0o644)
	}
	own := ownFile(dir, name, size, f)
	if err == nil && string(old) == out && hasGuest(IM, name) {
		if err := os.Remove(own); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		return err
	}
	return os.WriteFile(own, []byte(out), 0o644)
}

func ownFile(dir, name string, size Size, f Flavor) string {
	return filepath.Join(dir, "testdata", f.String(), name+"."+size.String()+".out")
}

func hasGuest(f Flavor, name string) bool {
	_, err := fs.Stat(files, f.dir()+name+".elf")
	return err == nil
}
