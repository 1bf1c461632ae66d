// Host-to-guest pc map: the code positions recorded while emitting -> a compact table from host code offset to guest pc.

package amd64

import (
	"encoding/binary"
	"iter"
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

// pcMap builds the map from the marks, once the code is assembled.
func (c *compiler) pcMap() PCMap {
	// An earlier mark at the same offset emitted nothing: the code there
	// is the later one's. Equal neighbours merge.
	offs := make([]int, 0, len(c.marks))
	pcs := make([]uint64, 0, len(c.marks))
	for _, k := range c.marks {
		off := c.a.offset(k.at)
		if n := len(offs); n > 0 && offs[n-1] == off {
			offs, pcs = offs[:n-1], pcs[:n-1]
		}
		if n := len(pcs); n > 0 && pcs[n-1] == k.pc {
			continue
		}
		offs, pcs = append(offs, off), append(pcs, k.pc)
	}
	var m PCMap
	lastOff, lastPC := 0, uint64(0)
	for i := range offs {
		m.data = binary.AppendUvarint(m.data, uint64(offs[i]-lastOff))
		m.data = binary.AppendVarint(m.data, int64(pcs[i]-lastPC))
		lastOff, lastPC = offs[i], pcs[i]
	}
	m.n = len(offs)
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
