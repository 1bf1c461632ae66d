// ELF loader: a static RV64 executable image -> a Machine ready to run.

package interp

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	pageSize      = 4096
	stackGuardGap = 1 << 20 // the guard gap below the stack: Linux's stack_guard_gap (256 pages)
	dynBase       = 0x10000 // where a position-independent executable's first page goes
	efFloatABI    = 0x6     // e_flags: float ABI mask (0 soft, 2 single, 4 double, 6 quad)
	efFloatQuad   = 0x6
	efRVE         = 0x8 // e_flags: the RV32E/RV64E base (16 registers)
)

// DefaultStackSize is the default limit of the guest stack in bytes:
// Linux's default RLIMIT_STACK, and qemu-riscv64's stack size.
const DefaultStackSize = 8 << 20

// Load checks and loads an RV64GC ELF executable (RV64IM ones included:
// every flavor of the ISA and float ABI the standard toolchains build for
// RV64GC), static or dynamically linked, position-dependent or not, and
// prepares the initial process state as Linux would: PT_LOAD segments
// copied (bss zeroed), the brk heap after the last segment, and a stack
// with argc, argv, envp and auxv at the top of the address space. The
// stack may grow down to Config.StackSize below its top; under it lies a
// guard gap (1 MiB, as Linux keeps, or a sixteenth of a small address
// space) where every access faults, and under that the heap's limit. A
// mapping (mmap, and the dynamic loader a PT_INTERP names, found under
// Config.LdPrefix) goes bottom up from a third of the way to the guard
// gap, as under qemu-riscv64 (findFree):
//
//	0 ... text, data, bss | brk heap -> | mappings -> |   | guard gap | <- stack | top page
//	                      ^ end of bss  ^ brk limit           ^ mmap top  ^ stack limit
//
// A position-independent executable (ET_DYN) is placed at 64 KiB. The
// executable pages are decoded lazily, at their first fetch. A malformed
// or unsupported image gives a *LoadError.
func Load(image []byte, cfg Config) (m *Machine, err error) {
	defer func() {
		// debug/elf does not promise to survive every malformed input.
		if r := recover(); r != nil {
			m, err = nil, &LoadError{Reason: fmt.Sprintf("malformed ELF (%v)", r)}
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return nil, &LoadError{Reason: "not an ELF file", Err: err}
	}
	switch {
	case f.Class != elf.ELFCLASS64:
		return nil, &LoadError{Reason: fmt.Sprintf("class %v, want ELFCLASS64", f.Class)}
	case f.Machine != elf.EM_RISCV:
		return nil, &LoadError{Reason: fmt.Sprintf("machine %v, want EM_RISCV", f.Machine)}
	case f.Data != elf.ELFDATA2LSB:
		return nil, &LoadError{Reason: "big-endian image"}
	}
	interpPath := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
			if err != nil || len(b) == 0 {
				return nil, &LoadError{Reason: "unreadable PT_INTERP (the dynamic loader's path)"}
			}
			interpPath = strings.TrimRight(string(b), "\x00")
		}
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, &LoadError{Reason: fmt.Sprintf("type %v, want an executable (ET_EXEC, or ET_DYN: a position-independent one)", f.Type)}
	}
	flags := binary.LittleEndian.Uint32(image[48:52])
	if flags&efFloatABI == efFloatQuad {
		return nil, &LoadError{Reason: "uses the quad-precision float ABI (lp64q); rvdyn runs RV64GC: build with -mabi=lp64d or lp64"}
	}
	if flags&efRVE != 0 {
		return nil, &LoadError{Reason: "built for the RV64E base (16 registers); build for RV64GC or RV64IM"}
	}

	size := cfg.MemSize
	if size == 0 {
		size = DefaultMemSize
	}
	mem, err := newMemory(size, !cfg.SmallPages)
	if err != nil {
		return nil, err
	}
	m = &Machine{CPU: new(CPU), Mem: mem, cfg: cfg}
	m.initPages()
	if err := m.load(f, image, interpPath); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// load places the program (and the dynamic loader it names, if any),
// prepares the kernel-side state and the initial stack.
func (m *Machine) load(f *elf.File, image []byte, interpPath string) error {
	var bias uint64
	if f.Type == elf.ET_DYN {
		// A position-independent executable goes where a static one
		// is linked (64 KiB), above the null page; Linux puts it at two
		// thirds of the address space, which this one is too small for.
		lo := ^uint64(0)
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Memsz != 0 {
				lo = min(lo, p.Vaddr&^(pageSize-1))
			}
		}
		if lo == ^uint64(0) {
			return &LoadError{Reason: "no loadable executable segment"}
		}
		bias = dynBase - lo
	}
	if err := m.loadSegments(f, image, bias); err != nil {
		return err
	}
	if err := m.initOS(); err != nil {
		return err
	}
	var ld *loaded
	if interpPath != "" {
		var err error
		if ld, err = m.loadInterp(interpPath); err != nil {
			return err
		}
	}
	if err := m.setupStack(f, image, bias, ld); err != nil {
		return err
	}
	m.staticHi = m.brkStart
	m.markReserve(m.Mem.readLo, m.brkStart, AccR) // gaps between segments: see pages.go
	m.markReserve(m.brkStart, m.Mem.guardLo, AccR|AccW)
	m.lowLostR, m.lowLostW, m.lowLostStack = ^uint64(0), ^uint64(0), ^uint64(0)
	m.fixSpans()
	m.unprotected = m.cfg.Unprotected
	return nil
}

// layout places the stack and its guard gap at the top of the address
// space: it returns the stack top, the lowest stack address (the stack
// limit) and the lowest address of the guard gap, which is also the limit
// of the brk heap.
func layout(size, stackSize uint64) (top, stackLo, guardLo uint64, err error) {
	if stackSize == 0 {
		stackSize = min(DefaultStackSize, size/4)
	}
	guard := min(uint64(stackGuardGap), size/16)
	top = size - pageSize
	if stackSize < 4*pageSize || stackSize%pageSize != 0 || stackSize > top-guard-pageSize {
		return 0, 0, 0, fmt.Errorf("stack size %d: want a multiple of 4 KiB from 16 KiB to %d (the address space, %d bytes, minus a guard gap and a page)",
			stackSize, (top-guard-pageSize)&^(pageSize-1), size)
	}
	return top, top - stackSize, top - stackSize - guard, nil
}

func (m *Machine) loadSegments(f *elf.File, image []byte, bias uint64) error {
	mem := m.Mem
	stackTop, stackLo, guardLo, err := layout(mem.size, m.cfg.StackSize)
	if err != nil {
		return &LoadError{Reason: err.Error()}
	}
	var lo, end uint64 = ^uint64(0), 0
	var xlo, xhi uint64 = ^uint64(0), 0
	var wlo uint64 = ^uint64(0)
	var roEnd uint64 // end of the read-only text
	loads := 0
	exe := m.exePath()
	for i, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Memsz == 0 {
			continue
		}
		loads++
		v := p.Vaddr + bias
		bad := func(why string) error {
			return &LoadError{Reason: fmt.Sprintf("segment %d (vaddr 0x%x, memsz 0x%x): %s", i, p.Vaddr, p.Memsz, why)}
		}
		switch {
		case p.Filesz > p.Memsz:
			return bad("file size larger than memory size")
		case p.Off > uint64(len(image)) || p.Filesz > uint64(len(image))-p.Off:
			return bad("extends past the end of the file")
		case v < pageSize || v >= guardLo || p.Memsz > guardLo-v:
			return bad(fmt.Sprintf("outside the guest address space below the stack [0x%x, 0x%x)", pageSize, guardLo))
		}
		copy(mem.Bytes(v, p.Filesz), image[p.Off:p.Off+p.Filesz])
		lo = min(lo, v&^(pageSize-1))
		end = max(end, v+p.Memsz)
		m.orPages(v&^(pageSize-1), pageUp(v+p.Memsz), segPerm(p.Flags))
		m.addImageSeg(v&^(pageSize-1), pageUp(v+p.Memsz), p.Off&^(pageSize-1), exe)
		if p.Flags&elf.PF_X != 0 {
			xlo, xhi = min(xlo, v), max(xhi, v+p.Memsz)
			if p.Flags&elf.PF_W == 0 {
				roEnd = max(roEnd, v+p.Memsz)
			}
		}
		if p.Flags&elf.PF_W != 0 {
			wlo = min(wlo, v&^(pageSize-1))
		}
	}
	if loads == 0 || xhi == 0 {
		return &LoadError{Reason: "no loadable executable segment"}
	}
	if e := f.Entry + bias; e < xlo || e >= xhi || e&1 != 0 {
		return &LoadError{Reason: fmt.Sprintf("entry point 0x%x is not in the executable segment", f.Entry)}
	}
	if wlo == ^uint64(0) {
		wlo = (end + pageSize - 1) &^ (pageSize - 1)
	}
	if wlo < roEnd {
		// One bound, WriteLo, makes everything below it read-only.
		return &LoadError{Reason: "writable segment below or inside the read-only program text"}
	}
	for _, p := range f.Progs {
		// RELRO turns read-only once relocated (glibc's
		// _dl_protect_relro, whole pages): the stores' fast interval
		// starts above it, so that it need not shrink then.
		if p.Type == elf.PT_GNU_RELRO {
			if e := (p.Vaddr + bias + p.Memsz) &^ (pageSize - 1); e > wlo && e <= end {
				wlo = e
			}
		}
	}
	mem.setLimits(lo, wlo, guardLo, stackLo)
	m.readHi, m.writeHi, m.stackHi = lo, wlo, stackLo
	m.mapRead, m.mapWrite = run{guardLo, guardLo}, run{guardLo, guardLo}

	// The text is decoded lazily (text.go): a huge memsz costs address
	// space, not memory or time.
	if err := m.initText(xlo &^ (pageSize - 1)); err != nil {
		return err
	}

	m.entry = f.Entry + bias
	m.brkStart = (end + pageSize - 1) &^ (pageSize - 1)
	m.brk, m.brkTop = m.brkStart, m.brkStart
	m.brkLimit = guardLo
	m.mm.top = guardLo
	m.stackTop = stackTop
	m.setPages(stackLo, mem.size, permRW, false)
	return nil
}

// segPerm converts a segment's p_flags to a page permission byte.
func segPerm(fl elf.ProgFlag) uint8 {
	p := permMap
	if fl&elf.PF_R != 0 {
		p |= permR
	}
	if fl&elf.PF_W != 0 {
		p |= permW
	}
	if fl&elf.PF_X != 0 {
		p |= permX
	}
	return p
}

// orPages adds permission p to the pages of [lo, hi): where two segments
// share a page, it has both's permissions, as Linux maps it.
func (m *Machine) orPages(lo, hi uint64, p uint8) {
	for a := lo; a < hi; a += pageSize {
		m.putPerm(a/pageSize, m.perm[a/pageSize]|p)
	}
}

// Auxiliary vector keys (Linux include/uapi/linux/auxvec.h).
const (
	atNull          = 0
	atPhdr          = 3
	atPhent         = 4
	atPhnum         = 5
	atPagesz        = 6
	atBase          = 7
	atFlags         = 8
	atEntry         = 9
	atUID           = 11
	atEUID          = 12
	atGID           = 13
	atEGID          = 14
	atHwcap         = 16
	atClktck        = 17
	atSecure        = 23
	atRandom        = 25
	atExecfn        = 31
	atMinsigstksz   = 51
	minSigStkSz     = 2048 // RISC-V Linux's MINSIGSTKSZ
	hwcapRV64IMAFDC = 1<<('I'-'A') | 1<<('M'-'A') | 1 /* 'A'-'A' */ | 1<<('F'-'A') | 1<<('D'-'A') | 1<<('C'-'A')
)

// HWCAP is the AT_HWCAP word a guest sees: one bit per single-letter
// extension (bit 'X'-'A'), as RISC-V Linux reports it: I, M, A, F, D, C.
const HWCAP = hwcapRV64IMAFDC

// setupStack lays out the initial stack the way Linux does for a new
// process: strings and 16 AT_RANDOM bytes at the top, then (from sp
// upwards) argc, argv[], NULL, envp[], NULL, auxv pairs, AT_NULL.
//
// bias is where the program was moved to (a position-independent one);
// ld, if not nil, is the dynamic loader, which runs first (AT_BASE) and
// finds the program by AT_PHDR and AT_ENTRY.
func (m *Machine) setupStack(f *elf.File, image []byte, bias uint64, ld *loaded) error {
	args := m.cfg.Args
	if len(args) == 0 {
		args = []string{"prog"}
	}
	sp := m.stackTop
	push := func(s string) uint64 {
		sp -= uint64(len(s) + 1)
		b := m.Mem.Bytes(sp, uint64(len(s)+1))
		copy(b, s)
		b[len(s)] = 0
		return sp
	}
	var argv, envp []uint64
	execfn := push(m.cfg.ExecPath())
	for _, a := range args {
		argv = append(argv, push(a))
	}
	for _, e := range m.cfg.Env {
		envp = append(envp, push(e))
	}
	// AT_RANDOM: fixed bytes, so that runs are reproducible.
	sp -= 16
	random := sp
	copy(m.Mem.Bytes(random, 16), "rvdyn-at-random!")
	sp &^= 15

	var phdr uint64
	phoff := binary.LittleEndian.Uint64(image[32:40])
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && phoff >= p.Off && phoff < p.Off+p.Filesz {
			phdr = p.Vaddr + phoff - p.Off + bias
		}
	}
	pc, base := m.entry, uint64(0)
	if ld != nil {
		pc, base = ld.entry, ld.base
	}
	// The keys and order of qemu-riscv64's auxiliary vector (linux-user's
	// create_elf_tables); the ids are the host process's, as the
	// get*id system calls report them.
	auxv := []uint64{
		atPhdr, phdr, atPhent, 56, atPhnum, uint64(len(f.Progs)),
		atPagesz, pageSize, atBase, base, atFlags, 0, atEntry, m.entry,
		atUID, uint64(unix.Getuid()), atEUID, uint64(unix.Geteuid()),
		atGID, uint64(unix.Getgid()), atEGID, uint64(unix.Getegid()),
		atHwcap, HWCAP, atClktck, 100, atRandom, random, atSecure, 0,
		atExecfn, execfn, atMinsigstksz, minSigStkSz, atNull, 0,
	}
	words := []uint64{uint64(len(args))}
	words = append(words, argv...)
	words = append(words, 0)
	words = append(words, envp...)
	words = append(words, 0)
	words = append(words, auxv...)
	need := uint64(8 * len(words))
	if need+(m.stackTop-sp) > (m.stackTop-m.Mem.guardHi)/4 { // Linux's limit: a quarter of the stack
		return &LoadError{Reason: "arguments and environment too large for the stack"}
	}
	sp = (sp - need) &^ 15
	for i, w := range words {
		m.Mem.store64(sp+8*uint64(i), w)
	}
	m.CPU.X[2] = sp
	m.CPU.PC = pc
	return nil
}
