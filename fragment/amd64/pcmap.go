// Host-to-guest pc map: the code positions recorded while emitting -> a compact table from host code offset to guest pc.

package amd64

import (
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
)

// A PCMap maps offsets in a fragment's code to the guest pcs the code was
// emitted for: the code of the entry maps to the trace head, the body's
// code to the guest instruction each IR instruction came from, an exit
// stub's code to the guest instruction that leaves through it, and a slow
// path to the access it checks. It is a list of entries sorted by host
// offset, one where the guest pc changes: entry i covers the code from its
// offset to the next entry's. Entries are stored as varint deltas from the
// previous one (about 2 bytes each), since a map is kept for every
// fragment in the cache and read only when a sample or a perf map asks.
// The zero PCMap is empty.
type PCMap struct {
	data []byte // per entry: uvarint(offset delta), varint(pc delta)
	n    int
}

// pcMap builds the map from the marks, once the code is assembled. A
// mark at the same offset as the one before it means the earlier one
// emitted nothing: the code there is the later one's. Neighbours with
// the same pc merge.
func (c *compiler) pcMap() PCMap {
	m := PCMap{data: make([]byte, 0, 3*len(c.marks))}
	var lastOff int
	var lastPC uint64
	put := func(off int, pc uint64) {
		m.data = binary.AppendUvarint(m.data, uint64(off-lastOff))
		m.data = binary.AppendVarint(m.data, int64(pc-lastPC))
		lastOff, lastPC = off, pc
		m.n++
	}
	// In layout order: code lowered early may have been moved to the end
	// (assembler.moveToEnd).
	// (The marks become offsets in place: nothing reads them after.)
	marks := c.marks
	for i, k := range marks {
		marks[i].at = c.a.markOffset(k.at)
	}
	slices.SortStableFunc(marks, func(x, y pcMark) int { return cmp.Compare(x.at, y.at) })
	var cur pcMark // the entry not yet written, if have
	have := false
	for _, k := range marks {
		off := k.at
		if have && cur.at == off {
			have = false
		}
		if have && cur.pc == k.pc || !have && m.n > 0 && lastPC == k.pc {
			continue
		}
		if have {
			put(cur.at, cur.pc)
		}
		cur, have = pcMark{off, k.pc}, true
	}
	if have {
		put(cur.at, cur.pc)
	}
	return m
}

// All yields the entries in ascending host offset: from host offset off
// on, the code belongs to guest pc.
func (m PCMap) All() iter.Seq2[int, uint64] {
	return func(yield func(off int, pc uint64) bool) {
		off, pc := 0, uint64(0)
		for b := m.data; len(b) > 0; {
			d, k := binary.Uvarint(b)
			p, j := binary.Varint(b[k:])
			b = b[k+j:]
			off, pc = off+int(d), pc+uint64(p)
			if !yield(off, pc) {
				return
			}
		}
	}
}

// Len returns the number of entries.
func (m PCMap) Len() int { return m.n }

// Bytes returns the memory the map's entries take.
func (m PCMap) Bytes() int { return len(m.data) }

// GuestPC returns the guest pc of the code at offset off of the fragment
// (whose code is size bytes long), and false if off is outside the code.
func (m PCMap) GuestPC(off, size int) (pc uint64, ok bool) {
	if off < 0 || off >= size {
		return 0, false
	}
	for o, p := range m.All() {
		if o > off {
			break
		}
		pc, ok = p, true
	}
	return pc, ok
}
