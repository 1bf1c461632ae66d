// Guest corpus: the RV64IM ELF files in guests/ -> embedded images, names and small sizes.

package bench

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed guests/*.elf guests/sizes.txt
var corpus embed.FS

// DefaultGuest is the guest that `rvdyn run` runs when given no program.
const DefaultGuest = "nqueens"

// Guests returns the names of the embedded guests (file names in
// bench/guests without ".elf"), sorted.
func Guests() []string {
	ents, _ := fs.Glob(corpus, "guests/*.elf")
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = strings.TrimSuffix(strings.TrimPrefix(e, "guests/"), ".elf")
	}
	sort.Strings(names)
	return names
}

// GuestELF returns the image of the named guest.
func GuestELF(name string) ([]byte, error) { return corpus.ReadFile("guests/" + name + ".elf") }

// SmallArgs returns each guest's small-size arguments from
// guests/sizes.txt: the argv[1:] that tests pass to keep runs short. A line
// is "NAME ARG..." (e.g. "sieve 3000000", or "scheme all small" for a guest
// whose argument selects a program and an input); lines starting with '#'
// are comments. A guest without a line runs with no arguments, i.e. at its
// benchmark size.
func SmallArgs() map[string][]string {
	b, _ := corpus.ReadFile("guests/sizes.txt")
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			out[f[0]] = f[1:]
		}
	}
	return out
}
