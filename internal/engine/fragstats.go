// Fragment statistics: the dispatcher's per-fragment tallies -> the top fragments of a run, named by guest function.

package engine

import (
	"cmp"
	"slices"
)

// A FragmentStat is one trace head's share of a run: the native runs
// entered at its fragment (Entries), the guest instructions those runs
// retired (Instructions: in this fragment and in the fragments linked
// after it, so it measures the code reached from this entry), and the
// runs that returned to the dispatcher through one of its exits (Exits).
// A head compiled again after a flush adds up over its fragments.
type FragmentStat struct {
	Head         uint64 `json:"head"`   // guest pc of the trace head
	Symbol       string `json:"symbol"` // "function+0xoff" of the head, or "" without symbols
	Fragments    int    `json:"fragments"`
	Entries      uint64 `json:"entries"`
	Instructions uint64 `json:"instructions"`
	Exits        uint64 `json:"exits"`
	CodeBytes    int    `json:"code_bytes"`
}

// TopFragments is how many fragments Stats lists.
const TopFragments = 10

// foldFragmentStats moves the tallies of the fragments in the cache into
// the totals, before a flush drops them.
func (vm *VM) foldFragmentStats() {
	if vm.fragTotal == nil {
		vm.fragTotal = make(map[uint64]*FragmentStat)
	}
	for _, f := range vm.live {
		t := vm.fragTotal[f.Head]
		if t == nil {
			t = &FragmentStat{Head: f.Head}
			vm.fragTotal[f.Head] = t
		}
		t.Fragments++
		t.Entries += f.Entries
		t.Instructions += f.Retired
		t.Exits += f.Exits
		t.CodeBytes = f.Size
	}
	vm.live = vm.live[:0]
}

// topFragments returns the n heads whose entries retired the most guest
// instructions (ties: more entries first, then the lower pc).
func (vm *VM) topFragments(n int) []FragmentStat {
	all := map[uint64]*FragmentStat{}
	for h, t := range vm.fragTotal {
		c := *t
		all[h] = &c
	}
	for _, f := range vm.live {
		t := all[f.Head]
		if t == nil {
			t = &FragmentStat{Head: f.Head}
			all[f.Head] = t
		}
		t.Fragments++
		t.Entries += f.Entries
		t.Instructions += f.Retired
		t.Exits += f.Exits
		t.CodeBytes = f.Size
	}
	list := make([]FragmentStat, 0, len(all))
	syms := vm.syms()
	for _, t := range all {
		if sym, ok := syms.Lookup(t.Head); ok && sym.Name != "" {
			t.Symbol = syms.Name(t.Head)
		}
		list = append(list, *t)
	}
	slices.SortFunc(list, func(a, b FragmentStat) int {
		return cmp.Or(cmp.Compare(b.Instructions, a.Instructions), cmp.Compare(b.Entries, a.Entries), cmp.Compare(a.Head, b.Head))
	})
	return list[:min(n, len(list))]
}
