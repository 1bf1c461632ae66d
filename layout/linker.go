// Applying an order: a procedure order + a GNU ld linker script -> the script with the order in its .text output section, and the relink that consumes it (the paper's cord).

package layout

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// textStatement finds the start of the .text output section's body in a
// GNU ld script: ".text <spaces> : <spaces> {".
var textStatement = regexp.MustCompile(`(?m)^\s*\.text\s*:\s*\{[^\n]*\n`)

// ErrNoText is returned by LinkerScript for a script without a .text
// output section.
var ErrNoText = errors.New("layout: no .text output section in the linker script")

// LinkerScript returns base (a complete GNU ld linker script, such as
// bench/guests/rt/guest.ld or `ld --verbose`'s default) with one input
// section statement per procedure of order at the top of its .text output
// section, so that the linker places those procedures first and in that
// order; the rest of .text follows as base places it. It works for
// objects compiled with -ffunction-sections, where procedure NAME is the
// input section .text.NAME (GCC puts main, or code it deems hot or
// unlikely, in .text.startup.NAME, .text.hot.NAME or
// .text.unlikely.NAME; each statement names all four). Names the linker
// script language cannot quote (with white space, quotes, wildcards or
// parentheses) are skipped. Code outside function sections (assembly in
// .text, libraries built without -ffunction-sections) stays where base
// puts it.
func LinkerScript(base string, order []string) (string, error) {
	loc := textStatement.FindStringIndex(base)
	if loc == nil {
		return "", ErrNoText
	}
	var b strings.Builder
	b.WriteString(base[:loc[1]])
	b.WriteString("    /* Procedure order (rvdyn layout). */\n")
	for _, n := range order {
		if n == "" || strings.ContainsAny(n, " \t\n\"*?[]()\\;") {
			continue
		}
		fmt.Fprintf(&b, "    *(.text.%s .text.startup.%s .text.hot.%s .text.unlikely.%s)\n", n, n, n, n)
	}
	b.WriteString(base[loc[1]:])
	return b.String(), nil
}

// Names returns the procedure names of an order (indices into p.Procs).
func (p *Program) Names(order []int) []string {
	s := make([]string, len(order))
	for i, o := range order {
		s[i] = p.Procs[o].Name
	}
	return s
}

// HostDefaultScript returns the host linker's default script, the one
// `ld --verbose` prints, for relinking the native build of a guest.
func HostDefaultScript() (string, error) {
	out, err := exec.Command("ld", "--verbose").Output()
	if err != nil {
		return "", fmt.Errorf("layout: ld --verbose: %w", err)
	}
	const rule = "=================================================="
	parts := strings.Split(string(out), rule)
	if len(parts) < 3 {
		return "", errors.New("layout: ld --verbose printed no default script")
	}
	return strings.TrimSpace(parts[1]) + "\n", nil
}

// Relink runs make in dir (bench/guests) to link guest with the linker
// script script into out: target NAME.layout.elf for the RISC-V build,
// NAME.layout.native for the host build (native true). It needs the
// cross toolchain (RISC-V) or host gcc; make's output is returned in the
// error when the link fails.
func Relink(dir, guest, script, out string, native bool) error {
	target := guest + ".layout.elf"
	v := "LAYOUT_LD"
	if native {
		target = guest + ".layout.native"
		v = "LAYOUT_NATIVE_LD"
	}
	cmd := exec.Command("make", "-s", "-C", dir, v+"="+script, "LAYOUT_OUT="+out, target)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("layout: relinking %s: %w\n%s", guest, err, msg.String())
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("layout: relinking %s: %w", guest, err)
	}
	return nil
}

// CrossToolchain reports whether the RISC-V cross compiler that Relink
// needs is installed.
func CrossToolchain() bool {
	_, err := exec.LookPath("riscv64-unknown-elf-gcc")
	return err == nil
}
