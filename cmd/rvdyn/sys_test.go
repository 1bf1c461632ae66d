package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRootStrace runs the file compressor under --root with --strace:
// paths resolve inside the root, and every system call is traced.
func TestRunRootStrace(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "in"), []byte(strings.Repeat("rvdyn ", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runMain(t, "run", "--root", root, "--strace", "../../bench/corpus/sys/fpack.elf", "/in", "../../out")
	if code != 0 || !strings.Contains(out, "round trip ok") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "out")); err != nil {
		t.Errorf("the packed file is not in the root: %v", err)
	}
	for _, want := range []string{` openat(AT_FDCWD,"/in",O_RDONLY) = 3`, ` writev(3,`, ` exit(0)`} {
		if !strings.Contains(errs, want) {
			t.Errorf("trace lacks %q:\n%s", want, errs)
		}
	}
	if code, _, errs := runMain(t, "run", "--root", filepath.Join(root, "nope"), "../../bench/corpus/sys/fpack.elf"); code != exitUsage {
		t.Errorf("missing root: exit %d, %s", code, errs)
	}
}
