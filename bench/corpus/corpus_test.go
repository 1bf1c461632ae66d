// Tests of the corpus: every guest has an image, a small size and expected outputs; unknown names are errors.

package corpus

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

func TestCorpus(t *testing.T) {
	names := Names()
	if len(names) < 8 || !slices.IsSorted(names) || !slices.Contains(names, Default) {
		t.Fatalf("Names() = %v", names)
	}
	for _, name := range names {
		img, err := ELF(name)
		if err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
			t.Errorf("%s: ELF: %d bytes, %v", name, len(img), err)
		}
		if a := Args(name, Full); !slices.Equal(a, []string{name}) {
			t.Errorf("%s: full-size argv %q", name, a)
		}
		if a := Args(name, Small); len(a) < 2 || a[0] != name {
			t.Errorf("%s: no small size in sizes.txt: argv %q", name, a)
		}
		for _, size := range []Size{Small, Full} {
			b, err := Expected(name, size)
			if err != nil || !strings.HasSuffix(string(b), Outcome("", 0)) {
				t.Errorf("%s at %v: expected output %q, %v", name, size, b, err)
			}
		}
	}
	if a := Args("scheme", Small); !slices.Equal(a, []string{"scheme", "all", "small"}) {
		t.Errorf("scheme small argv %q", a)
	}
	if got := ExpectedFile("sieve", Small); got != "testdata/sieve.small.out" {
		t.Errorf("ExpectedFile = %q", got)
	}
}

func TestUnknownGuest(t *testing.T) {
	if _, err := ELF("nosuchguest"); !errors.Is(err, ErrNoGuest) || !strings.Contains(err.Error(), `"nosuchguest"`) {
		t.Errorf("ELF: %v", err)
	}
	if _, err := ELFFile("nosuchguest"); !errors.Is(err, ErrNoGuest) {
		t.Errorf("ELFFile: %v", err)
	}
	if _, err := Expected("nosuchguest", Small); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Expected: %v", err)
	}
}

// TestFiles checks that the files in the source tree are the embedded ones.
func TestFiles(t *testing.T) {
	p, err := ELFFile("sieve")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p, "bench/corpus/sieve.elf") {
		t.Errorf("ELFFile(sieve) = %q", p)
	}
}
