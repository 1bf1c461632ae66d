// Dynamic loader: a PT_INTERP path and Config.LdPrefix -> the loader's segments mapped below the guard gap, its base and entry.

package interp

import (
	"bytes"
	"debug/elf"
	"fmt"

	"golang.org/x/sys/unix"
)

// loaded is the dynamic loader as placed: its load bias (AT_BASE) and its
// entry point, where the process starts.
type loaded struct {
	base, entry uint64
}

// maxInterpSize bounds the dynamic loader's file (glibc's is about 200
// KiB): a larger one is refused rather than read.
const maxInterpSize = 64 << 20

// fdCwd is AT_FDCWD as a guest passes it.
const fdCwd = ^uint64(99)

// loadInterp maps the dynamic loader at path, as Linux's load_elf_interp
// does: found under the sysroot first (Config.LdPrefix, qemu-riscv64's
// -L rule), then as it is; placed as one block where mmap would put it
// (findFree), every PT_LOAD segment with its own protection and the holes
// between them left unmapped. The loader then maps the program's
// libraries itself, with mmap.
func (m *Machine) loadInterp(path string) (*loaded, error) {
	image, err := m.readInterp(path)
	if err != nil {
		return nil, err
	}
	bad := func(why string) error {
		return &LoadError{Reason: fmt.Sprintf("dynamic loader %s: %s", path, why)}
	}
	f, err := elf.NewFile(bytes.NewReader(image))
	switch {
	case err != nil:
		return nil, bad("not an ELF file")
	case f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_RISCV || f.Data != elf.ELFDATA2LSB:
		return nil, bad(fmt.Sprintf("%v %v, want a 64-bit little-endian RISC-V one", f.Class, f.Machine))
	case f.Type != elf.ET_DYN:
		return nil, bad(fmt.Sprintf("type %v, want a shared object (ET_DYN)", f.Type))
	}
	lo, hi := ^uint64(0), uint64(0)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Memsz == 0 {
			continue
		}
		if p.Filesz > p.Memsz || p.Off > uint64(len(image)) || p.Filesz > uint64(len(image))-p.Off || p.Vaddr+p.Memsz < p.Vaddr {
			return nil, bad("malformed segment")
		}
		lo, hi = min(lo, p.Vaddr&^(pageSize-1)), max(hi, pageUp(p.Vaddr+p.Memsz))
	}
	if hi == 0 {
		return nil, bad("no loadable segment")
	}
	if hi-lo > m.mm.top {
		return nil, bad("larger than the address space")
	}
	at := m.findFree(hi - lo)
	if at == 0 {
		return nil, bad(fmt.Sprintf("no room for its %d bytes below the stack", hi-lo))
	}
	bias := at - lo
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Memsz != 0 {
			v := p.Vaddr + bias
			m.mapAdd(v&^(pageSize-1), pageUp(v+p.Memsz), permMap)
		}
	}
	name := path // as /proc/self/maps names it: the host file, after -L's prefix
	if m.fds.root == "" {
		name = m.fds.prefixed(path)
	}
	x := false
	for _, p := range f.Progs { // after every mapAdd, which zeroes a page two segments share
		if p.Type != elf.PT_LOAD || p.Memsz == 0 {
			continue
		}
		v := p.Vaddr + bias
		copy(m.Mem.Bytes(v, p.Filesz), image[p.Off:p.Off+p.Filesz])
		m.orPages(v&^(pageSize-1), pageUp(v+p.Memsz), segPerm(p.Flags))
		m.addImageSeg(v&^(pageSize-1), pageUp(v+p.Memsz), p.Off&^(pageSize-1), name)
		x = x || p.Flags&elf.PF_X != 0
	}
	if e := f.Entry + bias; !x || !m.isExec(e) || e&1 != 0 {
		return nil, bad(fmt.Sprintf("entry point 0x%x is not in an executable segment", f.Entry))
	}
	return &loaded{base: bias, entry: f.Entry + bias}, nil
}

// readInterp reads the dynamic loader's file as the guest would open it
// (under the root, and the sysroot first), or says how to give it.
func (m *Machine) readInterp(path string) ([]byte, error) {
	fd, _, e := m.fds.open(fdCwd, path, unix.O_RDONLY, 0)
	if e != 0 {
		hint := "give the sysroot that holds it with -L DIR or QEMU_LD_PREFIX"
		if m.cfg.LdPrefix != "" {
			hint = fmt.Sprintf("it is not under the sysroot %s either", m.cfg.LdPrefix)
		}
		return nil, &LoadError{Reason: fmt.Sprintf("dynamically linked, and its dynamic loader %s cannot be opened (%v): %s", path, unix.Errno(-int64(e)), hint)}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxInterpSize {
		return nil, &LoadError{Reason: fmt.Sprintf("dynamic loader %s: not a regular file of at most %d bytes", path, maxInterpSize)}
	}
	b := make([]byte, st.Size)
	for done := 0; done < len(b); {
		n, err := unix.Pread(fd, b[done:], int64(done))
		if err != nil || n == 0 {
			return nil, &LoadError{Reason: fmt.Sprintf("dynamic loader %s: read failed", path), Err: err}
		}
		done += n
	}
	return b, nil
}
