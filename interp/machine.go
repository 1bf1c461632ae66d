// The guest machine: registers, memory, predecoded text and run state.

package interp

import (
	"io"
	"math/rand/v2"
)

// A CPU is the guest's architectural register state. Native code reads and
// writes it in place (see package fragment), so its layout is fixed: X at
// offset 0 (x0 always reads as zero), PC at offset 256, F at 264, FCSR at
// 520, Resv at 528.
type CPU struct {
	X  [32]uint64
	PC uint64
	// F holds f0..f31 as 64-bit patterns. A single-precision value is
	// NaN-boxed: its upper 32 bits are all ones; a single read from a
	// register that is not boxed is the canonical NaN (ISA manual, "NaN
	// Boxing of Narrower Values").
	F [32]uint64
	// FCSR is the floating-point control and status register: fflags
	// (the accrued exception flags, bits 4:0: NV DZ OF UF NX) and frm
	// (the dynamic rounding mode, bits 7:5); the other bits are zero.
	FCSR uint64
	// Resv is lr's reservation: the reserved address plus 1, or 0 when
	// there is none. sc succeeds only at the reserved address, and
	// clears it either way. Kept here so native code and the
	// interpreter share it.
	Resv uint64
}

// Config describes the process a guest program is started as.
type Config struct {
	// Args is argv; Args[0] is the program name. Empty means {"prog"}.
	Args []string
	// Path is the guest program's file name as the guest sees it: the
	// string AT_EXECFN points to and what readlink("/proc/self/exe")
	// returns (an absolute path there). Empty means Args[0].
	Path string
	// Env is envp, as "NAME=value" strings.
	Env []string
	// Stdin, Stdout and Stderr back file descriptors 0, 1 and 2. A nil
	// Stdin reads as end of file; a nil Stdout or Stderr discards.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// MemSize is the size of the guest address space in bytes
	// (default DefaultMemSize, at most 2 GiB).
	MemSize uint64
	// SmallPages keeps the guest memory in 4 KiB pages. By default the
	// mapping is advised for transparent huge pages (MADV_HUGEPAGE), so
	// that where the host allows them (THP "madvise" or "always") the
	// guest's heap, stack and data fault in 2 MiB at a time: fewer page
	// faults and TLB misses for allocation-heavy guests, at the price of
	// up to 2 MiB of host memory per region touched. The guest sees no
	// difference.
	SmallPages bool
	// StackSize limits the stack, which grows down from the top of the
	// address space, in bytes: a multiple of 4 KiB, at least 16 KiB
	// (default DefaultStackSize, or a quarter of a smaller address space).
	// An access below the limit faults (see Load).
	StackSize uint64
	// Root, if set, confines the guest's file system calls to this host
	// directory, which the guest sees as "/" (and as its working
	// directory): no path, ".." or symlink included, resolves outside it.
	// Empty: paths are host paths, as under qemu-riscv64.
	Root string
	// Strace, if set, receives one line per system call: its arguments
	// and result (the format of qemu-riscv64 -strace).
	Strace io.Writer
	// RandSeed, if nonzero, makes getrandom deterministic: its bytes
	// come from a ChaCha8 stream seeded with it (as qemu-riscv64 -seed
	// does), so that runs of a program that asks for randomness (glibc's
	// malloc does at start-up) can be compared register for register.
	// Zero: the host's random source.
	RandSeed uint64
	// LdPrefix is the sysroot in which a dynamically linked program's
	// interpreter (PT_INTERP) and libraries are looked up, qemu-riscv64's
	// -L / QEMU_LD_PREFIX: the loader is looked up there first, then as
	// named; the loader itself then opens the libraries, and every
	// absolute path the guest opens is tried under it first (qemu's path
	// rule). A static program ignores it, as under qemu.
	LdPrefix string
	// Unprotected keeps memory protection from taking access away once
	// the program is loaded: pages unmapped or re-protected by the guest
	// (munmap, mprotect, a break moved down) stay as accessible as they
	// were, so no access faults there and no fast interval is ever cut,
	// as before per-page protection was built. It is not exact (a guest
	// that touches such a page runs on where Linux gives SIGSEGV) and
	// exists to measure what protection costs (`--disable=protection`).
	// Executable permission, and the code cache's consistency with it,
	// are kept; a file view's pages past the end of its file still give
	// SIGBUS.
	Unprotected bool
}

// ExecPath returns the program's file name: Path, or else Args[0], or
// "prog".
func (c *Config) ExecPath() string {
	switch {
	case c.Path != "":
		return c.Path
	case len(c.Args) > 0:
		return c.Args[0]
	}
	return "prog"
}

// SyscallStats counts the system calls a guest made.
type SyscallStats struct {
	Calls   uint64            // all ecalls
	Unknown map[uint64]uint64 // calls answered -ENOSYS, by syscall number
}

// A Machine is one guest process: a CPU, a Memory, the program text decoded
// once at load time, and the kernel-side state (brk, exit status).
// A Machine is not safe for concurrent use.
type Machine struct {
	// CPU is the register state. It may be replaced (before or between
	// runs) by one embedded in a larger structure, see UseCPU.
	CPU *CPU
	// Mem is the guest address space.
	Mem *Memory

	// The predecoded text (text.go): code[i] decodes the instruction at
	// codeLo+2*i once it is decoded (the zero Inst until then; bit
	// i%2048/32 of decoded[i/2048] is set once a slot of its chunk is);
	// marks[i]
	// stops a dispatch run on a transfer to it. The three arrays live
	// outside the Go heap (codeMem, marksMem, decodedMem).
	code                          []Inst
	marks                         []uint8 // markEntry, markQuiet
	decoded                       []uint64
	codeLo                        uint64
	codeMem, marksMem, decodedMem []byte
	decodedPages                  []uint64 // the pages decoded (some dropped since): SyncText's list
	marked                        []uint64 // pcs whose mark may be set
	changed                       []uint64 // text pages dropped, see TextChanged
	changedSet                    map[uint64]bool
	perm                          []uint8 // the page table (pages.go)
	lowLostR                      uint64  // the lowest address whose page lost AccR since fixSpans
	lowLostW                      uint64  // ... lost AccW
	lowLostStack                  uint64  // ... lost either, in the stack interval
	highLostR                     uint64  // the end of the highest page that lost AccR since fixSpans
	highLostW                     uint64
	mapRead, mapWrite             run    // the mappings' runs (fixSpans, mapRun)
	readHi, writeHi               uint64 // the ends of the fast intervals (fixSpans)
	stackHi                       uint64
	staticHi                      uint64 // see StaticHi
	envEpoch                      uint64
	intervalCuts                  uint64 // see IntervalCuts
	unprotected                   bool   // Config.Unprotected, from the end of loading on

	brkStart, brk, brkLimit uint64
	brkTop                  uint64 // the end of the pages the break has ever reached: see sysBrk
	stackTop                uint64
	entry                   uint64

	cfg      Config
	exited   bool
	exitCode int
	retired  uint64
	pending  uint64 // instructions the fast loop retired but has not added to retired yet

	hook     Hook
	hookMask ClassMask
	hookRun  *[256]uint8 // per Op: hookStop, hookLast or 0 (see runHookedRuns)
	skip     Skipper     // the hook, if it is a Skipper that selects branches
	ev       Event

	sys    SyscallStats
	fds    fdTable       // guest file descriptors (fdtable.go)
	rng    *rand.ChaCha8 // getrandom's stream when Config.RandSeed is set
	mm     mmapState     // mmap'd ranges (sysmem.go)
	sig    sigState      // recorded signal actions and mask (sysproc.go)
	timer  itimer        // ITIMER_REAL (sysitimer.go)
	images []imageSeg    // the loaded segments, for /proc/self/maps (procself.go)
	proc   procState     // what prctl keeps (sysmisc.go)

	hostCall HostCallHandler // hostcall.go
	hostErr  error
}

// UseCPU makes the machine keep its registers in c, copying the current
// state into it.
func (m *Machine) UseCPU(c *CPU) {
	*c = *m.CPU
	m.CPU = c
}

// SetHook attaches a profiling hook called after every retired instruction
// whose class is in mask. A nil hook or an empty mask detaches it. Runs
// without a hook use a loop that has no hook checks at all.
func (m *Machine) SetHook(mask ClassMask, h Hook) {
	if h == nil || mask == 0 {
		m.hook, m.hookMask, m.hookRun, m.skip = nil, 0, nil, nil
		return
	}
	m.hook, m.hookMask, m.hookRun = h, mask, hookRunTable(mask)
	m.skip = nil
	if s, ok := h.(Skipper); ok && mask.Has(ClassBranch) {
		m.skip = s
	}
}

// Exited reports whether the guest has exited.
func (m *Machine) Exited() bool { return m.exited }

// ExitCode returns the guest's exit status (0..255) once it has exited.
func (m *Machine) ExitCode() int { return m.exitCode }

// Retired returns the number of guest instructions retired so far by the
// interpreter and by anything that reported through AddRetired.
func (m *Machine) Retired() uint64 { return m.retired }

// AddRetired adds n instructions retired outside the interpreter (in native
// code) to the machine's count.
func (m *Machine) AddRetired(n uint64) { m.retired += n }

// Syscalls returns the system call counts.
func (m *Machine) Syscalls() SyscallStats { return m.sys }

// Entry returns the program's entry point.
func (m *Machine) Entry() uint64 { return m.entry }

// InstAt returns the decoded instruction at guest address pc, and false if
// pc holds no executable code (outside the text, or odd).
func (m *Machine) InstAt(pc uint64) (Inst, bool) {
	off := pc - m.codeLo
	if pc&1 != 0 || off >= 2*uint64(len(m.code)) || !m.isExec(pc) {
		return Inst{}, false
	}
	m.decodeRun(off)
	return m.code[off>>1], true
}

// Marks on text words, for dispatch runs.
const (
	markEntry = 1 << iota // stop on a transfer here (see Mark)
	markQuiet             // no stop on a backward transfer here (see Quiet)
)

// Mark sets or clears the mark at pc: a run with StopOnMarked (see
// RunUntil) stops when a control transfer lands on a marked pc. The
// dispatcher marks the entries of fragments in the code cache. Marks
// outside the text are ignored.
func (m *Machine) Mark(pc uint64, on bool) {
	off := pc - m.codeLo
	if pc&1 == 0 && off < 2*uint64(len(m.code)) {
		if on {
			m.marks[off>>1] |= markEntry
			m.marked = append(m.marked, pc)
		} else {
			m.marks[off>>1] &^= markEntry
		}
	}
}

// ClearMarks removes every mark set by Mark (after a code cache flush);
// Quiet pcs stay quiet.
func (m *Machine) ClearMarks() {
	for _, pc := range m.marked {
		m.marks[(pc-m.codeLo)>>1] &^= markEntry
	}
	m.marked = m.marked[:0]
}

// Quiet makes runs with StopOnBackward stop no more at a taken backward
// branch or jump to pc: the trace selector has given up on pc as a head, and
// interpreting on through it is cheaper than stopping. pcs outside the
// text are ignored.
func (m *Machine) Quiet(pc uint64) {
	if off := pc - m.codeLo; pc&1 == 0 && off < 2*uint64(len(m.code)) {
		m.marks[off>>1] |= markQuiet
	}
}

// Close releases the guest memory and the predecoded text.
func (m *Machine) Close() error {
	m.closeFiles()
	m.closeMappings()
	m.closeText()
	return m.Mem.Close()
}
