// samp2bb's view of a program: an ELF image -> procedures (symbol table) and basic blocks (decoded text), with the direct and indirect calls in each block.

package layout

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"

	"rvdyn/interp"
)

// A Proc is a procedure: a function symbol of the ELF symbol table and
// the instructions it covers.
type Proc struct {
	Name       string
	Addr, Size uint64 // bytes
	// Blocks are the indices in Program.Blocks of its basic blocks,
	// Blocks[0] <= i < Blocks[1], in address order.
	Blocks [2]int
}

// A Block is a basic block: a straight run of instructions entered at
// its first one (a leader: a procedure entry, a branch or jump target in
// the procedure, or the instruction after a branch, jump, call or ecall)
// and left at its last.
type Block struct {
	Addr uint64
	N    int    // instructions
	Size uint64 // bytes: N instructions of 2 (compressed) or 4 bytes each
	Proc int    // index in Program.Procs
	// Callees are the procedures its direct calls go to (jal with a link
	// register, and jal x0 into another procedure: a tail call), one
	// entry per call instruction.
	Callees []int
	// Indirect counts its calls through a register (jalr with a link
	// register), which the weighted call graph omits, as the paper's
	// monitor does (section 3.2).
	Indirect int
}

// A Program is the procedure and basic-block structure of an executable.
type Program struct {
	Procs  []Proc
	Blocks []Block
}

// ErrNoSymbols is returned by Analyze for an executable without function
// symbols: samp2bb needs them to find procedures.
var ErrNoSymbols = errors.New("layout: no function symbols in the ELF")

// Analyze reads an RV64IM ELF executable's function symbols and decodes
// its executable sections into procedures and basic blocks. A symbol
// whose size is 0 (an assembly label such as _start) extends to the next
// symbol or the end of its section. Code outside every function symbol
// is not part of any procedure. Errors: a malformed ELF (debug/elf's),
// ErrNoSymbols.
func Analyze(image []byte) (*Program, error) {
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Machine != elf.EM_RISCV || f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("layout: not an RV64 ELF (%v, %v)", f.Machine, f.Class)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("layout: %w (%v)", ErrNoSymbols, err)
	}
	type text struct {
		lo, hi uint64
		words  []byte
	}
	var texts []text
	for _, s := range f.Sections {
		if s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_EXECINSTR != 0 && s.Size > 0 {
			b, err := s.Data()
			if err != nil {
				return nil, fmt.Errorf("layout: section %s: %w", s.Name, err)
			}
			texts = append(texts, text{s.Addr, s.Addr + s.Size, b})
		}
	}
	secOf := func(a uint64) int {
		for i, t := range texts {
			if a >= t.lo && a < t.hi {
				return i
			}
		}
		return -1
	}
	var procs []Proc
	seen := map[uint64]bool{}
	for _, s := range syms {
		// Functions, and the untyped labels of assembly code in the
		// text (_start; glibc's load_gp, which _start calls), but not
		// the mapping symbols ($x..., $d) that mark where code begins.
		typ := elf.ST_TYPE(s.Info)
		if typ != elf.STT_FUNC && (typ != elf.STT_NOTYPE || s.Name == "" || s.Name[0] == '$') {
			continue
		}
		// With the C extension a function may start at any halfword
		// (riscv64-linux-gnu-gcc places about half of glibc's so).
		if secOf(s.Value) < 0 || s.Value%2 != 0 || seen[s.Value] {
			continue // aliases of one address: the first name wins
		}
		seen[s.Value] = true
		procs = append(procs, Proc{Name: s.Name, Addr: s.Value, Size: s.Size})
	}
	if len(procs) == 0 {
		return nil, ErrNoSymbols
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i].Addr < procs[j].Addr })
	for i := range procs {
		p := &procs[i]
		t := texts[secOf(p.Addr)]
		end := t.hi
		if i+1 < len(procs) && procs[i+1].Addr < end {
			end = procs[i+1].Addr
		}
		if p.Size == 0 || p.Addr+p.Size > end {
			p.Size = end - p.Addr
		}
		p.Size &^= 1 // whole halfwords; a 2-byte instruction may end it
	}
	prog := &Program{Procs: procs}
	for i := range procs {
		t := texts[secOf(procs[i].Addr)]
		prog.addBlocks(i, t.words[procs[i].Addr-t.lo:procs[i].Addr-t.lo+procs[i].Size])
	}
	// Resolve call targets to procedures.
	for bi := range prog.Blocks {
		b := &prog.Blocks[bi]
		for k, target := range b.Callees {
			b.Callees[k] = prog.ProcAt(uint64(target))
		}
		b.Callees = slices.DeleteFunc(b.Callees, func(c int) bool { return c < 0 })
	}
	return prog, nil
}

// addBlocks splits procedure pi, whose code is text, into basic blocks.
// Callees hold target addresses until Analyze resolves them. The text is
// decoded in order, each instruction 2 or 4 bytes long; a branch target
// that falls inside an instruction starts no block.
func (p *Program) addBlocks(pi int, text []byte) {
	proc := &p.Procs[pi]
	type placed struct {
		off uint64
		in  interp.Inst
	}
	var insts []placed
	leader := make([]bool, len(text)/2+1) // by halfword offset
	leader[0] = true
	for off := uint64(0); off+2 <= uint64(len(text)); {
		w := uint32(text[off]) | uint32(text[off+1])<<8
		if w&3 == 3 {
			if off+4 > uint64(len(text)) {
				break
			}
			w |= uint32(text[off+2])<<16 | uint32(text[off+3])<<24
		}
		in := interp.Decode(w)
		insts = append(insts, placed{off, in})
		pc := proc.Addr + off
		next := off + in.Len()
		switch {
		case in.IsBranch() || in.Op == interp.OpJAL:
			leader[next/2] = true
			if t := pc + uint64(in.Imm); t >= proc.Addr && t < proc.Addr+proc.Size {
				leader[(t-proc.Addr)/2] = true
			}
		case in.Op == interp.OpJALR || in.Op == interp.OpECALL:
			leader[next/2] = true
		}
		off = next
	}
	proc.Blocks[0] = len(p.Blocks)
	for i := 0; i < len(insts); {
		b := Block{Addr: proc.Addr + insts[i].off, Proc: pi}
		for {
			in := insts[i].in
			pc := proc.Addr + insts[i].off
			t := pc + uint64(in.Imm)
			switch {
			case in.Op == interp.OpJAL && in.Rd != 0:
				b.Callees = append(b.Callees, int(t))
			case in.Op == interp.OpJAL && (t < proc.Addr || t >= proc.Addr+proc.Size):
				b.Callees = append(b.Callees, int(t)) // tail call
			case in.Op == interp.OpJALR && in.Rd != 0:
				b.Indirect++
			}
			b.Size += in.Len()
			i++
			b.N++
			if i == len(insts) || leader[insts[i].off/2] {
				break
			}
		}
		p.Blocks = append(p.Blocks, b)
	}
	proc.Blocks[1] = len(p.Blocks)
}

// ProcAt returns the index of the procedure containing address a, or -1.
func (p *Program) ProcAt(a uint64) int {
	i := sort.Search(len(p.Procs), func(i int) bool { return p.Procs[i].Addr > a }) - 1
	if i < 0 || a >= p.Procs[i].Addr+p.Procs[i].Size {
		return -1
	}
	return i
}

// BlockAt returns the index of the basic block containing address a, or -1.
func (p *Program) BlockAt(a uint64) int {
	i := sort.Search(len(p.Blocks), func(i int) bool { return p.Blocks[i].Addr > a }) - 1
	if i < 0 || a >= p.Blocks[i].Addr+p.Blocks[i].Size {
		return -1
	}
	return i
}

// Proc returns the index of the procedure named name, or -1.
func (p *Program) Proc(name string) int {
	for i, q := range p.Procs {
		if q.Name == name {
			return i
		}
	}
	return -1
}

// FuncSampleSet turns samples by function name into a sample set over
// p's text: a function's samples are spread evenly over its
// instructions, since a native build's PCs say which function ran but
// not which of the guest's blocks (the two instruction sets have no
// common addresses); each block's share is put at its first address.
// Names p lacks (host library code, functions the host compiler inlined
// or the guest build lacks) and functions without instructions are
// returned as unmapped.
func (p *Program) FuncSampleSet(funcs map[string]uint64) (set SampleSet, unmapped float64) {
	byName := make(map[string]int, len(p.Procs))
	for i, q := range p.Procs {
		byName[q.Name] = i
	}
	set = SampleSet{}
	for name, n := range funcs {
		i, ok := byName[name]
		insts := 0
		if ok {
			for b := p.Procs[i].Blocks[0]; b < p.Procs[i].Blocks[1]; b++ {
				insts += p.Blocks[b].N
			}
		}
		if insts == 0 {
			unmapped += float64(n)
			continue
		}
		// Each block gets its instructions' share at its first address,
		// which BlockProfile divides among them again: the same weight
		// per instruction whatever their lengths (RV64GC mixes 2 and 4).
		per := float64(n) / float64(insts)
		for b := p.Procs[i].Blocks[0]; b < p.Procs[i].Blocks[1]; b++ {
			set[p.Blocks[b].Addr] += per * float64(p.Blocks[b].N)
		}
	}
	return set, unmapped
}
