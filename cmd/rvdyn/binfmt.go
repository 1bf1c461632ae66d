// The binfmt command: install, uninstall, status -> rvdyn's binfmt_misc entry for RISC-V 64-bit ELF executables, so that ./prog runs through rvdyn.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// binfmtDir is where binfmt_misc is mounted (a variable for tests).
var binfmtDir = "/proc/sys/fs/binfmt_misc"

// binfmtName is the default name of rvdyn's entry.
const binfmtName = "rvdyn-riscv64"

// riscv64Magic and riscv64Mask are Debian's qemu-user-binfmt pattern for
// riscv64 (/usr/share/binfmts/qemu-riscv64): a 64-bit little-endian ELF
// (any OS/ABI byte), type ET_EXEC or ET_DYN (2 or 3: the mask clears bit
// 0), machine EM_RISCV (0xf3).
var (
	riscv64Magic = []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00")
	riscv64Mask  = []byte("\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff")
)

// binfmtMount is the line that tells a user how to mount binfmt_misc.
const binfmtMount = "mount it (as root) with: mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc"

func binfmtCmd(args []string, stdout, stderr io.Writer) int {
	const usage = `usage: rvdyn binfmt install [--force] [--credentials] [--name NAME] [--interpreter PATH]
       rvdyn binfmt uninstall [--force] [--name NAME]
       rvdyn binfmt status [--name NAME]

Registers rvdyn with the kernel's binfmt_misc as the interpreter of RISC-V
64-bit ELF executables (Debian qemu-user-binfmt's pattern), so that ./prog
runs through rvdyn as 'rvdyn ./prog' would, taking QEMU_* and RVDYN_*
variables (rvdyn -h). The entry has flags P (the program's argv[0] is
kept) and O (the kernel opens the program for rvdyn, so execute-only files
run); C only with --credentials. Root only. The kernel tries the newest
entry first: an existing entry for RISC-V programs (such as qemu-riscv64)
is left alone, and rvdyn registers ahead of it only with --force.
status exits 0 when the entry is registered and enabled, 1 otherwise.

flags:
`
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	fs := flag.NewFlagSet("binfmt", flag.ContinueOnError)
	name := fs.String("name", binfmtName, "the entry's name in "+binfmtDir)
	force := fs.Bool("force", false, "install: replace an entry of this name, or register ahead of another entry for RISC-V programs; uninstall: remove an entry whose interpreter is not this rvdyn")
	cred := fs.Bool("credentials", false, "install with flag C: a setuid or setgid program runs with its owner's privileges, and so does rvdyn (read the warning)")
	interpreter := fs.String("interpreter", "", "install: the rvdyn executable the kernel runs (default: this one)")
	if code, ok := parseFlags(fs, args[1:], usage, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rvdyn binfmt: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *name == "" || strings.ContainsAny(*name, "/:") || *name == "." || *name == ".." || *name == "register" || *name == "status" {
		fmt.Fprintf(stderr, "rvdyn binfmt: --name %q: want a name without '/' or ':', other than register and status\n", *name)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "install":
		err = binfmtInstall(*name, *interpreter, *force, *cred, stdout, stderr)
	case "uninstall":
		err = binfmtUninstall(*name, *force, stdout)
	case "status":
		var ok bool
		if ok, err = binfmtStatus(*name, stdout); err == nil && !ok {
			return 1
		}
	default:
		fmt.Fprintf(stderr, "rvdyn binfmt: unknown action %q (want install, uninstall or status)\n", args[0])
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "rvdyn binfmt %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// A binfmtEntry is one registered entry as binfmt_misc shows it.
type binfmtEntry struct {
	name        string
	enabled     bool
	interpreter string
	flags       string
	offset      int
	magic, mask []byte // mask nil: all ones
}

// handlesRISCV reports whether the kernel would give e a RISC-V 64-bit
// ELF executable.
func (e *binfmtEntry) handlesRISCV() bool {
	if e.magic == nil || e.offset+len(e.magic) > len(riscv64Magic) {
		return false
	}
	for i, b := range e.magic {
		m := byte(0xff)
		if e.mask != nil {
			m = e.mask[i]
		}
		if riscv64Magic[e.offset+i]&m != b&m {
			return false
		}
	}
	return true
}

// readBinfmtEntry parses binfmt_misc's file for entry name: lines such
// as "enabled", "interpreter /path", "flags: PO", "offset 0",
// "magic 7f454c46...", "mask ff...". An extension entry (E) has no magic.
func readBinfmtEntry(name string) (*binfmtEntry, error) {
	b, err := os.ReadFile(filepath.Join(binfmtDir, name))
	if err != nil {
		return nil, err
	}
	e := &binfmtEntry{name: name}
	for _, line := range strings.Split(string(b), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "enabled":
			e.enabled = true
		case "interpreter":
			e.interpreter = val
		case "flags:":
			e.flags = val
		case "offset":
			fmt.Sscan(val, &e.offset)
		case "magic":
			e.magic = unhex(val)
		case "mask":
			e.mask = unhex(val)
		}
	}
	return e, nil
}

// unhex decodes binfmt_misc's hex dump of a magic or mask (nil if bad).
func unhex(s string) []byte {
	var b []byte
	if _, err := fmt.Sscanf(s, "%x", &b); err != nil {
		return nil
	}
	return b
}

// binfmtEntries returns every registered entry, after checking that
// binfmt_misc is mounted.
func binfmtEntries() ([]*binfmtEntry, error) {
	if _, err := os.Stat(filepath.Join(binfmtDir, "register")); err != nil {
		return nil, fmt.Errorf("binfmt_misc is not mounted at %s: %s", binfmtDir, binfmtMount)
	}
	des, err := os.ReadDir(binfmtDir)
	if err != nil {
		return nil, err
	}
	var es []*binfmtEntry
	for _, de := range des {
		if n := de.Name(); n != "register" && n != "status" {
			if e, err := readBinfmtEntry(n); err == nil {
				es = append(es, e)
			}
		}
	}
	return es, nil
}

// errNotRoot is the refusal of a change by a user other than root.
var errNotRoot = errors.New("needs root: only root may change binfmt_misc's entries")

// binfmtInstall registers name with interpreter (default: this rvdyn).
func binfmtInstall(name, interpreter string, force, cred bool, stdout, stderr io.Writer) error {
	es, err := binfmtEntries()
	if err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return errNotRoot
	}
	if interpreter, err = interpreterPath(interpreter); err != nil {
		return err
	}
	flags := "PO"
	if cred {
		flags += "C"
		fmt.Fprintln(stderr, "rvdyn binfmt install: warning: with flag C a setuid or setgid RISC-V program runs rvdyn with the program's privileges; rvdyn is not hardened for that, and the guest can use them through its system calls (open, write, ...) as any program could")
	}
	var old *binfmtEntry
	for _, e := range es {
		switch {
		case e.name == name:
			old = e
		case e.enabled && e.handlesRISCV() && !force:
			return fmt.Errorf("entry %s (interpreter %s) already runs RISC-V programs; --force registers %s ahead of it (the kernel tries the newest entry first), leaving it registered", e.name, e.interpreter, name)
		}
	}
	if old != nil {
		if old.interpreter == interpreter && old.flags == flags && old.enabled {
			fmt.Fprintf(stdout, "%s is already registered: %s, flags %s\n", name, interpreter, flags)
			return nil
		}
		if !force {
			return fmt.Errorf("an entry %s exists (interpreter %s, flags %s); --force replaces it", name, old.interpreter, old.flags)
		}
		if err := os.WriteFile(filepath.Join(binfmtDir, name), []byte("-1"), 0); err != nil {
			return fmt.Errorf("removing the old %s: %w", name, err)
		}
	}
	reg := fmt.Sprintf(":%s:M::%s:%s:%s:%s", name, escapeBinfmt(riscv64Magic), escapeBinfmt(riscv64Mask), interpreter, flags)
	if err := os.WriteFile(filepath.Join(binfmtDir, "register"), []byte(reg), 0); err != nil {
		return fmt.Errorf("registering %s: %w", name, err)
	}
	fmt.Fprintf(stdout, "registered %s: RISC-V 64-bit ELF executables run through %s (flags %s)\n", name, interpreter, flags)
	return nil
}

// interpreterPath returns the absolute path of the rvdyn to register: p,
// or this executable. It refuses a temporary build (go run), which would
// be gone when the kernel needs it.
func interpreterPath(p string) (string, error) {
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			return "", fmt.Errorf("this rvdyn is a temporary build (%s, from go run); build one to keep (go build -o /usr/local/bin/rvdyn ./cmd/rvdyn) and install with it", exe)
		}
		p = exe
	}
	p, err := filepath.Abs(p)
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return "", fmt.Errorf("--interpreter: %w", err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("--interpreter %s: not an executable file", p)
	}
	if strings.ContainsAny(p, ":\n") {
		return "", fmt.Errorf("--interpreter %s: binfmt_misc cannot take a path with ':' or a newline", p)
	}
	return p, nil
}

// escapeBinfmt writes b as binfmt_misc's \xHH escapes.
func escapeBinfmt(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		fmt.Fprintf(&s, `\x%02x`, c)
	}
	return s.String()
}

// binfmtUninstall removes entry name.
func binfmtUninstall(name string, force bool, stdout io.Writer) error {
	if _, err := binfmtEntries(); err != nil {
		return err
	}
	e, err := readBinfmtEntry(name)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "%s is not registered\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return errNotRoot
	}
	if !force && !isRvdyn(e.interpreter) {
		return fmt.Errorf("entry %s runs %s, not rvdyn; --force removes it", name, e.interpreter)
	}
	if err := os.WriteFile(filepath.Join(binfmtDir, name), []byte("-1"), 0); err != nil {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	fmt.Fprintf(stdout, "removed %s\n", name)
	return nil
}

// isRvdyn reports whether the executable at path is an rvdyn: this one,
// or a file named rvdyn-something.
func isRvdyn(path string) bool {
	if strings.HasPrefix(filepath.Base(path), "rvdyn") {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	a, err1 := os.Stat(exe)
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// binfmtStatus prints binfmt_misc's entries for RISC-V programs and
// whether name is registered and enabled.
func binfmtStatus(name string, stdout io.Writer) (bool, error) {
	es, err := binfmtEntries()
	if err != nil {
		return false, err
	}
	ok := false
	for _, e := range es {
		if e.name != name && !e.handlesRISCV() {
			continue
		}
		state := "disabled"
		if e.enabled {
			state = "enabled"
		}
		ok = ok || e.name == name && e.enabled
		fmt.Fprintf(stdout, "%s: %s, interpreter %s, flags %s\n", e.name, state, e.interpreter, e.flags)
	}
	if !ok {
		fmt.Fprintf(stdout, "%s is not registered (or disabled): rvdyn binfmt install registers it\n", name)
	}
	return ok, nil
}
