// Guest symbols: an ELF image's symbol table -> the function holding a guest pc, for perf maps, listings and statistics.

package interp

import (
	"bytes"
	"debug/elf"
	"fmt"
	"sort"
)

// A Symbol is a guest function (or other text symbol): its name and the
// guest address range [Addr, Addr+Size).
type Symbol struct {
	Name string
	Addr uint64
	Size uint64
}

// Symbols is a guest program's text symbols sorted by address. The zero
// value (a stripped program) knows no names.
type Symbols struct {
	syms []Symbol
}

// LoadSymbols reads the function symbols of an ELF image. A stripped
// image, or one that is not ELF, gives empty Symbols and no error: names
// are a convenience, never a reason to refuse a program.
func LoadSymbols(image []byte) (s *Symbols) {
	s = &Symbols{}
	defer func() {
		if recover() != nil { // debug/elf on malformed input
			s = &Symbols{}
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return s
	}
	syms, err := f.Symbols()
	if err != nil {
		return s
	}
	for _, y := range syms {
		if elf.ST_TYPE(y.Info) == elf.STT_FUNC && y.Value != 0 && y.Name != "" {
			s.syms = append(s.syms, Symbol{Name: y.Name, Addr: y.Value, Size: y.Size})
		}
	}
	sort.Slice(s.syms, func(i, j int) bool { return s.syms[i].Addr < s.syms[j].Addr })
	return s
}

// Lookup returns the symbol holding pc: the last one starting at or below
// pc whose size covers it (a symbol of size 0 covers up to the next one).
// ok is false when no symbol does.
func (s *Symbols) Lookup(pc uint64) (sym Symbol, ok bool) {
	if s == nil {
		return Symbol{}, false
	}
	i := sort.Search(len(s.syms), func(i int) bool { return s.syms[i].Addr > pc }) - 1
	if i < 0 {
		return Symbol{}, false
	}
	y := s.syms[i]
	if y.Size != 0 && pc-y.Addr >= y.Size {
		return Symbol{}, false
	}
	return y, true
}

// Name returns "function+0xoff" for pc ("function" at its first
// instruction), or "0xpc" when no symbol holds it.
func (s *Symbols) Name(pc uint64) string {
	y, ok := s.Lookup(pc)
	switch {
	case !ok:
		return fmt.Sprintf("0x%x", pc)
	case pc == y.Addr:
		return y.Name
	}
	return fmt.Sprintf("%s+0x%x", y.Name, pc-y.Addr)
}

// Func returns the name of the function holding pc, or "" when none does.
func (s *Symbols) Func(pc uint64) string {
	y, _ := s.Lookup(pc)
	return y.Name
}

// All returns the symbols, sorted by address.
func (s *Symbols) All() []Symbol {
	if s == nil {
		return nil
	}
	return s.syms
}
