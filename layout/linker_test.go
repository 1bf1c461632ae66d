// Tests of linker scripts: the order lands in .text, and the real cross linker consumes it (skipped without the toolchain).

package layout

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rvdyn/bench/corpus"
)

func TestLinkerScriptInsertsOrder(t *testing.T) {
	base := "SECTIONS\n{\n  .text           :\n  {\n    *(.text .text.*)\n  }\n}\n"
	got, err := LinkerScript(base, []string{"main", "bad name", "f.constprop.0"})
	if err != nil {
		t.Fatal(err)
	}
	i, j, k := strings.Index(got, ".text.main "), strings.Index(got, ".text.f.constprop.0 "), strings.Index(got, "*(.text .text.*)")
	if i < 0 || j < i || k < j || strings.Contains(got, "bad name") {
		t.Errorf("script:\n%s", got)
	}
	if _, err := LinkerScript("SECTIONS { .data : { } }", nil); err != ErrNoText {
		t.Errorf("no .text: err = %v, want ErrNoText", err)
	}
}

// guestsDir is bench/guests, where Relink runs make.
func guestsDir(t *testing.T) string {
	d, err := filepath.Abs("../bench/guests")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRelinkReversed relinks a guest with its procedures in reverse
// order through the real cross linker: the procedures move as the script
// says and the program's output under qemu-riscv64 is unchanged.
func TestRelinkReversed(t *testing.T) {
	if !CrossToolchain() {
		t.Skip("riscv64-unknown-elf-gcc not installed")
	}
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		t.Skip("qemu-riscv64 not installed")
	}
	const name = "qsort"
	image, _ := corpus.ELF(name)
	p, err := Analyze(image)
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, len(p.Procs))
	for i := range order {
		order[i] = len(order) - 1 - i
	}
	base, err := os.ReadFile(filepath.Join(guestsDir(t), "rt/guest.ld"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := LinkerScript(string(base), p.Names(order))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ld, out := filepath.Join(dir, "order.ld"), filepath.Join(dir, name+".layout.elf")
	if err := os.WriteFile(ld, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Relink(guestsDir(t), name, ld, out, false); err != nil {
		t.Fatal(err)
	}
	relinked, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Analyze(relinked)
	if err != nil {
		t.Fatal(err)
	}
	// main and the program's own procedures now come in reverse order.
	var before, after []string
	for _, pr := range p.Procs {
		if q.Proc(pr.Name) >= 0 {
			before = append(before, pr.Name)
		}
	}
	for _, pr := range q.Procs {
		if p.Proc(pr.Name) >= 0 {
			after = append(after, pr.Name)
		}
	}
	if slices.Equal(before, after) {
		t.Errorf("relinking did not move any procedure")
	}
	if a, b := q.Procs[q.Proc("main")].Addr, q.Procs[q.Proc("merge_sort")].Addr; a > b == (p.Procs[p.Proc("main")].Addr > p.Procs[p.Proc("merge_sort")].Addr) {
		t.Errorf("main and merge_sort kept their relative order")
	}
	args := corpus.Args(name, corpus.Small)[1:]
	run := func(elf string) string {
		var b bytes.Buffer
		cmd := exec.Command(qemu, append([]string{elf}, args...)...)
		cmd.Stdout = &b
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v", elf, err)
		}
		return b.String()
	}
	orig, _ := corpus.ELFFile(name)
	if a, b := run(orig), run(out); a != b {
		t.Errorf("output differs after relinking:\n%s\nvs\n%s", a, b)
	}
}
