package bench

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuestSourcesComplete checks that every source file of bench/guests
// on disk is embedded (build products and Go's .gitignore'd files aside),
// so that an installed rvdyn relinks with the same sources.
func TestGuestSourcesComplete(t *testing.T) {
	src := GuestSources()
	n := 0
	err := filepath.WalkDir("guests", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("guests", path)
		base := filepath.Base(rel)
		switch {
		case base == ".gitignore", strings.HasSuffix(base, ".o"), strings.HasSuffix(base, ".native"),
			strings.HasSuffix(base, ".layout.elf"), strings.HasSuffix(base, ".out") && !strings.Contains(rel, "tests"):
			return nil
		}
		n++
		if _, err := fs.Stat(src, filepath.ToSlash(rel)); err != nil {
			t.Errorf("%s is not embedded", path)
		}
		return nil
	})
	if err != nil || n < 50 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

// TestExtractGuestsBuilds extracts the sources and asks make (dry run)
// for a relink of a C guest and of the Scheme guest: every prerequisite
// must be there.
func TestExtractGuestsBuilds(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	dir := t.TempDir()
	if err := ExtractGuests(dir); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"nqueens.layout.elf", "scheme.layout.elf"} {
		cmd := exec.Command("make", "-n", "-C", dir, target, "LAYOUT_LD=rt/guest.ld", "LAYOUT_OUT="+filepath.Join(dir, "x.elf"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("make -n %s: %v\n%s", target, err, out)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "scheme", "tests", "run.sh")); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("run.sh: %v", err)
	}
}
